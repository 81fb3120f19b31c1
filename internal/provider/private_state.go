package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The provider's private state: its keys and how values are stored there.

// Private state keys. Values are JSON, as the framework requires.
const (
	// privateAuthProjectID records the auth_provider_project_id of the
	// integration a thing was created under, so that a later Read notices an
	// integration that was deleted and created again (which takes its users
	// and pending transfer with it).
	privateAuthProjectID = "auth_provider_project_id"
	// privateImported marks a user that was imported: its email and name
	// are unknown (null) until the configuration supplies them.
	privateImported = "imported"
	// privatePlatformOwner records owned_by as it was when an ownership
	// transfer was requested: the platform's own value.
	privatePlatformOwner = "platform_owned_by"
	// privateFound records the values a settings resource found at
	// creation, which destroy puts back (a foundRecord).
	privateFound = "found"
	// privateAdopted records an object a create took over instead of
	// creating, because its branch inherited it from its parent (an
	// adoptedRecord): destroy puts it back as found instead of deleting it.
	privateAdopted = "adopted"
)

// privateGetter and privateSetter are the methods of the framework's private
// state data, whose type is internal to the framework.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// getPrivateString returns a string stored with setPrivateString; "" when absent.
func getPrivateString(ctx context.Context, p privateGetter, key string, diags *diag.Diagnostics) string {
	raw, d := p.GetKey(ctx, key)
	diags.Append(d...)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		diags.AddError("Unreadable private state",
			fmt.Sprintf("The provider's private state key %q holds %q, not a JSON string: %v. This is a bug in the provider; please report it.", key, raw, err))
		return ""
	}
	return s
}

// setPrivateString stores a string as JSON; "" removes the key.
func setPrivateString(ctx context.Context, p privateSetter, key, value string, diags *diag.Diagnostics) {
	var raw []byte
	if value != "" {
		var err error
		if raw, err = json.Marshal(value); err != nil {
			diags.AddError("Unwritable private state", fmt.Sprintf("Encoding the private state key %q: %v. This is a bug in the provider; please report it.", key, err))
			return
		}
	}
	diags.Append(p.SetKey(ctx, key, raw)...)
}

// foundVersion is the version of the record privateFound holds. Version 0,
// written before the record had a version, is the bare values object (the
// API value's JSON); version 1 wraps the same values as
// {"version":1,"values":{…}}.
const foundVersion = 1

// foundRecord is what privateFound holds: the values a settings resource
// found at creation, in a shape of the provider's own (S, a struct with its
// own JSON tags that mirrors the API value), so that a change of the API
// client's types never changes how a stored value reads back.
type foundRecord[S any] struct {
	Version int `json:"version"`
	Values  S   `json:"values"`
}

// encodeFound is the privateFound value of values.
func encodeFound[S any](values S) ([]byte, error) {
	return json.Marshal(foundRecord[S]{Version: foundVersion, Values: values})
}

// decodeFound reads a privateFound value of any version.
func decodeFound[S any](raw []byte) (S, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		var zero S
		return zero, err
	}
	switch {
	case probe.Version == nil: // version 0: the bare values
		var v S
		return v, json.Unmarshal(raw, &v)
	case *probe.Version == foundVersion:
		var r foundRecord[S]
		return r.Values, json.Unmarshal(raw, &r)
	default:
		var zero S
		return zero, fmt.Errorf("version %d of the recorded values is newer than this provider reads (%d); upgrade the provider", *probe.Version, foundVersion)
	}
}

// foundCodec is how a settings kind records the values it found at
// creation: through S, its own mirror of the API value A.
type foundCodec[A any] struct {
	encode func(A) ([]byte, error)
	decode func([]byte) (A, error)
}

// foundAs is the foundCodec that stores A as S.
func foundAs[S, A any](toS func(A) S, toA func(S) A) foundCodec[A] {
	return foundCodec[A]{
		encode: func(v A) ([]byte, error) { return encodeFound(toS(v)) },
		decode: func(raw []byte) (A, error) {
			s, err := decodeFound[S](raw)
			return toA(s), err
		},
	}
}

// The recorded shapes of the settings types. Their JSON names are those
// version 0 wrote (the API's field names then); a Go conversion to
// and from the API type keeps them in step field by field, and a field the
// API type gains fails to compile here until its record is decided.

type foundEmailAndPassword struct {
	Enabled                       bool   `json:"enabled"`
	EmailVerificationMethod       string `json:"email_verification_method"`
	RequireEmailVerification      bool   `json:"require_email_verification"`
	AutoSignInAfterVerification   bool   `json:"auto_sign_in_after_verification"`
	SendVerificationEmailOnSignUp bool   `json:"send_verification_email_on_sign_up"`
	SendVerificationEmailOnSignIn bool   `json:"send_verification_email_on_sign_in"`
	DisableSignUp                 bool   `json:"disable_sign_up"`
}

type foundOrganizationPlugin struct {
	Enabled             bool   `json:"enabled"`
	OrganizationLimit   int64  `json:"organization_limit"`
	MembershipLimit     int64  `json:"membership_limit"`
	CreatorRole         string `json:"creator_role"`
	SendInvitationEmail bool   `json:"send_invitation_email"`
}

type foundMagicLinkPlugin struct {
	Enabled       bool  `json:"enabled"`
	ExpiresIn     int64 `json:"expires_in"`
	DisableSignUp bool  `json:"disable_sign_up"`
}

type foundPhoneNumberPlugin struct {
	Enabled      bool   `json:"enabled"`
	OTPExpiresIn *int64 `json:"otp_expires_in,omitempty"`
}

type foundWebhooks struct {
	Enabled        bool     `json:"enabled"`
	WebhookURL     string   `json:"webhook_url,omitempty"`
	EnabledEvents  []string `json:"enabled_events,omitempty"`
	TimeoutSeconds *int64   `json:"timeout_seconds,omitempty"`
}

var (
	emailAndPasswordFound = foundAs(
		func(v apiclient.EmailAndPassword) foundEmailAndPassword { return foundEmailAndPassword(v) },
		func(s foundEmailAndPassword) apiclient.EmailAndPassword { return apiclient.EmailAndPassword(s) })
	organizationPluginFound = foundAs(
		func(v apiclient.OrganizationPlugin) foundOrganizationPlugin { return foundOrganizationPlugin(v) },
		func(s foundOrganizationPlugin) apiclient.OrganizationPlugin { return apiclient.OrganizationPlugin(s) })
	magicLinkPluginFound = foundAs(
		func(v apiclient.MagicLinkPlugin) foundMagicLinkPlugin { return foundMagicLinkPlugin(v) },
		func(s foundMagicLinkPlugin) apiclient.MagicLinkPlugin { return apiclient.MagicLinkPlugin(s) })
	phoneNumberPluginFound = foundAs(
		func(v apiclient.PhoneNumberPlugin) foundPhoneNumberPlugin { return foundPhoneNumberPlugin(v) },
		func(s foundPhoneNumberPlugin) apiclient.PhoneNumberPlugin { return apiclient.PhoneNumberPlugin(s) })
	webhooksFound = foundAs(
		func(v apiclient.Webhooks) foundWebhooks { return foundWebhooks(v) },
		func(s foundWebhooks) apiclient.Webhooks { return apiclient.Webhooks(s) })
)
