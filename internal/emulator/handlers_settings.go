package emulator

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Settings of a branch's Neon Auth, under
// /projects/{project_id}/branches/{branch_id}/auth/ (branch family only).

type allowLocalhostBody struct {
	AllowLocalhost bool `json:"allow_localhost"`
}

// getAllowLocalhost serves GET .../auth/allow_localhost.
func (e *Emulator) getAllowLocalhost(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		return allowLocalhostBody{a.AllowLocalhost}, nil
	})
}

// updateAllowLocalhost serves PATCH .../auth/allow_localhost
// {"allow_localhost": bool} (required).
func (e *Emulator) updateAllowLocalhost(c *call) error {
	o, err := readBody(c, false, "allow_localhost")
	if err != nil {
		return err
	}
	allow, present, err := o.boolean("allow_localhost")
	if err != nil {
		return err
	}
	if !present {
		return invalid("allow_localhost", "is required")
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		a.AllowLocalhost = allow
		return allowLocalhostBody{a.AllowLocalhost}, nil
	})
}

// updateConfig serves PATCH .../auth/config {"name"}: 1 to 256 characters.
func (e *Emulator) updateConfig(c *call) error {
	o, err := readBody(c, false, "name")
	if err != nil {
		return err
	}
	name, err := o.requiredStr("name")
	if err != nil {
		return err
	}
	if n := runeCount(name); n > 256 {
		return invalid("name", "must be 1 to 256 characters, got %d", n)
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		a.Name = name
		return map[string]string{"name": a.Name}, nil
	})
}

// A setting is one part of a branch's Settings, served by GET and a partial
// PATCH or a replacing PUT. Bodies are validated before the branch is looked
// up (400 before 404).
type setting[T any] func(a *BranchAuth) *T

// getSetting answers the setting as stored.
func getSetting[T any](pick setting[T]) handlerFunc {
	return func(e *Emulator, c *call) error {
		return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
			return *pick(a), nil
		})
	}
}

// patchSetting updates the fields given and answers the whole setting.
// parse may not fail on one value and not on another for the same body.
func patchSetting[T any](pick setting[T], parse func(o object, dst *T) error, fields ...string) handlerFunc {
	return func(e *Emulator, c *call) error {
		o, err := readBody(c, false, fields...)
		if err != nil {
			return err
		}
		var probe T
		if err := parse(o, &probe); err != nil {
			return err
		}
		return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
			dst := pick(a)
			if err := parse(o, dst); err != nil {
				return nil, err
			}
			return *dst, nil
		})
	}
}

// putSetting replaces the setting: omitted fields take their defaults.
func putSetting[T any](pick setting[T], defaults func() T, parse func(o object, dst *T) error, fields ...string) handlerFunc {
	return func(e *Emulator, c *call) error {
		o, err := readBody(c, false, fields...)
		if err != nil {
			return err
		}
		v := defaults()
		if err := parse(o, &v); err != nil {
			return err
		}
		return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
			*pick(a) = v
			return v, nil
		})
	}
}

func emailAndPasswordOf(a *BranchAuth) *EmailAndPassword { return &a.EmailAndPassword }
func organizationOf(a *BranchAuth) *OrganizationPlugin   { return &a.Organization }
func magicLinkOf(a *BranchAuth) *MagicLinkPlugin         { return &a.MagicLink }
func phoneNumberOf(a *BranchAuth) *PhoneNumberPlugin     { return &a.PhoneNumber }
func webhooksOf(a *BranchAuth) *Webhooks                 { return &a.Webhooks }

// firstError returns the first non-nil error: parsers set every valid field
// given and report the first bad one in field order.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

var emailVerificationMethods = []string{"link", "otp"}

// PATCH .../auth/email_and_password: partial.
func parseEmailAndPassword(o object, d *EmailAndPassword) error {
	return firstError(
		o.optBool("enabled", &d.Enabled),
		o.optEnum("email_verification_method", emailVerificationMethods, &d.EmailVerificationMethod),
		o.optBool("require_email_verification", &d.RequireEmailVerification),
		o.optBool("auto_sign_in_after_verification", &d.AutoSignInAfterVerification),
		o.optBool("send_verification_email_on_sign_up", &d.SendVerificationEmailOnSignUp),
		o.optBool("send_verification_email_on_sign_in", &d.SendVerificationEmailOnSignIn),
		o.optBool("disable_sign_up", &d.DisableSignUp),
	)
}

var emailAndPasswordFields = []string{"enabled", "email_verification_method", "require_email_verification",
	"auto_sign_in_after_verification", "send_verification_email_on_sign_up", "send_verification_email_on_sign_in", "disable_sign_up"}

