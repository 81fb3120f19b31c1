package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_oauth_provider resource: one OAuth provider of a branch's Neon
// Auth, a list-backed type. What differs from the shared lifecycle: the
// credentials (client_id with a secret, or a write-only one) and the tenant
// are sent by create and update but never read back; an inherited provider
// taken over is given them, and destroy restores the shared keys it had; a
// create whose answer was lost checks the credentials of what it finds.

type authOAuthProviderModel struct {
	listedModel
	ProviderID            types.String `tfsdk:"provider_id"`
	ClientID              types.String `tfsdk:"client_id"`
	ClientSecret          types.String `tfsdk:"client_secret"`
	ClientSecretWO        types.String `tfsdk:"client_secret_wo"`
	ClientSecretWOVersion types.Int64  `tfsdk:"client_secret_wo_version"`
	MicrosoftTenantID     types.String `tfsdk:"microsoft_tenant_id"`
	Type                  types.String `tfsdk:"type"`
}

// authOAuthProvider describes neon_auth_oauth_provider.
var authOAuthProvider = &listBacked[authOAuthProviderModel, apiclient.OAuthProvider]{
	typeName: typeAuthOAuthProvider, kind: neonauth.KindOAuthProvider,
	key: "provider_id", canonical: oauthProviderID,
	importExample: "autumn-frost-12345678/br-quiet-leaf-12345678/google",
	description: "An OAuth sign-in provider (Google, GitHub, Microsoft or Vercel) of a branch's Neon Auth " +
		"(`…/auth/oauth_providers`), with the platform's shared keys or your own OAuth app.",
	scopeRole: "whose Neon Auth gets the OAuth provider",
	attributes: map[string]schema.Attribute{
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
	},
	noun: func(id string) string { return id + " OAuth provider" },
	adding: func(id string, s neonauth.Scope) string {
		return fmt.Sprintf("Adding the %s OAuth provider to %s", id, s.Scope)
	},
	onDestroy: "Destroy leaves it on the branch (with the shared keys it had, when it had them).",
	list:      (*neonauth.Service).OAuthProviders,
	keyOf:     func(p apiclient.OAuthProvider) string { return string(p.ID) },
	listed:    (*neonauth.Service).ListedOAuthProvider,
	add:       addOAuthProvider,
	update:    updateOAuthProvider,
	remove:    (*neonauth.Service).DeleteOAuthProvider,
	toModel:   oauthProviderToModel,
	hooks: listedHooks[authOAuthProviderModel, apiclient.OAuthProvider]{
		validate:  validateOAuthProvider,
		failed:    noSharedOAuthKeys,
		takeOver:  takeOverOAuthProvider,
		recovered: recoverLostOAuthProvider,
		restore:   restoreOAuthProvider,
	},
}

