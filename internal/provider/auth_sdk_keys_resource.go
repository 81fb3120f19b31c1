package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_sdk_keys resource: a key pair of the production branch's Stack
// Auth integration.

var (
	_ resource.ResourceWithModifyPlan = (*authSDKKeysResource)(nil)
)

// NewAuthSDKKeysResource is the neon_auth_sdk_keys resource.
func NewAuthSDKKeysResource() resource.Resource {
	return &authSDKKeysResource{configured: configuredAs(typeAuthSDKKeys)}
}

type authSDKKeysResource struct {
	configured
}

type authSDKKeysModel struct {
	scopeModel
	ID                    types.String `tfsdk:"id"`
	RotationTriggers      types.Map    `tfsdk:"rotation_triggers"`
	AuthProviderProjectID types.String `tfsdk:"auth_provider_project_id"`
	PubClientKey          types.String `tfsdk:"pub_client_key"`
	SecretServerKey       types.String `tfsdk:"secret_server_key"`
	JWKSURL               types.String `tfsdk:"jwks_url"`
	SchemaName            types.String `tfsdk:"schema_name"`
	TableName             types.String `tfsdk:"table_name"`
	CreatedAt             types.String `tfsdk:"created_at"`
}

func (r *authSDKKeysResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A new key pair for the Stack Auth SDKs of the production branch's integration: " +
			"`POST /projects/auth/keys`. Change `rotation_triggers` to mint another; earlier pairs stay valid (the API cannot " +
			"revoke them). Not importable.",
		Attributes: withAttributes(stackAttributes("whose Neon Auth mints the keys", "`stack`, the only auth provider with SDK keys. Omitted: the integration's, which must be `stack`.", "The production branch, the only one whose integration has SDK keys; recorded at creation."), map[string]schema.Attribute{
			"id": computedString("`<project_id>/<branch_id>/<auth_provider>/<created_at>`.", false),
			"rotation_triggers": schema.MapAttribute{
				MarkdownDescription: "Arbitrary strings; any change mints a new key pair (replacement). For example a date, " +
					"or the id of a secret-store version.",
				ElementType:   types.StringType,
				Optional:      true,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
			"auth_provider_project_id": computedString("Id of the managed project at the auth provider.", false),
			"pub_client_key":           computedString("Public client key for the frontend SDK.", true),
			"secret_server_key":        computedString("Secret server key for the backend SDK.", true),
			"jwks_url":                 computedString("URL of the JSON Web Key Set of the provider project.", false),
			"schema_name":              computedString("Database schema holding the synchronized users table.", false),
			"table_name":               computedString("Name of the synchronized users table.", false),
			"created_at":               computedString("When this pair was minted (RFC 3339, UTC).", false),
		}),
	}
}

func (r *authSDKKeysResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.planScope(ctx, scopeRules{productionStack: true}, req, resp)
}

func (r *authSDKKeysResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	summary := r.unable("Create")
	plan, s, ok := beginStack[authSDKKeysModel](ctx, r.data, r.typeName, req.Plan, summary, &resp.Diagnostics)
	if !ok {
		return
	}
	what := fmt.Sprintf("Minting SDK keys for the %s integration of project %s", s.AuthProvider, s.ProjectID)
	creds, err := r.data.auth.CreateSDKKeys(ctx, s)
	switch {
	case errors.Is(err, apiclient.ErrOutcomeUnknown):
		// Minting cannot be read back, so it is not sent again blindly.
		resp.Diagnostics.AddError(summary, apiErrorDetail(what, err)+" A key pair may have been minted that no one has seen; "+
			"the API cannot revoke keys, so it stays valid until the integration is deleted. Run apply again to mint a pair whose keys Terraform keeps.")
		return
	case err != nil:
		resp.Diagnostics.AddError(summary, r.data.explainFailure(ctx, s, what, err))
		return
	}
	created := time.Now().UTC().Format(time.RFC3339Nano)
	plan.recordScope(s)
	plan.fromAPI(s, creds, created)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// fromAPI writes a key pair the API minted at time created into m: the
// only answer that carries the keys.
func (m *authSDKKeysModel) fromAPI(s neonauth.Scope, creds *apiclient.IntegrationCredentials, created string) {
	m.ID = types.StringValue(branchObjectID(s, s.AuthProvider, created))
	m.CreatedAt = types.StringValue(created)
	m.AuthProviderProjectID = types.StringValue(creds.AuthProviderProjectID)
	m.PubClientKey = types.StringValue(creds.PubClientKey)
	m.SecretServerKey = types.StringValue(creds.SecretServerKey)
	m.JWKSURL = types.StringValue(creds.JWKSURL)
	m.SchemaName = types.StringValue(creds.SchemaName)
	m.TableName = types.StringValue(creds.TableName)
}

// Read keeps the keys (the API cannot return them) and drops the resource
// when the integration that minted them is gone or was replaced.
func (r *authSDKKeysResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, s, ok := beginIn[authSDKKeysModel](ctx, r.data, req.State, r.unable("Read"), fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	it, ok := r.readIntegration(ctx, s, r.unable("Read"), &resp.Diagnostics)
	if !ok {
		return
	}
	switch {
	case it == nil:
		tflog.Warn(ctx, "integration of these SDK keys no longer exists; removing the keys from state", map[string]any{"project_id": s.ProjectID})
		resp.State.RemoveResource(ctx)
		return
	case it.AuthProviderProjectID != state.AuthProviderProjectID.ValueString():
		tflog.Warn(ctx, "integration of these SDK keys was re-created; the keys belong to the old one and are removed from state", map[string]any{"project_id": s.ProjectID})
		resp.State.RemoveResource(ctx)
		return
	}
	state.JWKSURL = types.StringValue(it.JWKSURL)
	state.recordScope(s)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update is never called with a change: every input forces replacement.
func (r *authSDKKeysResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

// Delete forgets the keys. The API has no revocation: they stay valid at the
// auth provider until the integration is deleted.
func (r *authSDKKeysResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var projectID types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("project_id"), &projectID)...)
	tflog.Warn(ctx, "SDK keys removed from state; the API offers no revocation, so they remain valid until the integration is deleted",
		map[string]any{"project_id": projectID.ValueString()})
}
