package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The neon_auth_phone_number_plugin resource: phone-number sign-in of a
// branch's Neon Auth.

type authPhoneNumberPluginModel struct {
	settingsBase
	Enabled      types.Bool  `tfsdk:"enabled"`
	OTPExpiresIn types.Int64 `tfsdk:"otp_expires_in"`
	// AllowedAttempts is always null: it exists only to explain, at plan,
	// that Neon removed it.
	AllowedAttempts types.Int64 `tfsdk:"allowed_attempts"`
}

var phoneNumberPluginKind = settingsKind[neonapi.NeonAuthPhoneNumberConfig, authPhoneNumberPluginModel]{
	typeName: "neon_auth_phone_number_plugin",
	setting:  betterauth.PhoneNumber,
	description: "Sign-in with one-time codes sent to phone numbers (delivered through the `send.otp` webhook event), on a " +
		"branch's Neon Auth: read with `GET …/auth/plugins` (shared with the other settings of the branch), written with " +
		"`PATCH …/auth/plugins/phone-number`, which sends only the settings configured.",
	attributes: map[string]schema.Attribute{
		"enabled":          settingBool("Whether users can sign in with their phone number."),
		"otp_expires_in":   settingInt("Seconds before a code expires, 60 to 600.", 60, 600),
		"allowed_attempts": removedInt64(removedAllowedAttempts),
	},
}

// removedAllowedAttempts is what a configuration that still sets
// allowed_attempts is told.
const removedAllowedAttempts = "Neon removed `allowed_attempts` from the phone number plugin in 2026 (the API no longer has it, and " +
	"the number of attempts is no longer configurable). Delete the `allowed_attempts` line from this resource."

// removedInt64 is an attribute the API no longer has: setting it is an error
// that says why and what to do; it is never stored.
func removedInt64(why string) schema.Int64Attribute {
	return schema.Int64Attribute{
		MarkdownDescription: "Removed. " + why,
		DeprecationMessage:  why,
		Optional:            true,
		Validators:          []validator.Int64{removedValidator{why: why}},
	}
}

// removedValidator refuses any value: the attribute was removed.
type removedValidator struct{ why string }

func (v removedValidator) Description(context.Context) string { return "removed: " + v.why }

func (v removedValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v removedValidator) ValidateInt64(_ context.Context, req validator.Int64Request, resp *validator.Int64Response) {
	if req.ConfigValue.IsNull() {
		return
	}
	resp.Diagnostics.AddAttributeError(req.Path, fmt.Sprintf("Argument %s was removed", req.Path), v.why)
}
