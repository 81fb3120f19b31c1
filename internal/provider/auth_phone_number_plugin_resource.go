package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

var (
	_ resource.ResourceWithImportState = (*authPhoneNumberPluginResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*authPhoneNumberPluginResource)(nil)
)

// NewAuthPhoneNumberPluginResource is the neon_auth_phone_number_plugin resource.
func NewAuthPhoneNumberPluginResource() resource.Resource {
	return &authPhoneNumberPluginResource{kind: phoneNumberPluginKind}
}

type authPhoneNumberPluginResource = settingsResource[apiclient.PhoneNumberPlugin, authPhoneNumberPluginModel, *authPhoneNumberPluginModel]

type authPhoneNumberPluginModel struct {
	settingsBase
	Enabled         types.Bool  `tfsdk:"enabled"`
	OTPExpiresIn    types.Int64 `tfsdk:"otp_expires_in"`
	AllowedAttempts types.Int64 `tfsdk:"allowed_attempts"`
}

// Defaults of the phone number plugin in the API's description, sent when
// the branch reports none (PUT replaces the whole object).
const (
	defaultOTPExpiresIn    = 300
	defaultAllowedAttempts = 3
)

var phoneNumberPluginKind = settingsKind[apiclient.PhoneNumberPlugin, authPhoneNumberPluginModel]{
	typeName: "neon_auth_phone_number_plugin",
	title:    "Auth Phone Number Plugin",
	description: "Sign-in with one-time codes sent to phone numbers (delivered through the `send.otp` webhook event), on a " +
		"branch's Neon Auth: `GET/PUT …/auth/plugins/phone_number`; every write sends every field.",
	attributes: map[string]schema.Attribute{
		"enabled":          settingBool("Whether users can sign in with their phone number."),
		"otp_expires_in":   settingInt("Seconds before a code expires, 60 to 600.", 60, 600),
		"allowed_attempts": settingInt("Attempts at a code before lockout, 1 to 10.", 1, 10),
	},
	get: func(ctx context.Context, d *providerData, s apiclient.Scope) (apiclient.PhoneNumberPlugin, error) {
		return deref(d.client.GetPhoneNumberPlugin(ctx, s))
	},
	set: func(ctx context.Context, d *providerData, s apiclient.Scope, v apiclient.PhoneNumberPlugin) (apiclient.PhoneNumberPlugin, error) {
		return deref(d.client.PutPhoneNumberPlugin(ctx, s, v))
	},
	toModel: func(v apiclient.PhoneNumberPlugin, m *authPhoneNumberPluginModel) {
		m.Enabled = types.BoolValue(v.Enabled)
		m.OTPExpiresIn = intOrNull(v.OTPExpiresIn)
		m.AllowedAttempts = intOrNull(v.AllowedAttempts)
	},
	overlay: func(m authPhoneNumberPluginModel, v apiclient.PhoneNumberPlugin) apiclient.PhoneNumberPlugin {
		expires, attempts := int64(defaultOTPExpiresIn), int64(defaultAllowedAttempts)
		if v.OTPExpiresIn != nil {
			expires = *v.OTPExpiresIn
		}
		if v.AllowedAttempts != nil {
			attempts = *v.AllowedAttempts
		}
		overlayBool(&v.Enabled, m.Enabled)
		overlayInt(&expires, m.OTPExpiresIn)
		overlayInt(&attempts, m.AllowedAttempts)
		v.OTPExpiresIn, v.AllowedAttempts = &expires, &attempts
		return v
	},
}
