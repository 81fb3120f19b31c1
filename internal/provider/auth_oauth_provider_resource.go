package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_oauth_provider resource: one OAuth provider of a branch's Neon
// Auth.

var (
	_ resource.ResourceWithImportState    = (*authOAuthProviderResource)(nil)
	_ resource.ResourceWithIdentity       = (*authOAuthProviderResource)(nil)
	_ resource.ResourceWithValidateConfig = (*authOAuthProviderResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*authOAuthProviderResource)(nil)
)

func init() { registerType(NewAuthOAuthProviderResource, NewAuthOAuthProviderList) }

// NewAuthOAuthProviderResource is the neon_auth_oauth_provider resource.
func NewAuthOAuthProviderResource() resource.Resource {
	return &authOAuthProviderResource{configured: configuredAs(typeAuthOAuthProvider)}
}

type authOAuthProviderResource struct {
	configured
}

type authOAuthProviderModel struct {
	scopeModel
	ID                    types.String `tfsdk:"id"`
	ProviderID            types.String `tfsdk:"provider_id"`
	ClientID              types.String `tfsdk:"client_id"`
	ClientSecret          types.String `tfsdk:"client_secret"`
	ClientSecretWO        types.String `tfsdk:"client_secret_wo"`
	ClientSecretWOVersion types.Int64  `tfsdk:"client_secret_wo_version"`
	MicrosoftTenantID     types.String `tfsdk:"microsoft_tenant_id"`
	Type                  types.String `tfsdk:"type"`
}

func (r *authOAuthProviderResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "An OAuth sign-in provider (Google, GitHub, Microsoft or Vercel) of a branch's Neon Auth " +
			"(`…/auth/oauth_providers`), with the platform's shared keys or your own OAuth app. " +
			"Import with `<project_id>/<branch_id>/<provider_id>`; `<project_id>/<provider_id>` is the production branch's.",
		Attributes: withAttributes(scopeAttributes("whose Neon Auth gets the OAuth provider", integrationAuthProvider), map[string]schema.Attribute{
			"id": computedString("`<project_id>/<branch_id>/<provider_id>`.", false),
			"provider_id": schema.StringAttribute{
				MarkdownDescription: "Which OAuth provider: " + enumText(apiclient.OAuthProviderIDs, nil) + ". Changing it replaces the resource.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.OneOf(apiclient.OAuthProviderIDs...)},
			},
			"client_id": schema.StringAttribute{
				MarkdownDescription: "Client id of your own OAuth app; needs a client secret. Omit both to use the shared keys.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"client_secret": schema.StringAttribute{
				MarkdownDescription: "Client secret of your own OAuth app, stored in state (sensitive). Conflicts with `client_secret_wo`.",
				Optional:            true,
				Sensitive:           true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"client_secret_wo": schema.StringAttribute{
				MarkdownDescription: "Write-only client secret (Terraform 1.11 or later): never stored. Needs `client_secret_wo_version`.",
				Optional:            true,
				Sensitive:           true,
				WriteOnly:           true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"client_secret_wo_version": schema.Int64Attribute{
				MarkdownDescription: "Version of `client_secret_wo`; change it to send a new secret.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AlsoRequires(path.MatchRoot("client_secret_wo"))},
			},
			"microsoft_tenant_id": schema.StringAttribute{
				MarkdownDescription: "Microsoft Entra tenant of the app (`microsoft` only). Never returned by the API: " +
					"a change made outside Terraform cannot be seen. Changing it updates the provider in place.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "`shared` (the platform's keys) or `standard` (your own app): planned from `client_id`.",
				Computed:            true,
				PlanModifiers: []planmodifier.String{
					oauthTypePlanModifier{},
					stringplanmodifier.RequiresReplaceIf(oauthTypeRequiresReplace,
						"The API cannot turn a standard provider back into a shared one: removing the credentials replaces it.",
						"The API cannot turn a standard provider back into a shared one: removing the credentials replaces it."),
				},
			},
		}),
	}
}

func (r *authOAuthProviderResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.planScope(ctx, scopeRules{}, req, resp)
	var id types.String
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("provider_id"), &id)...)
	} else {
		resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("provider_id"), &id)...)
	}
	what := id.ValueString() + " OAuth provider"
	const onDestroy = "Destroy leaves it on the branch (with the shared keys it had, when it had them)."
	r.planRestore(ctx, req, resp, what, onDestroy)
	r.planTakeOver(ctx, req, resp, plannedTakeOver{object: neonauth.Object{Kind: neonauth.KindOAuthProvider, Key: id.ValueString()},
		what: what, onDestroy: onDestroy, onBranch: func(ctx context.Context, s neonauth.Scope) (bool, error) {
			ps, err := r.data.auth.OAuthProviders(ctx, s)
			return slices.ContainsFunc(ps, func(p apiclient.OAuthProvider) bool { return string(p.ID) == id.ValueString() }), err
		}})
}

