package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The neon_auth_phone_number_plugin resource: phone-number sign-in of a
// branch's Neon Auth.

var (
	_ resource.ResourceWithImportState  = (*authPhoneNumberPluginResource)(nil)
	_ resource.ResourceWithModifyPlan   = (*authPhoneNumberPluginResource)(nil)
	_ resource.ResourceWithUpgradeState = (*authPhoneNumberPluginResource)(nil)
)

func init() {
	registerSettings(phoneNumberPluginKind, func() resource.Resource { return newAuthPhoneNumberPluginResource() })
}

func newAuthPhoneNumberPluginResource() *authPhoneNumberPluginResource {
	return &authPhoneNumberPluginResource{settingsResource: settingsOf(phoneNumberPluginKind)}
}

// authPhoneNumberPluginResource is a settings resource with a schema history:
// version 1 (2026) dropped allowed_attempts, which Neon removed.
type authPhoneNumberPluginResource struct {
	settingsResource[neonapi.NeonAuthPhoneNumberConfig, authPhoneNumberPluginModel, *authPhoneNumberPluginModel]
}

type authPhoneNumberPluginModel struct {
	settingsBase
	Enabled      types.Bool  `tfsdk:"enabled"`
	OTPExpiresIn types.Int64 `tfsdk:"otp_expires_in"`
	// AllowedAttempts is always null: it exists only to explain, at plan,
	// that Neon removed it.
	AllowedAttempts types.Int64 `tfsdk:"allowed_attempts"`
}

// phoneNumberSchemaVersion 1 dropped allowed_attempts.
const phoneNumberSchemaVersion = 1

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

func (r *authPhoneNumberPluginResource) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.settingsResource.Schema(ctx, req, resp)
	resp.Schema.Version = phoneNumberSchemaVersion
}

// UpgradeState drops allowed_attempts from a state of version 0: nothing
// else changes, so the upgraded state plans no change and sends nothing.
func (r *authPhoneNumberPluginResource) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	var current resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &current)
	prior := current.Schema
	prior.Version = 0
	attrs := make(map[string]schema.Attribute, len(prior.Attributes))
	for k, v := range prior.Attributes {
		attrs[k] = v
	}
	// Version 0: allowed_attempts, 1 to 10, optional and computed.
	attrs["allowed_attempts"] = settingInt("Attempts at a code before lockout, 1 to 10.", 1, 10)
	prior.Attributes = attrs
	return map[int64]resource.StateUpgrader{
		0: {
			PriorSchema: &prior,
			StateUpgrader: func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
				var m authPhoneNumberPluginModel
				resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
				if resp.Diagnostics.HasError() {
					return
				}
				m.AllowedAttempts = types.Int64Null()
				resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
			},
		},
	}
}

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
