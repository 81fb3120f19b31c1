package provider

import (
	"bytes"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// foundCase is a value a settings resource found, and the exact bytes an
// earlier release stored it as in private state, before the record had a
// version (json.Marshal of the API value).
type foundCase struct {
	name   string
	stored string
	want   any
	decode func([]byte) (any, error)
	encode func() ([]byte, error)
}

// foundCaseOf is a record of a setting whose API value is A.
func foundCaseOf[A any](name, stored string, want A) foundCase {
	return foundCase{
		name: name, stored: stored, want: want,
		decode: func(raw []byte) (any, error) { return decodeFound[A](raw) },
		encode: func() ([]byte, error) { return encodeFound(want) },
	}
}

// settingsFound are, by settings type, values an earlier release stored as
// what to restore on destroy, in the exact bytes it wrote.
var settingsFound = map[string][]foundCase{
	"neon_auth_email_and_password": {
		foundCaseOf("", `{"enabled":true,"email_verification_method":"otp","require_email_verification":true,"auto_sign_in_after_verification":true,"send_verification_email_on_sign_up":false,"send_verification_email_on_sign_in":true,"disable_sign_up":false}`,
			neonapi.NeonAuthEmailAndPasswordConfig{
				Enabled: true, EmailVerificationMethod: "otp", RequireEmailVerification: true, AutoSignInAfterVerification: true,
				SendVerificationEmailOnSignIn: true,
			}),
	},
	"neon_auth_organization_plugin": {
		foundCaseOf("", `{"enabled":true,"organization_limit":5,"membership_limit":100,"creator_role":"owner","send_invitation_email":true}`,
			neonapi.NeonAuthOrganizationConfig{Enabled: true, OrganizationLimit: 5, MembershipLimit: 100, CreatorRole: "owner", SendInvitationEmail: true}),
	},
	"neon_auth_magic_link_plugin": {
		foundCaseOf("", `{"enabled":true,"expires_in":300,"disable_sign_up":true}`,
			neonapi.NeonAuthMagicLinkConfig{Enabled: true, ExpiresIn: 300, DisableSignUp: true}),
	},
	"neon_auth_phone_number_plugin": {
		foundCaseOf("", `{"enabled":true,"otp_expires_in":300}`, neonapi.NeonAuthPhoneNumberConfig{Enabled: true, OTPExpiresIn: apiclient.Ptr(300)}),
		foundCaseOf("off", `{"enabled":false}`, neonapi.NeonAuthPhoneNumberConfig{}),
	},
	"neon_auth_webhooks": {
		foundCaseOf("", `{"enabled":true,"webhook_url":"https://hooks.example.com/neon","enabled_events":["user.created","send.otp"],"timeout_seconds":7}`,
			neonapi.NeonAuthWebhookConfig{
				Enabled: true, WebhookURL: apiclient.Ptr("https://hooks.example.com/neon"),
				EnabledEvents: &[]neonapi.NeonAuthWebhookConfigEnabledEvents{"user.created", "send.otp"}, TimeoutSeconds: apiclient.Ptr(7),
			}),
		foundCaseOf("off", `{"enabled":false}`, neonapi.NeonAuthWebhookConfig{}),
	},
}

// A state written by an earlier release still destroys right: its values
// decode to what was found, both as written before the record had a version
// (the bare values) and as version 1 with the field order of the provider's
// own mirror types then, whatever order the reference's types have now.
func TestUnitPrivateFound_previousReleaseDecodes(t *testing.T) {
	for _, c := range acctest.SettingsCases {
		if len(settingsFound[c.TypeName]) == 0 {
			t.Errorf("settingsFound has no value an earlier release stored for %s", c.TypeName)
		}
		for _, tc := range settingsFound[c.TypeName] {
			for version, stored := range map[string]string{"0": tc.stored, "1": `{"version":1,"values":` + tc.stored + `}`} {
				t.Run(path.Join(c.TypeName, tc.name, "version "+version), func(t *testing.T) {
					got, err := tc.decode([]byte(stored))
					if err != nil {
						t.Fatalf("decoding %s: %v", stored, err)
					}
					if !reflect.DeepEqual(got, tc.want) {
						t.Errorf("decoded %+v, want %+v", got, tc.want)
					}
				})
			}
		}
	}
}

// What is written now is version 1 with the API value's own fields, and
// reads back.
func TestUnitPrivateFound_writesVersionOne(t *testing.T) {
	for _, c := range acctest.SettingsCases {
		for _, tc := range settingsFound[c.TypeName] {
			t.Run(path.Join(c.TypeName, tc.name), func(t *testing.T) {
				raw, err := tc.encode()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.HasPrefix(raw, []byte(`{"version":1,"values":{`)) {
					t.Errorf("stored %s, want a version 1 record", raw)
				}
				got, err := tc.decode(raw)
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Errorf("read back %+v (%v), want %+v", got, err, tc.want)
				}
			})
		}
	}
}

// A record from a newer provider is refused with a message, never read as
// empty settings (destroy would then restore zero values).
func TestUnitPrivateFound_newerVersionIsRefused(t *testing.T) {
	_, err := decodeFound[map[string]any]([]byte(`{"version":2,"values":{"enabled":true}}`))
	if err == nil || !strings.Contains(err.Error(), "version 2") || !strings.Contains(err.Error(), "upgrade the provider") {
		t.Errorf("decoding version 2: %v, want an error naming the version and the fix", err)
	}
}

// The keys of private state are stored in users' states: a build that
// looked under another name would find nothing, and would delete what a
// create took over instead of restoring it. Each keeps the name states
// already hold, whatever the house calls the idea now.
func TestUnitPrivateState_keysKeepTheirStoredNames(t *testing.T) {
	for key, stored := range map[string]string{
		privateAuthProjectID: "auth_provider_project_id",
		privateImported:      "imported",
		privateUnconfirmed:   "unconfirmed",
		privatePlatformOwner: "platform_owned_by",
		privateFound:         "found",
		privateTakenOver:     "adopted",
	} {
		if key != stored {
			t.Errorf("a private state key is %q; states hold it as %q", key, stored)
		}
	}
}