// oauthTypePlanModifier plans `type` from the configuration: credentials mean
// `standard`, none `shared`, except for a standard provider whose client_id
// Terraform never knew (imported), which stays standard. A refreshed type that differs from it (the
// credentials were removed outside Terraform) is then a visible change.
type oauthTypePlanModifier struct{}

func (oauthTypePlanModifier) Description(context.Context) string {
	return "`standard` when client_id is configured, else `shared` (an imported standard provider stays standard)."
}

func (m oauthTypePlanModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (oauthTypePlanModifier) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	var clientID, stateClientID types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("client_id"), &clientID)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("client_id"), &stateClientID)...)
	}
	switch {
	case clientID.IsNull() && stateClientID.IsNull() && req.StateValue.ValueString() == apiclient.TypeStandard:
		// Imported with its own app: the API never returns client_id, so
		// neither the state nor a generated configuration has it. Nothing
		// says the credentials should go; the provider stays standard.
		resp.PlanValue = req.StateValue
	case clientID.IsUnknown():
		resp.PlanValue = types.StringUnknown()
	case clientID.IsNull():
		resp.PlanValue = types.StringValue(apiclient.TypeShared)
	default:
		resp.PlanValue = types.StringValue(apiclient.TypeStandard)
	}
}

// oauthTypeRequiresReplace: only standard → shared needs a new provider.
func oauthTypeRequiresReplace(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = req.StateValue.ValueString() == apiclient.TypeStandard && req.PlanValue.ValueString() == apiclient.TypeShared
}

// ValidateConfig checks that client_id and exactly one secret form go
// together, and that a tenant is given only for Microsoft.
func (r *authOAuthProviderResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg authOAuthProviderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	secret, wo, clientID := isSet(cfg.ClientSecret), isSet(cfg.ClientSecretWO), isSet(cfg.ClientID)
	if secret && wo {
		resp.Diagnostics.AddAttributeError(path.Root("client_secret_wo"), "Conflicting client secret arguments",
			"Set either `client_secret` or the write-only `client_secret_wo` (with `client_secret_wo_version`), not both. Remove one of them.")
	}
	if clientID && !secret && !wo && !cfg.ClientID.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("client_id"), "Missing client secret",
			"`client_id` needs a client secret: set `client_secret`, or the write-only `client_secret_wo` with `client_secret_wo_version`. "+
				"To use the platform's shared keys instead, remove `client_id`.")
	}
	if !clientID {
		for name, set := range map[string]bool{"client_secret": secret, "client_secret_wo": wo} {
			if set {
				resp.Diagnostics.AddAttributeError(path.Root(name), "Missing client_id",
					fmt.Sprintf("`%s` needs `client_id`: set the client id of the same OAuth app, or remove `%s` to use the platform's shared keys.", name, name))
			}
		}
	}
	if wo && !isSet(cfg.ClientSecretWOVersion) {
		resp.Diagnostics.AddAttributeError(path.Root("client_secret_wo_version"), "Missing client_secret_wo_version",
			"`client_secret_wo` is write-only, so Terraform cannot see when it changes: set `client_secret_wo_version` (for example `1`) "+
				"and change it whenever the secret changes.")
	}
	if isSet(cfg.MicrosoftTenantID) && isKnownSet(cfg.ProviderID) && cfg.ProviderID.ValueString() != "microsoft" {
		resp.Diagnostics.AddAttributeError(path.Root("microsoft_tenant_id"), "Tenant only for Microsoft",
			fmt.Sprintf("`microsoft_tenant_id` names a Microsoft Entra tenant; it is only for `provider_id = \"microsoft\"`, not %q. Remove it.",
				cfg.ProviderID.ValueString()))
	}
}

