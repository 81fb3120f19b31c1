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
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_oauth_provider resource: one OAuth provider of a branch's Neon
// Auth, a list-backed type. What differs from the shared lifecycle: the
// credentials (client_id with a secret, or a write-only one) and the tenant
// are the OAuth app given to the API (neonauth's OAuthProviderAPI, which
// also sends it to a provider taken over or recovered, and restores the
// shared keys on destroy), never read back; type is planned from them.

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
var authOAuthProvider = &listBacked[authOAuthProviderModel, apiclient.OAuthProvider, neonauth.OAuthApp]{
	typeName: typeAuthOAuthProvider, api: neonauth.OAuthProviderAPI,
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
	onDestroy: "Destroy leaves it on the branch (with the shared keys it had, when it had them).",
	input:     oauthApp,
	toModel:   oauthProviderToModel,
	hooks: listedHooks[authOAuthProviderModel, neonauth.OAuthApp]{
		validate: validateOAuthProvider,
		failed:   noSharedOAuthKeys,
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
func oauthApp(ctx context.Context, w listedWrite[authOAuthProviderModel, neonauth.OAuthApp], diags *diag.Diagnostics) neonauth.OAuthApp {
	app := neonauth.OAuthApp{ClientID: knownString(w.plan.ClientID), ClientSecret: knownString(w.plan.ClientSecret),
		MicrosoftTenantID: knownString(w.plan.MicrosoftTenantID)}
	if app.ClientID != "" && w.plan.ClientSecret.IsNull() && w.cfg != nil {
		app.ClientSecret = writeOnlyString(ctx, w.cfg, path.Root("client_secret_wo"), diags)
	}
	return app
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
func noSharedOAuthKeys(w listedWrite[authOAuthProviderModel, neonauth.OAuthApp], err error, diags *diag.Diagnostics) bool {
	if !errors.Is(err, apiclient.ErrNoSharedOAuthKeys) {
		return false
	}
	diags.AddAttributeError(path.Root("client_id"), "No shared credentials for this OAuth provider",
		fmt.Sprintf("Neon has no shared OAuth credentials for %s, so it needs your own OAuth app: set `client_id` "+
			"and a secret, `client_secret` or the write-only `client_secret_wo` with `client_secret_wo_version`. %s",
			w.key, apiErrorDetail(fmt.Sprintf("Adding the %s OAuth provider to %s", w.key, w.s.Scope), err)))
	return true
}
