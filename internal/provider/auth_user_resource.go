package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

var (
	_ resource.Resource                = (*authUserResource)(nil)
	_ resource.ResourceWithConfigure   = (*authUserResource)(nil)
	_ resource.ResourceWithImportState = (*authUserResource)(nil)
)

// Private state keys. Values are JSON, as the framework requires.
const (
	// privateAuthProjectID records the auth_provider_project_id of the
	// integration a thing was created under, so that a later Read notices an
	// integration that was deleted and created again (which takes its users
	// and pending transfer with it).
	privateAuthProjectID = "auth_provider_project_id"
	// privateImported marks a user that was imported: its email and name
	// are unknown (null) until the configuration supplies them.
	privateImported = "imported"
)

// NewAuthUserResource is the neon_auth_user resource.
func NewAuthUserResource() resource.Resource { return &authUserResource{} }

type authUserResource struct {
	data *providerData
}

type authUserModel struct {
	ID           types.String `tfsdk:"id"`
	ProjectID    types.String `tfsdk:"project_id"`
	AuthProvider types.String `tfsdk:"auth_provider"`
	Email        types.String `tfsdk:"email"`
	Name         types.String `tfsdk:"name"`
}

func (r *authUserResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_auth_user"
}

func (r *authUserResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A user of the project's managed auth project, created with `POST /projects/auth/user` and " +
			"deleted with `DELETE /projects/{project_id}/auth/users/{auth_user_id}`. Meant for seed, test and service " +
			"accounts managed as code. The user appears in the `users_sync` table of the integration's schema. " +
			"Every input forces replacement (a new user with a new id).\n\n" +
			"**What the provider can and cannot detect.** The API has no endpoint to read a user, so refresh only checks " +
			"the project's integration:\n\n" +
			"* If the integration is gone (or was deleted and created again), its users are gone too: the user leaves " +
			"the state and the next apply creates it again.\n" +
			"* A user deleted, renamed or given another email **outside Terraform while the integration exists is not " +
			"detected**: the state keeps the values Terraform set. Destroying a user that was already deleted succeeds.\n\n" +
			"**Import** with `<project_id>/<user_id>` (the id is in the `id` column of `users_sync`). The API cannot " +
			"return the email and name, so they are null after the import; the first apply then adopts the configured " +
			"`email` and `name` in place, without an API call and without checking them against the real user.\n\n" +
			"If the response to a create is lost in transit, the provider sends the request again (a few times at most, pausing in between). If one answers " +
			"that the email already exists, an earlier request was applied but its id is lost: the error explains how to " +
			"find the id and import the user.",
		Attributes: map[string]schema.Attribute{
			"id":            computedString("Id of the user at the auth provider (the `id` column of `users_sync`).", false),
			"project_id":    projectIDAttribute("Id of the Neon project whose integration holds the user."),
			"auth_provider": authProviderAttribute(),
			"email": schema.StringAttribute{
				MarkdownDescription: "Email address of the user. Unique within the auth project. Changing it replaces the user. " +
					"Null after an import until the configuration supplies it.",
				Required:      true,
				PlanModifiers: []planmodifier.String{replaceUnlessImported()},
				Validators:    []validator.String{emailAddressValidator{}},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Display name, 1 to 255 characters. Changing it replaces the user (the API cannot update " +
					"users). Null after an import until the configuration supplies it.",
				Optional:      true,
				PlanModifiers: []planmodifier.String{replaceUnlessImported()},
				Validators:    []validator.String{stringvalidator.UTF8LengthBetween(1, 255)},
			},
		},
	}
}

// replaceUnlessImported forces replacement on any change, except the first
// one after an import: the API cannot return email and name, so a null in an
// imported state means "unknown", and the configured value is adopted.
func replaceUnlessImported() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			imported := getPrivateString(ctx, req.Private, privateImported, &resp.Diagnostics) != ""
			resp.RequiresReplace = !imported || !req.StateValue.IsNull()
		},
		"Changing it replaces the user; after an import the configured value is adopted.",
		"Changing it replaces the user; after an import the configured value is adopted.",
	)
}