var creatorRoles = []string{"admin", "owner"}

// PATCH .../auth/plugins/organization: partial.
func parseOrganization(o object, d *OrganizationPlugin) error {
	return firstError(
		o.optBool("enabled", &d.Enabled),
		o.optInt("organization_limit", 1, maxInt32, &d.OrganizationLimit),
		o.optInt("membership_limit", 1, maxInt32, &d.MembershipLimit),
		o.optEnum("creator_role", creatorRoles, &d.CreatorRole),
		o.optBool("send_invitation_email", &d.SendInvitationEmail),
	)
}

// PATCH .../auth/plugins/magic-link: partial.
func parseMagicLink(o object, d *MagicLinkPlugin) error {
	return firstError(
		o.optBool("enabled", &d.Enabled),
		o.optInt("expires_in", 5, 1440, &d.ExpiresIn),
		o.optBool("disable_sign_up", &d.DisableSignUp),
	)
}

// requireField is the 400 of a required field that is absent.
func requireField(o object, name string) error {
	if !o.has(name) {
		return invalid(name, "is required")
	}
	return nil
}

// PATCH .../auth/plugins/phone-number (NeonAuthPhoneNumberConfigUpdate):
// partial; omitted fields keep their stored values.
func parsePhoneNumber(o object, d *PhoneNumberPlugin) error {
	return firstError(
		o.optBool("enabled", &d.Enabled),
		o.optInt("otp_expires_in", 60, 600, &d.OTPExpiresIn),
	)
}

// webhookEvents are the event names of NeonAuthWebhookConfig.
var webhookEvents = []string{
	"user.before_create", "user.created", "send.otp", "send.magic_link",
	"organization.invitation.created", "organization.invitation.accepted", "phone_number.verified",
}

// PUT .../auth/webhooks: enabled is required; enabled webhooks need a URL,
// which must be https; events are distinct names of webhookEvents.
func parseWebhooks(o object, d *Webhooks) error {
	err := firstError(
		requireField(o, "enabled"),
		o.optBool("enabled", &d.Enabled),
		o.optInt("timeout_seconds", 1, 10, &d.TimeoutSeconds),
	)
	if err != nil {
		return err
	}
	if d.WebhookURL, _, err = o.nonEmptyStr("webhook_url"); err != nil {
		return err
	}
	if d.WebhookURL != "" {
		if u, perr := url.Parse(d.WebhookURL); perr != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
			return invalid("webhook_url", "must be an https URL such as https://example.com/hooks/neon-auth")
		}
	} else if d.Enabled {
		return invalid("webhook_url", "is required when enabled is true")
	}
	events, present, err := o.strings("enabled_events")
	if err != nil {
		return err
	}
	for i, ev := range events {
		if !slices.Contains(webhookEvents, ev) {
			return invalid(fmt.Sprintf("enabled_events[%d]", i), "must be one of %s", strings.Join(webhookEvents, ", "))
		}
	}
	if present {
		d.EnabledEvents = events
	}
	return nil
}

// pluginConfigs is NeonAuthPluginConfigs, the body of GET .../auth/plugins:
// every plugin, with the email provider (password redacted; absent when
// none is configured), email and password, the OAuth providers (as the
// branch-scoped list shows them: the same NeonAuthOauthProvider, whose
// answers can carry the client credentials) and allow_localhost. Each part
// is exactly what the part's own read answers.
type pluginConfigs struct {
	Organization     OrganizationPlugin  `json:"organization"`
	MagicLink        MagicLinkPlugin     `json:"magic_link"`
	PhoneNumber      PhoneNumberPlugin   `json:"phone_number"`
	EmailProvider    any                 `json:"email_provider,omitempty"`
	EmailAndPassword EmailAndPassword    `json:"email_and_password"`
	OAuthProviders   []oauthProviderView `json:"oauth_providers"`
	AllowLocalhost   bool                `json:"allow_localhost"`
}

// getPlugins serves GET .../auth/plugins.
func (e *Emulator) getPlugins(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		p := pluginConfigs{
			Organization:     a.Organization,
			MagicLink:        a.MagicLink,
			PhoneNumber:      a.PhoneNumber,
			EmailAndPassword: a.EmailAndPassword,
			OAuthProviders:   oauthViews(a),
			AllowLocalhost:   a.AllowLocalhost,
		}
		if a.EmailProvider != nil {
			p.EmailProvider = redacted(*a.EmailProvider)
		}
		return p, nil
	})
}
