package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Shared helpers of the resources that live under a project's auth
// integration (OAuth providers, domains, email server): input validation,
// canonical domains and error details.

// canonicalOrigin checks that s is an origin — scheme http or https, a host,
// an optional port, nothing else (a lone trailing "/" is tolerated) — and
// returns it with scheme and host in lower case and without trailing slash,
// the form the API stores and lists.
func canonicalOrigin(s string) (string, error) {
	if s == "" {
		return "", errors.New("must not be empty")
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return "", errors.New("must not contain whitespace")
	}
	if strings.Contains(s, "#") {
		return "", errors.New("must not have a fragment (`#…`)")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", errors.New("is not a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "":
		return "", errors.New("has no scheme: it must start with `https://` or `http://`")
	case scheme != "http" && scheme != "https":
		return "", fmt.Errorf("has the scheme %q: only `https://` and `http://` are allowed", u.Scheme)
	case u.Opaque != "":
		return "", errors.New("is not an origin: write `" + scheme + "://` before the host")
	case u.User != nil:
		return "", errors.New("must not contain user information (`user@`)")
	case u.RawQuery != "" || u.ForceQuery:
		return "", errors.New("must not have a query (`?…`)")
	case u.Path != "" && u.Path != "/":
		return "", fmt.Errorf("must not have a path (found %q)", u.Path)
	case u.Hostname() == "":
		return "", errors.New("has no host")
	}
	host := strings.ToLower(u.Host)
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", errors.New("has a port outside 1–65535")
		}
	} else if strings.HasSuffix(host, ":") {
		return "", errors.New("has an empty port")
	}
	if h := u.Hostname(); strings.Contains(h, ":") && net.ParseIP(h) == nil {
		return "", errors.New("has an invalid host")
	}
	return scheme + "://" + host, nil
}

// sameOrigin reports whether two domains are the same origin once
// canonicalised. Values that are not origins compare as written.
func sameOrigin(a, b string) bool {
	ca, errA := canonicalOrigin(a)
	cb, errB := canonicalOrigin(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return ca == cb
}

// originValidator refuses at plan time a domain that is not an origin.
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
	if _, err := canonicalOrigin(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid domain",
			fmt.Sprintf("`%s` must be an origin: `https://` or `http://`, a host and an optional port, nothing else "+
				"(for example `https://app.example.com` or `http://localhost:3000`). The value %q %s.",
				req.Path, req.ConfigValue.ValueString(), err))
	}
}

// canonicalDomainPlanModifier keeps the prior spelling of a domain when the
// configuration names the same origin in another spelling (case, trailing
// slash), so that neither the API's canonical form nor an import id written
// differently ever shows as a change. Terraform accepts a planned value equal
// to the prior state in place of the configured one for exactly this purpose.
type canonicalDomainPlanModifier struct{}

var _ planmodifier.String = canonicalDomainPlanModifier{}

func (canonicalDomainPlanModifier) Description(context.Context) string {
	return "Domains that differ only in the case of scheme or host, or in a trailing slash, are the same domain."
}

func (m canonicalDomainPlanModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (canonicalDomainPlanModifier) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if sameOrigin(req.ConfigValue.ValueString(), req.StateValue.ValueString()) {
		resp.PlanValue = req.StateValue
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

// emailAddressValidator refuses at plan time a value that is not an address.
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

// isSet reports whether a configuration value is given (known or not).
func isSet(v attr.Value) bool { return !v.IsNull() }

// isKnownSet reports whether a configuration value is given and known.
func isKnownSet(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }

// writeOnlyString reads a write-only string attribute from the configuration
// (write-only values are never in the plan or the state).
func writeOnlyString(ctx context.Context, cfg interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}, p path.Path, diags *diag.Diagnostics) string {
	var v *string
	diags.Append(cfg.GetAttribute(ctx, p, &v)...)
	if v == nil {
		return ""
	}
	return *v
}

// resendIdempotent is the read-back of confirmedWrite for a write that is
// harmless to send again: a PATCH that sets a whole value (credentials, the
// email configuration), whose secret part cannot be read back, or a request
// whose lost answer no one saw (minting SDK keys, a transfer URL).
func resendIdempotent(context.Context) (bool, error) { return false, nil }
