package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The neon_auth_magic_link_plugin resource: magic-link sign-in of a branch's
// Neon Auth.

type authMagicLinkPluginModel struct {
	settingsBase
	Enabled       types.Bool  `tfsdk:"enabled"`
	ExpiresIn     types.Int64 `tfsdk:"expires_in"`
	DisableSignUp types.Bool  `tfsdk:"disable_sign_up"`
}

var magicLinkPluginKind = settingsKind[neonapi.NeonAuthMagicLinkConfig, authMagicLinkPluginModel]{
	typeName: "neon_auth_magic_link_plugin",
	setting:  betterauth.MagicLink,
	description: "Passwordless sign-in by emailed links, on a branch's Neon Auth: read with `GET …/auth/plugins` " +
		"(shared with the other plugins of the branch), written with `PATCH …/auth/plugins/magic-link`.",
	attributes: map[string]schema.Attribute{
		"enabled":         settingBool("Whether users can sign in with a magic link."),
		"expires_in":      settingInt("Minutes before a link expires, 5 to 1440.", 5, 1440),
		"disable_sign_up": settingBool("Whether a magic link cannot sign up a new user."),
	},
}