// oauthImport is the import id.
var oauthImport = importFormat{
	resourceType: typeAuthOAuthProvider, parts: []string{"provider_id"}, withBranch: true,
	example: "autumn-frost-12345678/br-quiet-leaf-12345678/google",
}

// oauthRequest is what the plan (and, for the write-only secret, the
// configuration) sends; credentials reports whether it has client
// credentials.
func oauthRequest(ctx context.Context, plan authOAuthProviderModel, cfg attributeGetter, diags *diag.Diagnostics) (req apiclient.UpdateOAuthProviderRequest, credentials bool) {
	req.MicrosoftTenantID = apiclient.Optional(knownString(plan.MicrosoftTenantID))
	if plan.ClientID.IsNull() {
		return req, false
	}
	secret := plan.ClientSecret.ValueString()
	if plan.ClientSecret.IsNull() {
		secret = writeOnlyString(ctx, cfg, path.Root("client_secret_wo"), diags)
	}
	req.ClientID, req.ClientSecret = apiclient.Optional(plan.ClientID.ValueString()), apiclient.Optional(secret)
	return req, true
}

// oauthWrite is what Create and Update send: the plan, its scope, and the
// request body with the credentials (withCreds) when the plan has them.
type oauthWrite struct {
	plan      authOAuthProviderModel
	s         neonauth.Scope
	body      apiclient.UpdateOAuthProviderRequest
	withCreds bool
}

// id is the provider the write is for.
func (w oauthWrite) id() string { return w.plan.ProviderID.ValueString() }

// sendsSomething reports whether the body carries anything to update in
// place: credentials, or a tenant.
func (w oauthWrite) sendsSomething() bool { return w.withCreds || w.body.MicrosoftTenantID != nil }

// beginWrite opens Create and Update: the plan, its scope, and the body
// from the plan and the configuration's write-only secret.
func (r *authOAuthProviderResource) beginWrite(ctx context.Context, planned stateGetter, cfg attributeGetter, summary string,
	source providerSource, diags *diag.Diagnostics,
) (oauthWrite, bool) {
	var w oauthWrite
	var ok bool
	if w.plan, w.s, ok = beginIn[authOAuthProviderModel](ctx, r.data, planned, summary, source, diags); !ok {
		return w, false
	}
	w.body, w.withCreds = oauthRequest(ctx, w.plan, cfg, diags)
	return w, !diags.HasError()
}

func (r *authOAuthProviderResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer oauthImport.identifyCreated(ctx, resp)
	summary := r.unable("Create")
	w, ok := r.beginWrite(ctx, req.Plan, req.Config, summary, fromIntegration, &resp.Diagnostics)
	if !ok || !r.data.requireBranch(ctx, w.s.ProjectID, w.s.BranchID, summary, &resp.Diagnostics) {
		return
	}
	s, id := w.s, w.id()
	// The branch-scoped API answers a re-add of the same settings 200, as if
	// it had added it: a provider already listed is taken over when the
	// branch inherited it, and refused otherwise, so that Terraform never
	// deletes one it did not add.
	var found *apiclient.OAuthProvider
	if listed, err := r.data.auth.ListedOAuthProvider(s, id, &found)(ctx); err == nil && listed {
		r.takeOver(ctx, w, found, resp)
		return
	}
	created, err := r.data.auth.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{
		ID: neonapi.NeonAuthOauthProviderID(id), ClientID: w.body.ClientID, ClientSecret: w.body.ClientSecret, MicrosoftTenantID: w.body.MicrosoftTenantID})
	if err == nil && created.Recovered {
		created, err = r.recoverLostCreate(ctx, w, created, &resp.Diagnostics)
	}
	if errors.Is(err, apiclient.ErrNoSharedOAuthKeys) {
		resp.Diagnostics.AddAttributeError(path.Root("client_id"), "No shared credentials for this OAuth provider",
			fmt.Sprintf("Neon has no shared OAuth credentials for %s, so it needs your own OAuth app: set `client_id` "+
				"and a secret, `client_secret` or the write-only `client_secret_wo` with `client_secret_wo_version`. %s",
				id, apiErrorDetail(fmt.Sprintf("Adding the %s OAuth provider to %s", id, s.Scope), err)))
		return
	}
	if err != nil {
		detail := r.data.explainFailure(ctx, s, fmt.Sprintf("Adding the %s OAuth provider to %s", id, s.Scope), err)
		if errors.Is(err, apiclient.ErrConflict) {
			detail += importHint(fmt.Sprintf("The %s already has the %s OAuth provider.", s.Scope, id),
				oauthImport.resourceType, compositeID(s.ProjectID, s.BranchID, id))
		}
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	plan := w.plan
	plan.fromAPI(s, created)
	tflog.Debug(ctx, "created OAuth provider", map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID, "provider_id": id, "type": created.Type})
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// foundOAuthProvider is what taking over an inherited OAuth provider found:
// its type, and its client id when the list shows it. The client secret is
// never recorded.
type foundOAuthProvider struct {
	Type     string `json:"type"`
	ClientID string `json:"client_id,omitempty"`
}

