package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

var (
	_ resource.Resource                = (*authIntegrationResource)(nil)
	_ resource.ResourceWithConfigure   = (*authIntegrationResource)(nil)
	_ resource.ResourceWithImportState = (*authIntegrationResource)(nil)
)

// Defaults of endpoint 1.
const (
	defaultDatabaseName = "neondb"
	defaultRoleName     = "neondb_owner"
)

// projectIDPattern is the id format of the platform API.
var projectIDPattern = regexp.MustCompile(`^[a-z0-9-]{1,60}$`)

// NewAuthIntegrationResource is the neon_auth_integration resource.
func NewAuthIntegrationResource() resource.Resource { return &authIntegrationResource{} }

type authIntegrationResource struct {
	data *providerData
}

type authIntegrationModel struct {
	ID                    types.String `tfsdk:"id"`
	ProjectID             types.String `tfsdk:"project_id"`
	AuthProvider          types.String `tfsdk:"auth_provider"`
	BranchID              types.String `tfsdk:"branch_id"`
	DatabaseName          types.String `tfsdk:"database_name"`
	RoleName              types.String `tfsdk:"role_name"`
	DeleteDataOnDestroy   types.Bool   `tfsdk:"delete_data_on_destroy"`
	AuthProviderProjectID types.String `tfsdk:"auth_provider_project_id"`
	PubClientKey          types.String `tfsdk:"pub_client_key"`
	SecretServerKey       types.String `tfsdk:"secret_server_key"`
	JWKSURL               types.String `tfsdk:"jwks_url"`
	SchemaName            types.String `tfsdk:"schema_name"`
	TableName             types.String `tfsdk:"table_name"`
	CreatedAt             types.String `tfsdk:"created_at"`
	OwnedBy               types.String `tfsdk:"owned_by"`
}

func (r *authIntegrationResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_auth_integration"
}

// projectIDAttribute is the project_id input shared by every resource.
func projectIDAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description + " Changing it replaces the resource.",
		Required:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		Validators:          projectIDValidators(),
	}
}

func projectIDValidators() []validator.String {
	return []validator.String{
		stringvalidator.LengthAtLeast(1),
		stringvalidator.RegexMatches(projectIDPattern, "must be a Neon project id: 1 to 60 lower-case letters, digits and dashes, such as `autumn-frost-12345678`"),
	}
}

// authProviderAttribute is the auth_provider input shared by every resource.
func authProviderAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Auth provider. The only value the API accepts is `stack` (the default). Changing it replaces the resource.",
		Optional:            true,
		Computed:            true,
		Default:             stringdefault.StaticString(apiclient.AuthProviderStack),
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		Validators:          []validator.String{stringvalidator.OneOf(apiclient.AuthProviderStack)},
	}
}

func computedString(description string, sensitive bool) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Computed:            true,
		Sensitive:           sensitive,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