// oauthProviderID is a provider_id of an import: one the API knows.
func oauthProviderID(id string) (string, error) {
	if !slices.Contains(apiclient.OAuthProviderIDs, id) {
		return id, fmt.Errorf("is not one of %s", strings.Join(apiclient.OAuthProviderIDs, ", "))
	}
	return id, nil
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

// validateOAuthProvider checks that client_id and exactly one secret form
// go together, and that a tenant is given only for Microsoft.
func validateOAuthProvider(_ context.Context, cfg authOAuthProviderModel, diags *diag.Diagnostics) {
	secret, wo, clientID := isSet(cfg.ClientSecret), isSet(cfg.ClientSecretWO), isSet(cfg.ClientID)
	if secret && wo {
		diags.AddAttributeError(path.Root("client_secret_wo"), "Conflicting client secret arguments",
			"Set either `client_secret` or the write-only `client_secret_wo` (with `client_secret_wo_version`), not both. Remove one of them.")
	}
	if clientID && !secret && !wo && !cfg.ClientID.IsUnknown() {
		diags.AddAttributeError(path.Root("client_id"), "Missing client secret",
			"`client_id` needs a client secret: set `client_secret`, or the write-only `client_secret_wo` with `client_secret_wo_version`. "+
				"To use the platform's shared keys instead, remove `client_id`.")
	}
	if !clientID {
		for name, set := range map[string]bool{"client_secret": secret, "client_secret_wo": wo} {
			if set {
				diags.AddAttributeError(path.Root(name), "Missing client_id",
					fmt.Sprintf("`%s` needs `client_id`: set the client id of the same OAuth app, or remove `%s` to use the platform's shared keys.", name, name))
			}
		}
	}
	if wo && !isSet(cfg.ClientSecretWOVersion) {
		diags.AddAttributeError(path.Root("client_secret_wo_version"), "Missing client_secret_wo_version",
			"`client_secret_wo` is write-only, so Terraform cannot see when it changes: set `client_secret_wo_version` (for example `1`) "+
				"and change it whenever the secret changes.")
	}
	if isSet(cfg.MicrosoftTenantID) && isKnownSet(cfg.ProviderID) && cfg.ProviderID.ValueString() != "microsoft" {
		diags.AddAttributeError(path.Root("microsoft_tenant_id"), "Tenant only for Microsoft",
			fmt.Sprintf("`microsoft_tenant_id` names a Microsoft Entra tenant; it is only for `provider_id = \"microsoft\"`, not %q. Remove it.",
				cfg.ProviderID.ValueString()))
	}
}

// oauthApp is the OAuth app the plan (and, for the write-only secret, the
// configuration) sets.
func oauthApp(ctx context.Context, w listedWrite[authOAuthProviderModel], diags *diag.Diagnostics) neonauth.OAuthApp {
	app := neonauth.OAuthApp{ClientID: knownString(w.plan.ClientID), ClientSecret: knownString(w.plan.ClientSecret),
		MicrosoftTenantID: knownString(w.plan.MicrosoftTenantID)}
	if app.ClientID != "" && w.plan.ClientSecret.IsNull() && w.cfg != nil {
		app.ClientSecret = writeOnlyString(ctx, w.cfg, path.Root("client_secret_wo"), diags)
	}
	return app
}

// addOAuthProvider adds the provider with the planned app.
func addOAuthProvider(ctx context.Context, auth *neonauth.Service, w listedWrite[authOAuthProviderModel]) (*apiclient.OAuthProvider, bool, error) {
	var diags diag.Diagnostics
	app := oauthApp(ctx, w, &diags)
	if diags.HasError() {
		return nil, false, errors.New(diags.Errors()[0].Detail())
	}
	created, err := auth.AddOAuthProviderWith(ctx, w.s, w.key, app)
	return created, err == nil && created.Recovered, err
}

// updateOAuthProvider sends the configured app whenever the plan has
// credentials or a tenant: a change of client_id, secret, secret version or
// tenant, or a type that drifted back to shared. Without them nothing
// reaches the API (removing the credentials replaces the resource).
func updateOAuthProvider(ctx context.Context, auth *neonauth.Service, w listedWrite[authOAuthProviderModel]) (*apiclient.OAuthProvider, error) {
	var diags diag.Diagnostics
	app := oauthApp(ctx, w, &diags)
	if diags.HasError() {
		return nil, errors.New(diags.Errors()[0].Detail())
	}
	return auth.UpdateOAuthProviderTo(ctx, w.s, w.key, app)
}

// oauthProviderToModel writes what the API tells of the OAuth provider into
// m: its type (nil: m's stays). client_id, the secret and the tenant are
// never listed: m keeps its values, and the write-only secret is never
// stored.
func oauthProviderToModel(m *authOAuthProviderModel, s neonauth.Scope, p *apiclient.OAuthProvider) diag.Diagnostics {
	var diags diag.Diagnostics
	if p != nil {
		warnUnknownValue(&diags, fmt.Sprintf("The type of the %s OAuth provider of %s", p.ID, s.Scope), p.Type, apiclient.TypeShared, apiclient.TypeStandard)
		m.Type = types.StringValue(string(p.Type))
	}
	m.ClientSecretWO = types.StringNull()
	return diags
}

// noSharedOAuthKeys explains an add refused because Neon has no shared keys
// for the provider.
func noSharedOAuthKeys(w listedWrite[authOAuthProviderModel], err error, diags *diag.Diagnostics) bool {
	if !errors.Is(err, apiclient.ErrNoSharedOAuthKeys) {
		return false
	}
	diags.AddAttributeError(path.Root("client_id"), "No shared credentials for this OAuth provider",
		fmt.Sprintf("Neon has no shared OAuth credentials for %s, so it needs your own OAuth app: set `client_id` "+
			"and a secret, `client_secret` or the write-only `client_secret_wo` with `client_secret_wo_version`. %s",
			w.key, apiErrorDetail(fmt.Sprintf("Adding the %s OAuth provider to %s", w.key, w.s.Scope), err)))
	return true
}

// foundOAuthProvider is what taking over an inherited OAuth provider found:
// its type, and its client id when the list shows it. The client secret is
// never recorded.
type foundOAuthProvider struct {
	Type     string `json:"type"`
	ClientID string `json:"client_id,omitempty"`
}

// takeOverOAuthProvider follows a create that found its OAuth provider
// already on the branch, inherited from its parent: it is given the planned
// app (neonauth's TakeOverOAuthProvider), and recorded with what it had.
func takeOverOAuthProvider(ctx context.Context, c *configured, w listedWrite[authOAuthProviderModel], listed *apiclient.OAuthProvider,
	to neonauth.TakeOver, resp *resource.CreateResponse,
) (*apiclient.OAuthProvider, bool) {
	s, id := w.s, w.key
	app := oauthApp(ctx, w, &resp.Diagnostics)
	shared := neonauth.DropsOwnApp(listed, app)
	if resp.Diagnostics.HasError() {
		return nil, false
	}
	if shared && c.data.restore {
		resp.Diagnostics.AddAttributeError(path.Root("client_id"), "Inherited OAuth provider has its own app",
			fmt.Sprintf("Branch %[1]s was created from branch %[2]s and inherited its %[3]s OAuth provider, which uses its own OAuth app "+
				"(type standard); this configuration asks for the shared keys. Making it shared would delete its credentials, which "+
				"destroy could not restore: the API never returns a client secret. Set client_id and client_secret (or "+
				"client_secret_wo) of an OAuth app whose redirect URIs include this branch's callback (<base_url of its "+
				"integration>/callback/%[3]s) — the inherited app's, once you have added that URI, or one for previews.%[4]s",
				s.BranchID, to.Parent, id, disposableHint))
		return nil, false
	}
	got, err := c.data.auth.TakeOverOAuthProvider(ctx, s, listed, app)
	if err != nil {
		what := fmt.Sprintf("Setting the credentials of the %s OAuth provider %s inherited", id, s.Scope)
		if shared {
			what = fmt.Sprintf("Replacing the own OAuth app of the %s OAuth provider %s inherited by the shared keys", id, s.Scope)
		}
		resp.Diagnostics.AddError(c.unable("Create"), c.data.explainFailure(ctx, s, what, err))
		return nil, false
	}
	onDestroy := c.data.onDestroy("Destroy leaves it on the branch. The API never returns a client secret, so destroy cannot restore " +
		"inherited credentials that this configuration replaced.")
	switch {
	case shared:
		onDestroy = "Its own OAuth app was replaced by the shared keys; " + onDestroy
	case string(listed.Type) == apiclient.TypeShared:
		onDestroy = c.data.onDestroy("Destroy leaves it on the branch, with the shared keys it had.")
	}
	tookOver(ctx, resp.Private, &resp.Diagnostics, s, to.Parent, foundOAuthProvider{Type: string(listed.Type), ClientID: apiclient.Deref(listed.ClientID)},
		fmt.Sprintf("%s OAuth provider (type %s)", id, listed.Type),
		fmt.Sprintf("which holds the same %s OAuth provider", id), onDestroy)
	return got, true
}

// recoverLostOAuthProvider follows a create whose response was lost but
// whose provider is listed (neonauth's RecoverOAuthProvider).
func recoverLostOAuthProvider(ctx context.Context, c *configured, w listedWrite[authOAuthProviderModel], listed *apiclient.OAuthProvider,
	diags *diag.Diagnostics,
) (*apiclient.OAuthProvider, error) {
	got, err := c.data.auth.RecoverOAuthProvider(ctx, w.s, listed, oauthApp(ctx, w, diags), branchObjectID(w.s, w.key))
	if err == nil {
		diags.AddWarning("Auth OAuth provider created; response lost",
			fmt.Sprintf("The response to adding the %s OAuth provider to %s was lost in transit, but the provider exists, "+
				"so it was recovered into the state (type %s).", w.key, w.s.Scope, got.Type))
	}
	return got, err
}

// restoreOAuthProvider is the destroy of an OAuth provider taken over from
// the parent branch (neonauth's RestoreOAuthProvider): it stays, back on
// the shared keys when it had them.
func restoreOAuthProvider(ctx context.Context, c *configured, state listedWrite[authOAuthProviderModel], raw json.RawMessage, diags *diag.Diagnostics) {
	s, id := state.s, state.key
	var found foundOAuthProvider
	if err := json.Unmarshal(raw, &found); err != nil {
		diags.AddError(c.unable("Delete"), "The record of what the create took over cannot be read: "+err.Error())
		return
	}
	wrote, err := c.data.auth.RestoreOAuthProvider(ctx, s, id, found.Type, state.plan.Type.ValueString())
	if !wrote {
		tflog.Info(ctx, "leaving the inherited OAuth provider on the branch", map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID, "provider_id": id})
		return
	}
	c.settleDelete(ctx, s, err, nil, fmt.Sprintf("Restoring the shared keys of the %s OAuth provider %s inherited", id, s.Scope), diags)
}