// takeOver follows a create that found its OAuth provider already on the
// branch: one the branch inherited from its parent is taken over and given
// the planned credentials; anything else is refused with an import hint.
func (r *authOAuthProviderResource) takeOver(ctx context.Context, w oauthWrite, listed *apiclient.OAuthProvider, resp *resource.CreateResponse) {
	s, id := w.s, w.id()
	to, ok := r.mayTakeOver(ctx, s, neonauth.Object{Kind: neonauth.KindOAuthProvider, Key: id},
		fmt.Sprintf("Adding the %s OAuth provider to %s: it is already there.", id, s.Scope),
		fmt.Sprintf("The %s already has the %s OAuth provider.", s.Scope, id), compositeID(s.ProjectID, s.BranchID, id), &resp.Diagnostics)
	if !ok {
		return
	}
	shared := !w.withCreds && string(listed.Type) == apiclient.TypeStandard
	if shared && r.data.restore {
		resp.Diagnostics.AddAttributeError(path.Root("client_id"), "Inherited OAuth provider has its own app",
			fmt.Sprintf("Branch %[1]s was created from branch %[2]s and inherited its %[3]s OAuth provider, which uses its own OAuth app "+
				"(type standard); this configuration asks for the shared keys. Making it shared would delete its credentials, which "+
				"destroy could not restore: the API never returns a client secret. Set client_id and client_secret (or "+
				"client_secret_wo) of an OAuth app whose redirect URIs include this branch's callback (<base_url of its "+
				"integration>/callback/%[3]s) — the inherited app's, once you have added that URI, or one for previews.%[4]s",
				s.BranchID, to.Parent, id, disposableHint))
		return
	}
	got, ok := r.applyTakenOver(ctx, w, listed, shared, &resp.Diagnostics)
	if !ok {
		return
	}
	plan := w.plan
	plan.fromAPI(s, got)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	onDestroy := r.data.onDestroy("Destroy leaves it on the branch. The API never returns a client secret, so destroy cannot restore " +
		"inherited credentials that this configuration replaced.")
	switch {
	case shared:
		onDestroy = "Its own OAuth app was replaced by the shared keys; " + onDestroy
	case string(listed.Type) == apiclient.TypeShared:
		onDestroy = r.data.onDestroy("Destroy leaves it on the branch, with the shared keys it had.")
	}
	tookOver(ctx, resp.Private, &resp.Diagnostics, s, to.Parent, foundOAuthProvider{Type: string(listed.Type), ClientID: apiclient.Deref(listed.ClientID)},
		fmt.Sprintf("%s OAuth provider (type %s)", id, listed.Type),
		fmt.Sprintf("which holds the same %s OAuth provider", id), onDestroy)
}

