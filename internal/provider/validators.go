package provider

import (
	"context"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Validators of configuration values that the framework's validators
// package does not offer. Each refuses at plan time, naming the attribute
// and the fix, what the API would refuse at apply.

// stringCheck is a string validator made of a check: problem returns what is
// wrong with a known, non-null value and how to fix it, or "" when nothing
// is.
type stringCheck struct {
	description string
	summary     string
	problem     func(attr, value string) string
}

var _ validator.String = stringCheck{}

func (v stringCheck) Description(context.Context) string { return v.description }

func (v stringCheck) MarkdownDescription(context.Context) string { return v.description }

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if p := v.problem(req.Path.String(), req.ConfigValue.ValueString()); p != "" {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, p)
	}
}

// baseURLValidator refuses a base URL the client would refuse.
func baseURLValidator() validator.String {
	return stringCheck{
		description: "must be an https:// URL, or http:// on a loopback host",
		summary:     "Invalid Neon API base URL",
		problem: func(_, v string) string {
			if _, err := apiclient.ParseBaseURL(v); err != nil {
				return err.Error()
			}
			return ""
		},
	}
}

// durationValidator refuses a value that is not a Go duration within bounds.
func durationValidator(least, most time.Duration) validator.String {
	return stringCheck{
		description: fmt.Sprintf("must be a duration from %s to %s, such as \"90s\" or \"10m\"", least, most),
		summary:     "Invalid duration",
		problem: func(attr, v string) string {
			if d, err := time.ParseDuration(v); err == nil && d >= least && d <= most {
				return ""
			}
			return fmt.Sprintf("`%s` must be a duration from %s to %s written with a unit, such as \"90s\" or \"10m\"; got %q.",
				attr, least, most, v)
		},
	}
}

// httpsURLValidator refuses a webhook URL that is not https:// with a host.
func httpsURLValidator() validator.String {
	return stringCheck{
		description: "must be an https:// URL with a host, such as https://hooks.example.com/neon-auth",
		summary:     "Invalid webhook URL",
		problem: func(attr, v string) string {
			if u, err := url.Parse(v); err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil {
				return ""
			}
			return fmt.Sprintf("`%s` must be an `https://` URL with a host and no user information, such as "+
				"`https://hooks.example.com/neon-auth`: auth events carry user data and are only sent encrypted. Got %q.", attr, v)
		},
	}
}

// jwksURLValidator refuses a JWKS URL that is not https:// with a host: the
// API fetches the key set over HTTPS.
func jwksURLValidator() validator.String {
	return stringCheck{
		description: "must be an https:// URL with a host, such as https://example.clerk.accounts.dev/.well-known/jwks.json",
		summary:     "Invalid JWKS URL",
		problem: func(attr, v string) string {
			if u, err := url.Parse(v); err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil {
				return ""
			}
			return fmt.Sprintf("`%s` must be the `https://` URL of a JSON Web Key Set, with a host and no user information, such "+
				"as `https://example.clerk.accounts.dev/.well-known/jwks.json` (Neon fetches it over HTTPS). Got %q.", attr, v)
		},
	}
}

// originValidator refuses a value that is not a trusted domain (see
// apiclient.CanonicalOrigin).
func originValidator() validator.String {
	return stringCheck{
		description: "must be a trusted domain: an origin (scheme http or https, a host whose labels may be wildcards, an " +
			"optional port; no path, query, fragment or user information), such as https://app.example.com or " +
			"https://*.preview.example.com, or a native app's own scheme such as myapp://callback",
		summary: "Invalid domain",
		problem: func(attr, v string) string {
			if _, err := apiclient.CanonicalOrigin(v); err != nil {
				return fmt.Sprintf("`%s` must be an origin — `https://` or `http://`, a host (wildcard labels allowed) and an "+
					"optional port, nothing else, such as `https://app.example.com`, `https://*.preview.example.com` or "+
					"`http://localhost:3000` — or a native app's own scheme such as `myapp://callback`. The value %q %s.", attr, v, err)
			}
			return ""
		},
	}
}

// emailAddressValidator refuses a value that is not a bare address.
func emailAddressValidator() validator.String {
	return stringCheck{
		description: "must be an email address such as noreply@example.com",
		summary:     "Invalid email address",
		problem: func(attr, v string) string {
			if validEmailAddress(v) {
				return ""
			}
			return fmt.Sprintf("`%s` must be a bare email address such as `noreply@example.com` (no display name, no angle brackets); got %q.",
				attr, v)
		},
	}
}

// validEmailAddress accepts a bare address such as noreply@example.com.
func validEmailAddress(s string) bool {
	if len(s) > 256 || strings.ContainsAny(s, " \t\r\n<>") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	return at > 0 && strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
}
