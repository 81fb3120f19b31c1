package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The neon_auth_email_and_password resource: email-and-password sign-in of a
// branch's Neon Auth.

var (
	_ resource.ResourceWithImportState = (*authEmailAndPasswordResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*authEmailAndPasswordResource)(nil)
)

// NewAuthEmailAndPasswordResource is the neon_auth_email_and_password resource.
func NewAuthEmailAndPasswordResource() resource.Resource {
	r := settingsOf(emailAndPasswordKind)
	return &r
}

type authEmailAndPasswordResource = settingsResource[apiclient.EmailAndPassword, authEmailAndPasswordModel, *authEmailAndPasswordModel]

type authEmailAndPasswordModel struct {
	settingsBase
	Enabled                       types.Bool   `tfsdk:"enabled"`
	EmailVerificationMethod       types.String `tfsdk:"email_verification_method"`
	RequireEmailVerification      types.Bool   `tfsdk:"require_email_verification"`
	AutoSignInAfterVerification   types.Bool   `tfsdk:"auto_sign_in_after_verification"`
	SendVerificationEmailOnSignUp types.Bool   `tfsdk:"send_verification_email_on_sign_up"`
	SendVerificationEmailOnSignIn types.Bool   `tfsdk:"send_verification_email_on_sign_in"`
	DisableSignUp                 types.Bool   `tfsdk:"disable_sign_up"`
}

var emailAndPasswordKind = settingsKind[apiclient.EmailAndPassword, authEmailAndPasswordModel]{
	typeName: typeAuthEmailAndPassword,
	found:    emailAndPasswordFound,
	description: "Email-and-password sign-in of a branch's Neon Auth: read with `GET …/auth/plugins` (shared with the other " +
		"settings of the branch), written with `PATCH …/auth/email_and_password`.",
	attributes: map[string]schema.Attribute{
		"enabled": settingBool("Whether users can sign in with email and password."),
		"email_verification_method": settingEnum("How emails are verified", apiclient.EmailVerificationMethods,
			map[string]string{apiclient.EmailVerificationOTP: "a one-time code"}),
		"require_email_verification":         settingBool("Whether an email must be verified before its user can sign in."),
		"auto_sign_in_after_verification":    settingBool("Whether users are signed in once they verify their email."),
		"send_verification_email_on_sign_up": settingBool("Whether a verification email is sent at sign-up."),
		"send_verification_email_on_sign_in": settingBool("Whether a verification email is sent at sign-in (while unverified)."),
		"disable_sign_up":                    settingBool("Whether new users cannot sign up."),
	},
	get: func(ctx context.Context, d *providerData, s apiclient.Scope) (apiclient.EmailAndPassword, error) {
		return d.emailAndPassword(ctx, s)
	},
	set: func(ctx context.Context, d *providerData, s apiclient.Scope, v apiclient.EmailAndPassword) (apiclient.EmailAndPassword, error) {
		return deref(d.client.UpdateEmailAndPassword(ctx, s, apiclient.EmailAndPasswordUpdate{
			Enabled: &v.Enabled, EmailVerificationMethod: &v.EmailVerificationMethod, RequireEmailVerification: &v.RequireEmailVerification,
			AutoSignInAfterVerification: &v.AutoSignInAfterVerification, SendVerificationEmailOnSignUp: &v.SendVerificationEmailOnSignUp,
			SendVerificationEmailOnSignIn: &v.SendVerificationEmailOnSignIn, DisableSignUp: &v.DisableSignUp,
		}))
	},
	toModel: func(v apiclient.EmailAndPassword, m *authEmailAndPasswordModel) {
		m.Enabled = types.BoolValue(v.Enabled)
		m.EmailVerificationMethod = types.StringValue(v.EmailVerificationMethod)
		m.RequireEmailVerification = types.BoolValue(v.RequireEmailVerification)
		m.AutoSignInAfterVerification = types.BoolValue(v.AutoSignInAfterVerification)
		m.SendVerificationEmailOnSignUp = types.BoolValue(v.SendVerificationEmailOnSignUp)
		m.SendVerificationEmailOnSignIn = types.BoolValue(v.SendVerificationEmailOnSignIn)
		m.DisableSignUp = types.BoolValue(v.DisableSignUp)
	},
	overlay: func(m authEmailAndPasswordModel, v apiclient.EmailAndPassword) apiclient.EmailAndPassword {
		overlayBool(&v.Enabled, m.Enabled)
		overlayString(&v.EmailVerificationMethod, m.EmailVerificationMethod)
		overlayBool(&v.RequireEmailVerification, m.RequireEmailVerification)
		overlayBool(&v.AutoSignInAfterVerification, m.AutoSignInAfterVerification)
		overlayBool(&v.SendVerificationEmailOnSignUp, m.SendVerificationEmailOnSignUp)
		overlayBool(&v.SendVerificationEmailOnSignIn, m.SendVerificationEmailOnSignIn)
		overlayBool(&v.DisableSignUp, m.DisableSignUp)
		return v
	},
}