func (r *authIntegrationResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The auth integration of a Neon project: a platform-managed project at the auth provider " +
			"(Stack Auth) whose users are synchronized into the `users_sync` table of the project database.\n\n" +
			"Create calls `POST /projects/auth/create`; read lists `GET /projects/{project_id}/auth/integrations`; " +
			"destroy calls `DELETE /projects/{project_id}/auth/integration/{auth_provider}`. Every input forces replacement.\n\n" +
			"The API returns `pub_client_key` and `secret_server_key` only when the integration is created. After an import " +
			"they are unknown to Terraform (null in state); use `neon_auth_sdk_keys` to mint a fresh pair.\n\n" +
			"Drift: an integration deleted outside Terraform leaves the state and is planned for creation again; a changed " +
			"branch or database shows as a replacement; `owned_by` is refreshed.",
		Attributes: map[string]schema.Attribute{
			"id":            computedString("`<project_id>/<auth_provider>`.", false),
			"project_id":    projectIDAttribute("Id of the Neon project."),
			"auth_provider": authProviderAttribute(),
			"branch_id": schema.StringAttribute{
				MarkdownDescription: "Branch to attach the integration to. When omitted, the provider looks up the project's " +
					"production branch (the branch whose `default` flag is true) and stores it. Changing it replaces the resource.",
				Optional: true,
				Computed: true,
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
					stringplanmodifier.RequiresReplace(),
				},
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"database_name": schema.StringAttribute{
				MarkdownDescription: "Database whose `users_sync` table receives the users. Default `" + defaultDatabaseName + "`. Changing it replaces the resource.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(defaultDatabaseName),
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"role_name": schema.StringAttribute{
				MarkdownDescription: "Database role for authenticated users. Default `" + defaultRoleName + "`. Changing it replaces " +
					"the resource. The API does not list it, so after an import the configured value is adopted without replacement.",
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(defaultRoleName),
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.RequiresReplaceIf(replaceIfStateKnown,
						"Changing the role replaces the integration.", "Changing the role replaces the integration."),
				},
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"delete_data_on_destroy": schema.BoolAttribute{
				MarkdownDescription: "When `true`, destroying the integration also deletes its `neon_auth` schema from the database " +
					"(`delete_data` of the delete endpoint). Default `false`: the synchronized users table is kept.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"auth_provider_project_id": computedString("Id of the managed project at the auth provider.", false),
			"pub_client_key":           computedString("Public client key for the frontend SDK. Returned only at creation; null after import.", true),
			"secret_server_key":        computedString("Secret server key for the backend SDK. Returned only at creation; null after import.", true),
			"jwks_url":                 computedString("URL of the JSON Web Key Set of the provider project, to verify tokens.", false),
			"schema_name":              computedString("Database schema holding the synchronized users table. Returned only at creation; null after import.", false),
			"table_name":               computedString("Name of the synchronized users table (`users_sync`). Returned only at creation; null after import.", false),
			"created_at":               computedString("Creation time, ISO 8601 UTC.", false),
			"owned_by": schema.StringAttribute{
				MarkdownDescription: "Current owner of the auth project; the platform's own value while it manages it. Changes after an ownership transfer is confirmed.",
				Computed:            true,
			},
		},
	}
}

// replaceIfStateKnown forces replacement only when the prior value was known:
// a value the API cannot return (null after import) is adopted in place.
func replaceIfStateKnown(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

func (r *authIntegrationResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func integrationID(projectID, authProvider string) string { return projectID + "/" + authProvider }

func (r *authIntegrationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !requireClient(r.data, &resp.Diagnostics) {
		return
	}
	var plan authIntegrationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	projectID, provider := plan.ProjectID.ValueString(), plan.AuthProvider.ValueString()
	const summary = "Unable to Create Auth Integration"

	branchID := plan.BranchID.ValueString()
	if plan.BranchID.IsUnknown() || plan.BranchID.IsNull() {
		branch, err := r.data.client.DefaultBranch(ctx, projectID)
		if err != nil {
			resp.Diagnostics.AddError(summary, projectErrorDetail(projectID, "Looking up the production branch of project "+projectID, err))
			return
		}
		branchID = branch.ID
		tflog.Debug(ctx, "resolved production branch", map[string]any{"project_id": projectID, "branch_id": branchID})
	}

	var creds *apiclient.IntegrationCredentials
	recovered, err := confirmedWrite(ctx, "create integration",
		func(ctx context.Context) (err error) {
			creds, err = r.data.client.CreateIntegration(ctx, apiclient.CreateIntegrationRequest{
				AuthProvider: provider,
				ProjectID:    projectID,
				BranchID:     branchID,
				DatabaseName: plan.DatabaseName.ValueString(),
				RoleName:     plan.RoleName.ValueString(),
			})
			return err
		},
		func(ctx context.Context) (bool, error) {
			its, err := r.data.client.ListIntegrations(ctx, projectID)
			return findIntegration(its, provider) != nil, err
		})
	r.data.lists.invalidate(listKey{listIntegrations, projectID})
	if err == nil && recovered {
		creds, err = r.remintLostKeys(ctx, projectID, provider, &resp.Diagnostics)
	}
	if err != nil {
		what := fmt.Sprintf("Creating the %s integration of project %s on branch %s", provider, projectID, branchID)
		if errors.Is(err, apiclient.ErrConflict) {
			resp.Diagnostics.AddError(summary, apiErrorDetail(what, err)+
				fmt.Sprintf("\n\nProject %[1]s already has an active %[2]s integration. A project has at most one per auth provider. "+
					"To manage the existing one with Terraform, import it:\n\n"+
					"  terraform import <resource address, e.g. neon_auth_integration.this> %[1]s/%[2]s\n\n"+
					"or add an import block:\n\n  import {\n    to = neon_auth_integration.this\n    id = \"%[1]s/%[2]s\"\n  }", projectID, provider))
			return
		}
		resp.Diagnostics.AddError(summary, projectErrorDetail(projectID, what, err))
		return
	}

	plan.ID = types.StringValue(integrationID(projectID, provider))
	plan.BranchID = types.StringValue(branchID)
	plan.AuthProviderProjectID = types.StringValue(creds.AuthProviderProjectID)
	plan.PubClientKey = types.StringValue(creds.PubClientKey)
	plan.SecretServerKey = types.StringValue(creds.SecretServerKey)
	plan.JWKSURL = types.StringValue(creds.JWKSURL)
	plan.SchemaName = types.StringValue(creds.SchemaName)
	plan.TableName = types.StringValue(creds.TableName)

	// The create response lacks created_at and owned_by: read them from the
	// list, which the write above invalidated.
	integrations, err := r.data.listIntegrations(ctx, projectID)
	if err == nil {
		if it := findIntegration(integrations, provider); it != nil {
			applyListedIntegration(&plan, it)
		}
	}
	if plan.CreatedAt.IsUnknown() {
		plan.CreatedAt = types.StringNull()
	}
	if plan.OwnedBy.IsUnknown() {
		plan.OwnedBy = types.StringNull()
	}
	if err != nil {
		resp.Diagnostics.AddWarning("Auth integration created, details not yet read",
			apiErrorDetail("Reading back the new integration of project "+projectID, err)+" The next refresh fills created_at and owned_by.")
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// remintLostKeys follows a create that was applied but whose response, the
// only one that carries the keys, was lost: a fresh pair is minted, and the
// user is told.
func (r *authIntegrationResource) remintLostKeys(ctx context.Context, projectID, provider string, diags *diag.Diagnostics) (*apiclient.IntegrationCredentials, error) {
	creds, err := r.data.client.CreateSDKKeys(ctx, apiclient.SDKKeysRequest{ProjectID: projectID, AuthProvider: provider})
	if err != nil {
		return nil, fmt.Errorf("the create response was lost; the integration exists but minting replacement keys failed (import it, then use neon_auth_sdk_keys): %w", err)
	}
	diags.AddWarning("Auth integration created; keys re-minted",
		fmt.Sprintf("The response to creating the %s integration of project %s was lost in transit, but the integration was created. "+
			"Its original keys were only in that response, so the provider minted a new key pair (POST /projects/auth/keys) and stored it. "+
			"Keys from the lost response, if anyone saw them, are not the ones in state.", provider, projectID))
	return creds, nil
}

func applyListedIntegration(m *authIntegrationModel, it *apiclient.Integration) {
	m.AuthProviderProjectID = types.StringValue(it.AuthProviderProjectID)
	m.BranchID = types.StringValue(it.BranchID)
	m.DatabaseName = types.StringValue(it.DBName)
	m.JWKSURL = types.StringValue(it.JWKSURL)
	m.CreatedAt = types.StringValue(it.CreatedAt)
	m.OwnedBy = types.StringValue(it.OwnedBy)
}

func (r *authIntegrationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if !requireClient(r.data, &resp.Diagnostics) {
		return
	}
	var state authIntegrationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	projectID, provider := state.ProjectID.ValueString(), state.AuthProvider.ValueString()
	it, ok := r.data.readIntegration(ctx, projectID, provider, "Unable to Read Auth Integration", &resp.Diagnostics)
	if !ok {
		return
	}
	if it == nil {
		tflog.Warn(ctx, "auth integration no longer exists; removing it from state", map[string]any{"project_id": projectID, "auth_provider": provider})
		resp.State.RemoveResource(ctx)
		return
	}
	if !state.AuthProviderProjectID.IsNull() && state.AuthProviderProjectID.ValueString() != it.AuthProviderProjectID {
		// Deleted and created again outside Terraform: a different managed
		// project whose keys are not the ones in state.
		tflog.Warn(ctx, "auth integration was re-created outside Terraform; its keys in state are stale", map[string]any{"project_id": projectID})
		state.PubClientKey = types.StringNull()
		state.SecretServerKey = types.StringNull()
	}
	applyListedIntegration(&state, it)
	state.ID = types.StringValue(integrationID(projectID, provider))
	if state.DeleteDataOnDestroy.IsNull() {
		state.DeleteDataOnDestroy = types.BoolValue(false)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update only adopts values that need no API call: role_name after an import
// (the API does not list it) and delete_data_on_destroy. Everything else
// forces replacement.
func (r *authIntegrationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state authIntegrationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.RoleName = plan.RoleName
	state.DeleteDataOnDestroy = plan.DeleteDataOnDestroy
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *authIntegrationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !requireClient(r.data, &resp.Diagnostics) {
		return
	}
	var state authIntegrationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	projectID, provider := state.ProjectID.ValueString(), state.AuthProvider.ValueString()
	_, err := confirmedWrite(ctx, "delete integration",
		func(ctx context.Context) error {
			return r.data.client.DeleteIntegration(ctx, projectID, provider, apiclient.DeleteIntegrationRequest{DeleteData: state.DeleteDataOnDestroy.ValueBool()})
		},
		func(ctx context.Context) (bool, error) {
			its, err := r.data.client.ListIntegrations(ctx, projectID)
			return findIntegration(its, provider) == nil, err
		})
	r.data.lists.invalidateProject(projectID)
	if err == nil {
		return
	}
	if errors.Is(err, apiclient.ErrNotFound) {
		// Already gone counts as deleted, but only a successful list says so.
		gone, lerr := r.data.integrationGone(ctx, projectID, provider)
		if lerr == nil && gone {
			return
		}
		if lerr != nil && errors.Is(lerr, apiclient.ErrNotFound) {
			resp.Diagnostics.AddError("Unable to Delete Auth Integration", projectNotVisibleDetail(projectID, lerr))
			return
		}
	}
	resp.Diagnostics.AddError("Unable to Delete Auth Integration",
		apiErrorDetail(fmt.Sprintf("Deleting the %s integration of project %s", provider, projectID), err))
}

func (r *authIntegrationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	projectID, provider, ok := strings.Cut(req.ID, "/")
	if !ok {
		provider = apiclient.AuthProviderStack
	}
	if !projectIDPattern.MatchString(projectID) || provider != apiclient.AuthProviderStack {
		resp.Diagnostics.AddError("Invalid import id",
			fmt.Sprintf("Expected `<project_id>` or `<project_id>/stack`, such as `autumn-frost-12345678/stack`; got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project_id"), projectID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("auth_provider"), provider)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), integrationID(projectID, provider))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("delete_data_on_destroy"), false)...)
}
