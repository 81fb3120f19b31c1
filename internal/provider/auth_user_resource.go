package provider

import (
	"context"
	"errors"
	"fmt"

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

// NewAuthUserResource is the neon_auth_user resource.
func NewAuthUserResource() resource.Resource { return &authUserResource{} }

type authUserResource struct {
	configured
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

// userImport is the import id: `<project_id>/<user_id>`.
var userImport = importFormat{
	resourceType: "neon_auth_user", parts: []string{"user_id"}, attrs: map[string]string{"user_id": "id"},
	example: "autumn-frost-12345678/1f0c5a2e-9b7d-4c1e-8a3f-2d6b7c8e9f01",
	note:    "The user id is the `id` column of the users_sync table.",
}

func (r *authUserResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := begin[authUserModel](ctx, r.data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(plan.ProjectID.ValueString(), plan.AuthProvider.ValueString())
	email := plan.Email.ValueString()
	const summary = "Unable to Create Auth User"
	what := fmt.Sprintf("Creating the user %s in the %s integration of project %s", email, s.AuthProvider, s.ProjectID)

	user, err := r.data.client.CreateUser(ctx, s.Scope, apiclient.CreateUserRequest{AuthProvider: s.AuthProvider, Email: email, Name: plan.Name.ValueString()})
	switch {
	case errors.Is(err, apiclient.ErrOutcomeUnknown):
		// No endpoint reads a user back, so the request is not sent again
		// blindly: it may have created the user.
		resp.Diagnostics.AddError(summary, apiErrorDetail(what, err)+"\n\n"+
			"The response was lost in transit, so the user may or may not have been created; the request was not sent again, "+
			"since no endpoint can read a user back. Run apply again: if it then fails because the email already exists, "+
			"the user was created. "+userImportHint(s.ProjectID, email))
		return
	case errors.Is(err, apiclient.ErrConflict):
		resp.Diagnostics.AddError(summary, apiErrorDetail(what, err)+"\n\n"+
			"A user with this email already exists in the auth project. "+userImportHint(s.ProjectID, email))
		return
	case err != nil:
		resp.Diagnostics.AddError(summary, r.data.explainFailure(ctx, s, what, err))
		return
	}
	if user.ID == "" {
		resp.Diagnostics.AddError(summary, what+": the API answered without a user id. "+userImportHint(s.ProjectID, email))
		return
	}

	plan.ID = types.StringValue(user.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	r.data.recordIntegration(ctx, resp.Private, s, &resp.Diagnostics)
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
// integration can be checked; if it is gone, or was deleted and created
// again, its users went with it.
func (r *authUserResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := begin[authUserModel](ctx, r.data, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(state.ProjectID.ValueString(), state.AuthProvider.ValueString())
	if outlived, ok := r.data.integrationOutlived(ctx, req.Private, resp.Private, s, "Unable to Read Auth User", &resp.Diagnostics); ok && outlived {
		tflog.Warn(ctx, "the integration of this auth user is gone, and the user with it; removing the user from state",
			map[string]any{"project_id": s.ProjectID, "user_id": state.ID.ValueString()})
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

// Delete deletes the user. A 404 alone does not say what is missing (the
// project or the key's view of it, the integration, or the user); absence
// does: an integration that is there means the user is already deleted.
func (r *authUserResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := begin[authUserModel](ctx, r.data, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(state.ProjectID.ValueString(), state.AuthProvider.ValueString())
	userID := state.ID.ValueString()
	err := r.data.client.DeleteUser(ctx, s.Scope, userID)
	r.data.settleDelete(ctx, s, err, nil, "Unable to Delete Auth User", fmt.Sprintf("Deleting the user %s of project %s", userID, s.ProjectID), &resp.Diagnostics)
}

func (r *authUserResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if _, ok := userImport.importState(ctx, req, resp); !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("auth_provider"), apiclient.AuthProviderStack)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("email"), types.StringNull())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), types.StringNull())...)
	setPrivateString(ctx, resp.Private, privateImported, "true", &resp.Diagnostics)
}
