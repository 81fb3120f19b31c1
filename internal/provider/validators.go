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

// baseURLValidator refuses a base URL the client would refuse.
type baseURLValidator struct{}

var _ validator.String = baseURLValidator{}

func (baseURLValidator) Description(context.Context) string {
	return "must be an https:// URL, or http:// on a loopback host"
}

func (v baseURLValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (baseURLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := apiclient.ParseBaseURL(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Neon API base URL", err.Error())
	}
}

// durationValidator refuses a value that is not a Go duration within bounds.
type durationValidator struct {
	min, max time.Duration
}

var _ validator.String = durationValidator{}

func (v durationValidator) Description(context.Context) string {
	return fmt.Sprintf("must be a duration from %s to %s, such as \"90s\" or \"10m\"", v.min, v.max)
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil || d < v.min || d > v.max {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("`%s` must be a duration from %s to %s written with a unit, such as \"90s\" or \"10m\"; got %q.",
				req.Path, v.min, v.max, req.ConfigValue.ValueString()))
	}
}

// httpsURLValidator refuses a URL that is not https:// with a host.
type httpsURLValidator struct{}

var _ validator.String = httpsURLValidator{}

func (httpsURLValidator) Description(context.Context) string {
	return "must be an https:// URL with a host, such as https://hooks.example.com/neon-auth"
}

func (v httpsURLValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (httpsURLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	raw := req.ConfigValue.ValueString()
	if u, err := url.Parse(raw); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid webhook URL",
			fmt.Sprintf("`%s` must be an `https://` URL with a host and no user information, such as "+
				"`https://hooks.example.com/neon-auth`: auth events carry user data and are only sent encrypted. Got %q.", req.Path, raw))
	}
}

// originValidator refuses a domain that is not an origin.
type originValidator struct{}

var _ validator.String = originValidator{}

func (originValidator) Description(context.Context) string {
	return "must be an origin: scheme http or https, a host and an optional port, without path, query, fragment or user information, such as https://app.example.com"
}

func (v originValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (originValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := apiclient.CanonicalOrigin(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid domain",
			fmt.Sprintf("`%s` must be an origin: `https://` or `http://`, a host and an optional port, nothing else "+
				"(for example `https://app.example.com` or `http://localhost:3000`). The value %q %s.",
				req.Path, req.ConfigValue.ValueString(), err))
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

// emailAddressValidator refuses a value that is not an address.
type emailAddressValidator struct{}

var _ validator.String = emailAddressValidator{}

func (emailAddressValidator) Description(context.Context) string {
	return "must be an email address such as noreply@example.com"
}

func (v emailAddressValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (emailAddressValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if !validEmailAddress(req.ConfigValue.ValueString()) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid email address",
			fmt.Sprintf("`%s` must be a bare email address such as `noreply@example.com` (no display name, no angle brackets); got %q.",
				req.Path, req.ConfigValue.ValueString()))
	}
}
