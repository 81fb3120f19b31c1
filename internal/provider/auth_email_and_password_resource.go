package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The neon_auth_email_and_password resource: email-and-password sign-in of a
// branch's Neon Auth.

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

var emailAndPasswordKind = settingsKind[neonapi.NeonAuthEmailAndPasswordConfig, authEmailAndPasswordModel]{
	typeName: "neon_auth_email_and_password",
	setting:  betterauth.EmailAndPassword,
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
}
