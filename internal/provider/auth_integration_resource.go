package provider

import (
	"context"
	"errors"
	"fmt"

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

// Defaults of POST /projects/auth/create.
const (
	defaultDatabaseName = "neondb"
	defaultRoleName     = "neondb_owner"
)

// NewAuthIntegrationResource is the neon_auth_integration resource.
func NewAuthIntegrationResource() resource.Resource { return &authIntegrationResource{} }

type authIntegrationResource struct {
	configured
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

// integrationImport is the import id: `<project_id>` or
// `<project_id>/<auth_provider>`.
var integrationImport = importFormat{
	resourceType: "neon_auth_integration", parts: []string{"auth_provider"}, optional: 1,
	example: "autumn-frost-12345678/stack",
}

func (r *authIntegrationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := begin[authIntegrationModel](ctx, r.data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(plan.ProjectID.ValueString(), plan.AuthProvider.ValueString())
	const summary = "Unable to Create Auth Integration"

	s.BranchID = plan.BranchID.ValueString()
	if plan.BranchID.IsUnknown() || plan.BranchID.IsNull() {
		branch, err := r.data.client.DefaultBranch(ctx, s.ProjectID)
		if err != nil {
			resp.Diagnostics.AddError(summary, projectErrorDetail(s.ProjectID, "Looking up the production branch of project "+s.ProjectID, err))
			return
		}
		s.BranchID = branch.ID
		tflog.Debug(ctx, "resolved production branch", map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID})
	}

	creds, err := r.data.client.CreateIntegration(ctx, s.Scope, apiclient.CreateIntegrationRequest{
		AuthProvider: s.AuthProvider,
		DatabaseName: plan.DatabaseName.ValueString(),
		RoleName:     plan.RoleName.ValueString(),
	})
	r.data.wroteIntegration(s.Scope)
	if err == nil && creds.Recovered {
		creds, err = r.remintLostKeys(ctx, s, &resp.Diagnostics)
	}
	if err != nil {
		what := fmt.Sprintf("Creating the %s integration of project %s on branch %s", s.AuthProvider, s.ProjectID, s.BranchID)
		if errors.Is(err, apiclient.ErrConflict) {
			resp.Diagnostics.AddError(summary, apiErrorDetail(what, err)+importHint(
				fmt.Sprintf("Project %s already has an active %s integration; a project has at most one per auth provider.", s.ProjectID, s.AuthProvider),
				"neon_auth_integration", compositeID(s.ProjectID, s.AuthProvider)))
			return
		}
		resp.Diagnostics.AddError(summary, projectErrorDetail(s.ProjectID, what, err))
		return
	}

	plan.ID = types.StringValue(compositeID(s.ProjectID, s.AuthProvider))
	plan.BranchID = types.StringValue(s.BranchID)
	plan.AuthProviderProjectID = types.StringValue(creds.AuthProviderProjectID)
	plan.PubClientKey = types.StringValue(creds.PubClientKey)
	plan.SecretServerKey = types.StringValue(creds.SecretServerKey)
	plan.JWKSURL = types.StringValue(creds.JWKSURL)
	plan.SchemaName = types.StringValue(creds.SchemaName)
	plan.TableName = types.StringValue(creds.TableName)

	// The create response lacks created_at and owned_by: read them from the
	// list, which the write above invalidated.
	it, err := r.data.integration(ctx, s)
	if it != nil {
		applyListedIntegration(&plan, it)
	}
	if plan.CreatedAt.IsUnknown() {
		plan.CreatedAt = types.StringNull()
	}
	if plan.OwnedBy.IsUnknown() {
		plan.OwnedBy = types.StringNull()
	}
	if err != nil {
		resp.Diagnostics.AddWarning("Auth integration created, details not yet read",
			apiErrorDetail("Reading back the new integration of project "+s.ProjectID, err)+" The next refresh fills created_at and owned_by.")
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// remintLostKeys follows a create that was applied but whose response, the
// only one that carries the keys, was lost: a fresh pair is minted, and the
// user is told.
func (r *authIntegrationResource) remintLostKeys(ctx context.Context, s authScope, diags *diag.Diagnostics) (*apiclient.IntegrationCredentials, error) {
	creds, err := r.data.client.CreateSDKKeys(ctx, s.Scope, s.AuthProvider)
	if err != nil {
		return nil, fmt.Errorf("the create response was lost; the integration exists but minting replacement keys failed (import it, then use neon_auth_sdk_keys): %w", err)
	}
	diags.AddWarning("Auth integration created; keys re-minted",
		fmt.Sprintf("The response to creating the %s integration of project %s was lost in transit, but the integration was created. "+
			"Its original keys were only in that response, so the provider minted a new key pair (POST /projects/auth/keys) and stored it. "+
			"Keys from the lost response, if anyone saw them, are not the ones in state.", s.AuthProvider, s.ProjectID))
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
	state, ok := begin[authIntegrationModel](ctx, r.data, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(state.ProjectID.ValueString(), state.AuthProvider.ValueString())
	it, ok := r.data.readIntegration(ctx, s, "Unable to Read Auth Integration", &resp.Diagnostics)
	if !ok {
		return
	}
	if it == nil {
		tflog.Warn(ctx, "auth integration no longer exists; removing it from state", map[string]any{"project_id": s.ProjectID, "auth_provider": s.AuthProvider})
		resp.State.RemoveResource(ctx)
		return
	}
	if !state.AuthProviderProjectID.IsNull() && state.AuthProviderProjectID.ValueString() != it.AuthProviderProjectID {
		// Deleted and created again outside Terraform: a different managed
		// project whose keys are not the ones in state.
		tflog.Warn(ctx, "auth integration was re-created outside Terraform; its keys in state are stale", map[string]any{"project_id": s.ProjectID})
		state.PubClientKey = types.StringNull()
		state.SecretServerKey = types.StringNull()
	}
	applyListedIntegration(&state, it)
	state.ID = types.StringValue(compositeID(s.ProjectID, s.AuthProvider))
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
	state, ok := begin[authIntegrationModel](ctx, r.data, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(state.ProjectID.ValueString(), state.AuthProvider.ValueString())
	err := r.data.client.DeleteIntegration(ctx, s.Scope, s.AuthProvider, state.DeleteDataOnDestroy.ValueBool())
	r.data.wroteIntegration(s.Scope)
	r.data.settleDelete(ctx, s, err, nil, "Unable to Delete Auth Integration",
		fmt.Sprintf("Deleting the %s integration of project %s", s.AuthProvider, s.ProjectID), &resp.Diagnostics)
}

func (r *authIntegrationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	v, ok := integrationImport.importState(ctx, req, resp)
	if !ok {
		return
	}
	provider := v["auth_provider"]
	if provider == "" {
		provider = apiclient.AuthProviderStack
	}
	if provider != apiclient.AuthProviderStack {
		resp.Diagnostics.AddError("Invalid import id",
			fmt.Sprintf("The auth provider %q is not supported: the API accepts only `stack`. Expected %s, such as `%s`; got %q.",
				provider, integrationImport.usage(), integrationImport.example, req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("auth_provider"), provider)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), compositeID(v["project_id"], provider))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("delete_data_on_destroy"), false)...)
}
