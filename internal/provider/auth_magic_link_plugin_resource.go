package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The neon_auth_magic_link_plugin resource: magic-link sign-in of a branch's
// Neon Auth.

var (
	_ resource.ResourceWithImportState = (*authMagicLinkPluginResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*authMagicLinkPluginResource)(nil)
)

// NewAuthMagicLinkPluginResource is the neon_auth_magic_link_plugin resource.
func NewAuthMagicLinkPluginResource() resource.Resource {
	r := settingsOf(magicLinkPluginKind)
	return &r
}

type authMagicLinkPluginResource = settingsResource[apiclient.MagicLinkPlugin, authMagicLinkPluginModel, *authMagicLinkPluginModel]

type authMagicLinkPluginModel struct {
	settingsBase
	Enabled       types.Bool  `tfsdk:"enabled"`
	ExpiresIn     types.Int64 `tfsdk:"expires_in"`
	DisableSignUp types.Bool  `tfsdk:"disable_sign_up"`
}

var magicLinkPluginKind = settingsKind[apiclient.MagicLinkPlugin, authMagicLinkPluginModel]{
	typeName: typeAuthMagicLinkPlugin,
	found:    magicLinkPluginFound,
	description: "Passwordless sign-in by emailed links, on a branch's Neon Auth: read with `GET …/auth/plugins` " +
		"(shared with the other plugins of the branch), written with `PATCH …/auth/plugins/magic-link`.",
	attributes: map[string]schema.Attribute{
		"enabled":         settingBool("Whether users can sign in with a magic link."),
		"expires_in":      settingInt("Minutes before a link expires, 5 to 1440.", 5, 1440),
		"disable_sign_up": settingBool("Whether a magic link cannot sign up a new user."),
	},
	get: func(ctx context.Context, d *providerData, s apiclient.Scope) (apiclient.MagicLinkPlugin, error) {
		return d.magicLinkPlugin(ctx, s)
	},
	set: func(ctx context.Context, d *providerData, s apiclient.Scope, v apiclient.MagicLinkPlugin) (apiclient.MagicLinkPlugin, error) {
		return deref(d.client.UpdateMagicLinkPlugin(ctx, s, apiclient.MagicLinkPluginUpdate{
			Enabled: &v.Enabled, ExpiresIn: &v.ExpiresIn, DisableSignUp: &v.DisableSignUp}))
	},
	toModel: func(v apiclient.MagicLinkPlugin, m *authMagicLinkPluginModel) {
		m.Enabled = types.BoolValue(v.Enabled)
		m.ExpiresIn = types.Int64Value(v.ExpiresIn)
		m.DisableSignUp = types.BoolValue(v.DisableSignUp)
	},
	overlay: func(m authMagicLinkPluginModel, v apiclient.MagicLinkPlugin) apiclient.MagicLinkPlugin {
		overlayBool(&v.Enabled, m.Enabled)
		overlayInt(&v.ExpiresIn, m.ExpiresIn)
		overlayBool(&v.DisableSignUp, m.DisableSignUp)
		return v
	},
}
