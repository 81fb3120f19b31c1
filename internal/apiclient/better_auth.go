package apiclient

import (
	"context"
	"net/http"
)

// The Better Auth configuration of a branch's Neon Auth: sign-in methods,
// plugins and webhooks (branch-scoped endpoints only). Updates that take
// pointers send only the fields that are set.

// EmailAndPassword is the email-and-password sign-in configuration.
type EmailAndPassword struct {
	Enabled                       bool   `json:"enabled"`
	EmailVerificationMethod       string `json:"email_verification_method"`
	RequireEmailVerification      bool   `json:"require_email_verification"`
	AutoSignInAfterVerification   bool   `json:"auto_sign_in_after_verification"`
	SendVerificationEmailOnSignUp bool   `json:"send_verification_email_on_sign_up"`
	SendVerificationEmailOnSignIn bool   `json:"send_verification_email_on_sign_in"`
	DisableSignUp                 bool   `json:"disable_sign_up"`
}

// EmailAndPasswordUpdate changes the fields that are set.
type EmailAndPasswordUpdate struct {
	Enabled                       *bool   `json:"enabled,omitempty"`
	EmailVerificationMethod       *string `json:"email_verification_method,omitempty"`
	RequireEmailVerification      *bool   `json:"require_email_verification,omitempty"`
	AutoSignInAfterVerification   *bool   `json:"auto_sign_in_after_verification,omitempty"`
	SendVerificationEmailOnSignUp *bool   `json:"send_verification_email_on_sign_up,omitempty"`
	SendVerificationEmailOnSignIn *bool   `json:"send_verification_email_on_sign_in,omitempty"`
	DisableSignUp                 *bool   `json:"disable_sign_up,omitempty"`
}

// Email verification methods of email-and-password sign-in.
const (
	EmailVerificationLink = "link"
	EmailVerificationOTP  = "otp"
)

// EmailVerificationMethods are the documented email_verification_method values.
var EmailVerificationMethods = []string{EmailVerificationLink, EmailVerificationOTP}

// Roles of the user who creates an organization.
const (
	CreatorRoleAdmin = "admin"
	CreatorRoleOwner = "owner"
)

// CreatorRoles are the documented creator_role values.
var CreatorRoles = []string{CreatorRoleAdmin, CreatorRoleOwner}

// OrganizationPlugin is the organization plugin's configuration.
type OrganizationPlugin struct {
	Enabled             bool   `json:"enabled"`
	OrganizationLimit   int64  `json:"organization_limit"`
	MembershipLimit     int64  `json:"membership_limit"`
	CreatorRole         string `json:"creator_role"`
	SendInvitationEmail bool   `json:"send_invitation_email"`
}

// OrganizationPluginUpdate changes the fields that are set.
type OrganizationPluginUpdate struct {
	Enabled             *bool   `json:"enabled,omitempty"`
	OrganizationLimit   *int64  `json:"organization_limit,omitempty"`
	MembershipLimit     *int64  `json:"membership_limit,omitempty"`
	CreatorRole         *string `json:"creator_role,omitempty"`
	SendInvitationEmail *bool   `json:"send_invitation_email,omitempty"`
}

// MagicLinkPlugin is the magic link plugin's configuration.
type MagicLinkPlugin struct {
	Enabled       bool  `json:"enabled"`
	ExpiresIn     int64 `json:"expires_in"`
	DisableSignUp bool  `json:"disable_sign_up"`
}

// MagicLinkPluginUpdate changes the fields that are set.
type MagicLinkPluginUpdate struct {
	Enabled       *bool  `json:"enabled,omitempty"`
	ExpiresIn     *int64 `json:"expires_in,omitempty"`
	DisableSignUp *bool  `json:"disable_sign_up,omitempty"`
}

// PhoneNumberPlugin is the phone number plugin's configuration
// (NeonAuthPhoneNumberConfig; Neon dropped allowed_attempts in June 2026).
type PhoneNumberPlugin struct {
	Enabled      bool   `json:"enabled"`
	OTPExpiresIn *int64 `json:"otp_expires_in,omitempty"`
}

// PhoneNumberPluginUpdate is the body of PATCH …/auth/plugins/phone-number
// (NeonAuthPhoneNumberConfigUpdate): nil fields keep their stored values.
type PhoneNumberPluginUpdate struct {
	Enabled      *bool  `json:"enabled,omitempty"`
	OTPExpiresIn *int64 `json:"otp_expires_in,omitempty"`
}