func (r *authUserResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *authUserResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !requireClient(r.data, &resp.Diagnostics) {
		return
	}
	var plan authUserModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	projectID, provider, email := plan.ProjectID.ValueString(), plan.AuthProvider.ValueString(), plan.Email.ValueString()
	const summary = "Unable to Create Auth User"
	what := fmt.Sprintf("Creating the user %s in the %s integration of project %s", email, provider, projectID)
	body := apiclient.CreateUserRequest{ProjectID: projectID, AuthProvider: provider, Email: email, Name: plan.Name.ValueString()}

	// No read endpoint exists to find out whether a POST whose answer was
	// lost was applied, so the request is sent again: a success means the
	// earlier one was not applied; "email already exists" means it was.
	var user *apiclient.User
	attempts := 0
	_, err := confirmedWrite(ctx, "create user",
		func(ctx context.Context) (err error) {
			attempts++
			user, err = r.data.client.CreateUser(ctx, body)
			return err
		},
		resendIdempotent)
	switch {
	case attempts > 1 && errors.Is(err, apiclient.ErrConflict):
		resp.Diagnostics.AddError(summary, apiErrorDetail(what, err)+"\n\n"+
			"The response to an earlier request was lost in transit, and a later request answered that the email "+
			"already exists: the earlier request created the user, but its id was in the lost response. "+
			userImportHint(projectID, email))
		return
	case errors.Is(err, apiclient.ErrOutcomeUnknown):
		resp.Diagnostics.AddError(summary, apiErrorDetail(what, err)+"\n\n"+
			fmt.Sprintf("The responses to %d requests were lost in transit; the user may or may not have been created. ", attempts)+
			"Run apply again: if it then fails because the email already exists, the user was created. "+
			userImportHint(projectID, email))
		return
	}
	if err != nil {
		detail := r.data.integrationErrorDetail(ctx, projectID, provider, what, err)
		if errors.Is(err, apiclient.ErrConflict) {
			detail += "\n\nA user with this email already exists in the auth project. " + userImportHint(projectID, email)
		}
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	if user.ID == "" {
		resp.Diagnostics.AddError(summary, what+": the API answered without a user id. "+userImportHint(projectID, email))
		return
	}

	plan.ID = types.StringValue(user.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	r.data.recordAuthProject(ctx, resp.Private, projectID, provider, &resp.Diagnostics)
}

// userImportHint tells how to adopt a user that exists at the auth provider
// but not in Terraform's state.
func userImportHint(projectID, email string) string {
	return fmt.Sprintf("The user with email %[2]s exists at the auth provider. Find its id in the project database:\n\n"+
		"  SELECT id FROM <schema_name>.users_sync WHERE email = '%[2]s';\n\n"+
		"(<schema_name> is the schema_name attribute of the neon_auth_integration), then import it:\n\n"+
		"  terraform import <resource address, e.g. neon_auth_user.this> %[1]s/<user_id>\n\n"+
		"or add an import block with id = \"%[1]s/<user_id>\". Alternatively delete that user at the auth provider and apply again.",
		projectID, email)
}

// Read keeps the state as it is: the API cannot read a user. Only the
// project's integration can be checked; if it is gone, or was deleted and
// created again, its users went with it.
func (r *authUserResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if !requireClient(r.data, &resp.Diagnostics) {
		return
	}
	var state authUserModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	projectID, provider := state.ProjectID.ValueString(), state.AuthProvider.ValueString()
	if r.data.integrationReplaced(ctx, req.Private, resp.Private, projectID, provider, "Unable to Read Auth User", &resp.Diagnostics) {
		tflog.Warn(ctx, "the integration of this auth user is gone, and the user with it; removing the user from state",
			map[string]any{"project_id": projectID, "user_id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
	}
}

// Update is reached only to adopt the configured email and name after an
// import (every other change forces replacement). No API call is made.
func (r *authUserResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state authUserModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.Email = plan.Email
	state.Name = plan.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateImported, nil)...)
}

func (r *authUserResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !requireClient(r.data, &resp.Diagnostics) {
		return
	}
	var state authUserModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	projectID, provider, userID := state.ProjectID.ValueString(), state.AuthProvider.ValueString(), state.ID.ValueString()
	const summary = "Unable to Delete Auth User"
	what := fmt.Sprintf("Deleting the user %s of project %s", userID, projectID)

	// Deleting is idempotent in effect: when an answer is lost the request
	// is sent again, and a 404 below then tells that it was applied.
	_, err := confirmedWrite(ctx, "delete user",
		func(ctx context.Context) error { return r.data.client.DeleteUser(ctx, projectID, userID) },
		resendIdempotent)
	if err == nil {
		return
	}
	if !isNotFound(err) {
		resp.Diagnostics.AddError(summary, apiErrorDetail(what, err))
		return
	}
	// A 404 alone does not say what is missing: the project (or the key's
	// view of it), the integration, or the user. The integration list does:
	//   - it fails with 404 too: the project is not visible; nothing is
	//     known about the user, so this is an error and state is kept;
	//   - it succeeds without the integration: the user went with it;
	//   - it succeeds with the integration: the project is visible and the
	//     integration active, so the only thing the path could not find is
	//     the user itself, which is therefore already deleted.
	if _, lerr := r.data.integrationGone(ctx, projectID, provider); lerr != nil {
		if isNotFound(lerr) {
			resp.Diagnostics.AddError(summary, projectNotVisibleDetail(projectID, lerr))
			return
		}
		resp.Diagnostics.AddError(summary, apiErrorDetail(what, err)+" Checking the project's integration failed as well: "+
			apiErrorDetail("Listing the integrations of project "+projectID, lerr))
		return
	}
	tflog.Debug(ctx, "auth user was already deleted", map[string]any{"project_id": projectID, "user_id": userID})
}

func (r *authUserResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	projectID, userID, ok := strings.Cut(req.ID, "/")
	if !ok || !projectIDPattern.MatchString(projectID) || userID == "" || strings.Contains(userID, "/") {
		resp.Diagnostics.AddError("Invalid import id",
			fmt.Sprintf("Expected `<project_id>/<user_id>`, such as `autumn-frost-12345678/1f0c…`; got %q. "+
				"The user id is the `id` column of the users_sync table.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project_id"), projectID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("auth_provider"), apiclient.AuthProviderStack)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), userID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("email"), types.StringNull())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), types.StringNull())...)
	setPrivateString(ctx, resp.Private, privateImported, "true", &resp.Diagnostics)
}