// applyTakenOver gives an OAuth provider taken over the planned
// credentials: sent in place when there are any; with shared (an own app
// asked to use the shared keys, which restore_on_destroy = false allows)
// deleted and added again without credentials, since the API cannot turn a
// standard provider shared in place. It answers the provider as the API
// then shows it.
func (r *authOAuthProviderResource) applyTakenOver(ctx context.Context, w oauthWrite, listed *apiclient.OAuthProvider, shared bool,
	diags *diag.Diagnostics,
) (*apiclient.OAuthProvider, bool) {
	s, id := w.s, w.id()
	switch {
	case shared:
		err := r.data.auth.DeleteOAuthProvider(ctx, s, id)
		var added *apiclient.OAuthProvider
		if err == nil || isNotFound(err) {
			added, err = r.data.auth.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: neonapi.NeonAuthOauthProviderID(id)})
		}
		if err != nil {
			diags.AddError(r.unable("Create"), r.data.explainFailure(ctx, s,
				fmt.Sprintf("Replacing the own OAuth app of the %s OAuth provider %s inherited by the shared keys", id, s.Scope), err))
			return nil, false
		}
		return added, true
	case w.sendsSomething():
		updated, err := r.data.auth.UpdateOAuthProvider(ctx, s, id, w.body)
		if err != nil {
			diags.AddError(r.unable("Create"), r.data.explainFailure(ctx, s, fmt.Sprintf("Setting the credentials of the %s OAuth provider %s inherited", id, s.Scope), err))
			return nil, false
		}
		return updated, true
	}
	return listed, true
}

// recoverLostCreate follows a create whose response was lost but whose
// provider is listed. The list shows only the type, so a provider that does not have
// the planned type is given the configured credentials; one with credentials
// the configuration lacks is refused.
func (r *authOAuthProviderResource) recoverLostCreate(ctx context.Context, w oauthWrite, listed *apiclient.OAuthProvider, diags *diag.Diagnostics,
) (*apiclient.OAuthProvider, error) {
	s, id := w.s, w.id()
	switch {
	case w.withCreds && string(listed.Type) != apiclient.TypeStandard:
		updated, err := r.data.auth.UpdateOAuthProvider(ctx, s, id, w.body)
		if err != nil {
			return nil, fmt.Errorf("the create response was lost; the provider exists but setting its credentials failed: %w", err)
		}
		listed = updated
	case !w.withCreds && string(listed.Type) != apiclient.TypeShared:
		return nil, fmt.Errorf("the create response was lost and the %s OAuth provider now exists with its own credentials (type %s), "+
			"which this configuration does not set; import it (id %s) or remove it and apply again: %w",
			id, listed.Type, compositeID(s.ProjectID, s.BranchID, id), apiclient.ErrConflict)
	}
	diags.AddWarning("Auth OAuth provider created; response lost",
		fmt.Sprintf("The response to adding the %s OAuth provider to %s was lost in transit, but the provider exists, "+
			"so it was recovered into the state (type %s).", id, s.Scope, listed.Type))
	return listed, nil
}