// Plugins is GET …/auth/plugins (NeonAuthPluginConfigs): a branch's Better
// Auth configuration in one answer — the organization, magic link and phone
// number plugins, email and password, the email provider (password
// redacted), the OAuth providers (id and type; client_id/client_secret
// only when the API includes them) and allow_localhost. Every member is
// optional in the reference: a part the answer does not carry is nil, so
// that a caller can tell "not reported" from a value (OAuthProviders is nil
// when absent and empty, not nil, for "oauth_providers": []). The webhooks,
// the trusted domains and the integration itself are not part of it.
type Plugins struct {
	Organization     *OrganizationPlugin `json:"organization,omitempty"`
	MagicLink        *MagicLinkPlugin    `json:"magic_link,omitempty"`
	PhoneNumber      *PhoneNumberPlugin  `json:"phone_number,omitempty"`
	EmailProvider    *EmailServer        `json:"email_provider,omitempty"`
	EmailAndPassword *EmailAndPassword   `json:"email_and_password,omitempty"`
	OAuthProviders   []OAuthProvider     `json:"oauth_providers,omitempty"`
	AllowLocalhost   *bool               `json:"allow_localhost,omitempty"`
}

// Webhooks is the webhook configuration; PUT replaces all of it.
type Webhooks struct {
	Enabled        bool     `json:"enabled"`
	WebhookURL     string   `json:"webhook_url,omitempty"`
	EnabledEvents  []string `json:"enabled_events,omitempty"`
	TimeoutSeconds *int64   `json:"timeout_seconds,omitempty"`
}

// WebhookEvents are the events a webhook can be sent for.
var WebhookEvents = []string{
	"user.before_create", "user.created", "send.otp", "send.magic_link",
	"organization.invitation.created", "organization.invitation.accepted", "phone_number.verified",
}

// GetEmailAndPassword reads GET …/auth/email_and_password.
func (c *Client) GetEmailAndPassword(ctx context.Context, s Scope) (*EmailAndPassword, error) {
	var out EmailAndPassword
	return &out, c.getBranchOnly(ctx, s, "Email and password sign-in", s.auth().sub("email_and_password"), &out)
}

// UpdateEmailAndPassword sends PATCH …/auth/email_and_password.
func (c *Client) UpdateEmailAndPassword(ctx context.Context, s Scope, u EmailAndPasswordUpdate) (*EmailAndPassword, error) {
	var out EmailAndPassword
	return &out, c.setBranchOnly(ctx, s, "Email and password sign-in", http.MethodPatch, s.auth().sub("email_and_password"), u, &out)
}

// GetPlugins reads GET …/auth/plugins.
func (c *Client) GetPlugins(ctx context.Context, s Scope) (*Plugins, error) {
	var out Plugins
	return &out, c.getBranchOnly(ctx, s, "Plugins", s.auth().sub("plugins"), &out)
}

// UpdateOrganizationPlugin sends PATCH …/auth/plugins/organization.
func (c *Client) UpdateOrganizationPlugin(ctx context.Context, s Scope, u OrganizationPluginUpdate) (*OrganizationPlugin, error) {
	var out OrganizationPlugin
	return &out, c.setBranchOnly(ctx, s, "The organization plugin", http.MethodPatch, s.auth().sub("plugins").sub("organization"), u, &out)
}

// UpdateMagicLinkPlugin sends PATCH …/auth/plugins/magic-link.
func (c *Client) UpdateMagicLinkPlugin(ctx context.Context, s Scope, u MagicLinkPluginUpdate) (*MagicLinkPlugin, error) {
	var out MagicLinkPlugin
	return &out, c.setBranchOnly(ctx, s, "The magic link plugin", http.MethodPatch, s.auth().sub("plugins").sub("magic-link"), u, &out)
}

// GetPhoneNumberPlugin reads GET …/auth/plugins/phone-number (the path of
// June 2026; GET/PUT …/plugins/phone_number are gone).
func (c *Client) GetPhoneNumberPlugin(ctx context.Context, s Scope) (*PhoneNumberPlugin, error) {
	var out PhoneNumberPlugin
	return &out, c.getBranchOnly(ctx, s, "The phone number plugin", s.auth().sub("plugins").sub("phone-number"), &out)
}

// UpdatePhoneNumberPlugin sends PATCH …/auth/plugins/phone-number, which
// changes only the fields given.
func (c *Client) UpdatePhoneNumberPlugin(ctx context.Context, s Scope, u PhoneNumberPluginUpdate) (*PhoneNumberPlugin, error) {
	var out PhoneNumberPlugin
	return &out, c.setBranchOnly(ctx, s, "The phone number plugin", http.MethodPatch, s.auth().sub("plugins").sub("phone-number"), u, &out)
}

// GetWebhooks reads GET …/auth/webhooks.
func (c *Client) GetWebhooks(ctx context.Context, s Scope) (*Webhooks, error) {
	var out Webhooks
	return &out, c.getBranchOnly(ctx, s, "Webhooks", s.auth().sub("webhooks"), &out)
}

// PutWebhooks sends PUT …/auth/webhooks, which replaces the whole
// configuration.
func (c *Client) PutWebhooks(ctx context.Context, s Scope, w Webhooks) (*Webhooks, error) {
	var out Webhooks
	return &out, c.setBranchOnly(ctx, s, "Webhooks", http.MethodPut, s.auth().sub("webhooks"), w, &out)
}