func (r *authOAuthProviderResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer oauthImport.identifyRead(ctx, req, resp)
	summary := r.unable("Read")
	state, s, ok := beginIn[authOAuthProviderModel](ctx, r.data, req.State, summary, fromIntegration, &resp.Diagnostics)
	if !ok {
		return
	}
	id := state.ProviderID.ValueString()
	var found *apiclient.OAuthProvider
	if !r.readListed(ctx, s, r.data.auth.ListedOAuthProvider(s, id, &found), "the "+id+" OAuth provider", resp) {
		return
	}
	warnUnknownValue(&resp.Diagnostics, fmt.Sprintf("The type of the %s OAuth provider of %s", id, s.Scope), found.Type, apiclient.TypeShared, apiclient.TypeStandard)
	state.fromAPI(s, found)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// fromAPI writes what the API tells of the OAuth provider into m: its type
// (nil: m's stays). client_id, the secret and the tenant are never listed:
// m keeps its values, and the write-only secret is never stored.
func (m *authOAuthProviderModel) fromAPI(s neonauth.Scope, p *apiclient.OAuthProvider) {
	m.recordScope(s)
	m.ID = types.StringValue(branchObjectID(s, m.ProviderID.ValueString()))
	if p != nil {
		m.Type = types.StringValue(string(p.Type))
	}
	m.ClientSecretWO = types.StringNull()
}

// Update sends the configured credentials and tenant whenever the plan has
// any: a change of client_id, secret, secret version or tenant, or a type
// that drifted back to shared. Without them nothing reaches the API
// (removing the credentials replaces the resource).
func (r *authOAuthProviderResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer oauthImport.identifyUpdated(ctx, resp)
	summary := r.unable("Update")
	w, ok := r.beginWrite(ctx, req.Plan, req.Config, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	s, id := w.s, w.id()
	var updated *apiclient.OAuthProvider
	if w.sendsSomething() {
		var err error
		updated, err = r.data.auth.UpdateOAuthProvider(ctx, s, id, w.body)
		if err != nil {
			detail := r.data.explainFailure(ctx, s, fmt.Sprintf("Updating the %s OAuth provider of %s", id, s.Scope), err)
			if isNotFound(err) {
				detail += " If only the OAuth provider was deleted outside Terraform, run `terraform apply -refresh-only` and apply again to re-create it."
			}
			resp.Diagnostics.AddError(summary, detail)
			return
		}
	}
	w.plan.fromAPI(s, updated)
	resp.Diagnostics.Append(resp.State.Set(ctx, &w.plan)...)
}

func (r *authOAuthProviderResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	summary := r.unable("Delete")
	state, s, ok := beginIn[authOAuthProviderModel](ctx, r.data, req.State, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	id := state.ProviderID.ValueString()
	if restoreTakenOver(ctx, r.data, req.Private, &resp.Diagnostics, func(rec takeOverRecord[foundOAuthProvider]) {
		r.restore(ctx, s, state, rec.Found, &resp.Diagnostics)
	}) {
		return
	}
	err := r.data.auth.DeleteOAuthProvider(ctx, s, id)
	r.settleDelete(ctx, s, err, r.data.auth.ListedOAuthProvider(s, id, nil),
		fmt.Sprintf("Deleting the %s OAuth provider of %s", id, s.Scope), &resp.Diagnostics)
}

// restore is the destroy of an OAuth provider taken over from the parent
// branch: it stays. One that was shared and was given credentials goes back
// to the shared keys (the API cannot turn a standard provider shared in
// place: it is deleted and added again).
func (r *authOAuthProviderResource) restore(ctx context.Context, s neonauth.Scope, state authOAuthProviderModel, found foundOAuthProvider, diags *diag.Diagnostics) {
	id := state.ProviderID.ValueString()
	if found.Type != apiclient.TypeShared || state.Type.ValueString() == apiclient.TypeShared {
		tflog.Info(ctx, "leaving the inherited OAuth provider on the branch", map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID, "provider_id": id})
		return
	}
	err := r.data.auth.DeleteOAuthProvider(ctx, s, id)
	if err == nil || isNotFound(err) {
		_, err = r.data.auth.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: neonapi.NeonAuthOauthProviderID(id)})
	}
	r.settleDelete(ctx, s, err, nil,
		fmt.Sprintf("Restoring the shared keys of the %s OAuth provider %s inherited", id, s.Scope), diags)
}

func (r *authOAuthProviderResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = oauthImport.identitySchema()
}

func (r *authOAuthProviderResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	v, ok := oauthImport.importState(ctx, &req, resp)
	if !ok {
		return
	}
	if !slices.Contains(apiclient.OAuthProviderIDs, v["provider_id"]) {
		resp.Diagnostics.AddError("Invalid import id",
			fmt.Sprintf("Expected %s with provider_id one of %s, such as `%s`; got %q.",
				oauthImport.usage(), strings.Join(apiclient.OAuthProviderIDs, ", "), oauthImport.example, req.ID))
		return
	}
	r.checkImportBranch(ctx, v, resp)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), importedID(v, v["provider_id"]))...)
}

// NewAuthOAuthProviderList finds the neon_auth_oauth_provider objects of a
// project: every OAuth provider, named by its id and its branch.
func NewAuthOAuthProviderList() list.ListResource {
	return &objectList{listedResource: &authOAuthProviderResource{configured: configuredAs(typeAuthOAuthProvider)},
		what: "the OAuth providers",
		keys: func(ctx context.Context, auth *neonauth.Service, s neonauth.Scope) ([]string, error) {
			ps, err := auth.OAuthProviders(ctx, s)
			return keysOf(ps, err, func(p apiclient.OAuthProvider) string { return string(p.ID) })
		}}
}
