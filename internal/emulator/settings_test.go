package emulator

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestSettingsOfANewIntegration(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	base := v.branchAuthPath(v.branch)
	const emailAndPassword = `{"enabled":true,"email_verification_method":"otp","require_email_verification":false,` +
		`"auto_sign_in_after_verification":true,"send_verification_email_on_sign_up":false,` +
		`"send_verification_email_on_sign_in":false,"disable_sign_up":false}`
	const phoneNumber = `{"enabled":false,"otp_expires_in":300}`
	want := map[string]string{
		"/email_and_password":   emailAndPassword,
		"/plugins/phone-number": phoneNumber,
		"/webhooks":             `{"enabled":false,"enabled_events":[],"timeout_seconds":5}`,
		"/plugins": `{"organization":{"enabled":true,"organization_limit":10,"membership_limit":100,"creator_role":"owner","send_invitation_email":false},` +
			`"magic_link":{"enabled":false,"expires_in":5,"disable_sign_up":false},` +
			`"phone_number":` + phoneNumber + `,"email_and_password":` + emailAndPassword +
			`,"oauth_providers":[],"allow_localhost":true}`,
	}
	for path, body := range want {
		r := v.do("GET", base+path, nil)
		wantStatus(t, r, http.StatusOK)
		if got := strings.TrimSpace(string(r.Body)); got != body {
			t.Errorf("GET %s =\n  %s\nwant\n  %s", path, got, body)
		}
	}
	// A fresh Better Auth integration has no email provider configured.
	wantError(t, v.do("GET", base+"/email_provider", nil), http.StatusNotFound, "no email provider is configured")
}

// GET .../plugins never shows the email provider's password; the OAuth
// providers are as the branch-scoped list shows them.
func TestPluginsAggregateEverySettingWithoutThePassword(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	base := v.branchAuthPath(v.branch)
	wantStatus(t, v.do("POST", base+"/oauth_providers", map[string]any{"id": "google", "client_id": "oauth-client", "client_secret": "oauth-secret"}), http.StatusOK)
	wantStatus(t, v.do("PATCH", base+"/email_provider", map[string]any{
		"type": "standard", "host": "smtp.example.com", "port": 465, "username": "u",
		"password": "smtp-secret", "sender_email": "a@example.com", "sender_name": "A",
	}), http.StatusOK)
	wantStatus(t, v.do("PATCH", base+"/allow_localhost", map[string]any{"allow_localhost": false}), http.StatusOK)

	r := v.do("GET", base+"/plugins", nil)
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(string(r.Body), "smtp-secret") {
		t.Errorf("GET .../plugins shows the SMTP password: %s", r.Body)
	}
	var got struct {
		pluginConfigs
		EmailProvider *EmailServer `json:"email_provider"`
	}
	r.Decode(&got)
	if got.AllowLocalhost || got.EmailProvider == nil || got.EmailProvider.Password != "" || got.EmailProvider.Host != "smtp.example.com" ||
		len(got.OAuthProviders) != 1 || got.OAuthProviders[0] != (oauthProviderView{ID: "google", Type: "standard", ClientID: "oauth-client", ClientSecret: "oauth-secret"}) {
		t.Errorf("plugins = %+v", got)
	}
	if err := v.e.RemoveEmailProvider(v.project, v.branch); err != nil {
		t.Fatal(err)
	}
	if body := string(v.do("GET", base+"/plugins", nil).Body); strings.Contains(body, "email_provider") {
		t.Errorf("plugins without an email provider: %s", body)
	}
}

// Each part of GET .../plugins is what the part's own read answers, after
// every kind of write to it, on a Better Auth and on a Stack Auth branch:
// the provider reads the parts from the bundle alone (one request per
// branch), so the two must never disagree.
func TestPluginsPartsEqualTheirOwnReads(t *testing.T) {
	for _, provider := range []string{"better_auth", "stack"} {
		t.Run(provider, func(t *testing.T) {
			v := newEnv(t, Options{})
			v.enableOn(v.branch, provider)
			base := v.branchAuthPath(v.branch)
			compare := func(when string) {
				t.Helper()
				var bundle map[string]json.RawMessage
				r := v.do("GET", base+"/plugins", nil)
				wantStatus(t, r, http.StatusOK)
				r.Decode(&bundle)
				own := func(path, member string) string {
					r := v.do("GET", base+path, nil)
					wantStatus(t, r, http.StatusOK)
					if member == "" {
						return strings.TrimSpace(string(r.Body))
					}
					var m map[string]json.RawMessage
					r.Decode(&m)
					return string(m[member])
				}
				for part, got := range map[string]string{
					"phone_number":       own("/plugins/phone-number", ""),
					"email_and_password": own("/email_and_password", ""),
					"email_provider":     own("/email_provider", ""),
					"oauth_providers":    own("/oauth_providers", "providers"),
					"allow_localhost":    own("/allow_localhost", "allow_localhost"),
				} {
					if string(bundle[part]) != got {
						t.Errorf("%s: the bundle's %s = %s, its own read = %s", when, part, bundle[part], got)
					}
				}
			}
			wantStatus(t, v.do("PATCH", base+"/email_provider", map[string]any{"type": "shared"}), http.StatusOK)
			compare("initially")
			wantStatus(t, v.do("PATCH", base+"/plugins/phone-number", map[string]any{"enabled": true, "otp_expires_in": 90}), http.StatusOK)
			wantStatus(t, v.do("PATCH", base+"/email_and_password", map[string]any{"disable_sign_up": true}), http.StatusOK)
			wantStatus(t, v.do("PATCH", base+"/email_provider", map[string]any{
				"type": "standard", "host": "smtp.example.com", "port": 465, "username": "u",
				"password": "smtp-secret", "sender_email": "a@example.com", "sender_name": "A",
			}), http.StatusOK)
			wantStatus(t, v.do("POST", base+"/oauth_providers", map[string]any{"id": "github"}), http.StatusOK)
			wantStatus(t, v.do("POST", base+"/oauth_providers", map[string]any{"id": "google", "client_id": "c", "client_secret": "s"}), http.StatusOK)
			wantStatus(t, v.do("PATCH", base+"/allow_localhost", map[string]any{"allow_localhost": false}), http.StatusOK)
			compare("after a write to each part")
			wantStatus(t, v.do("DELETE", base+"/oauth_providers/github", nil), http.StatusOK)
			wantStatus(t, v.do("PATCH", base+"/email_provider", map[string]any{"type": "shared"}), http.StatusOK)
			compare("after a delete and a switch back to shared")
		})
	}
}

// settingStep is one request to a setting, in order: the whole response
// body of a success (also what a read shows afterwards), or the message
// prefix of a 400 that changes nothing.
type settingStep struct {
	name  string
	body  any
	want  string
	error string
}

// runSettingSteps sends the steps to a branch's setting at path with method
// and reads it back with GET readPath (key: the member of the read body that
// holds it; "" for all of it).
func runSettingSteps(t *testing.T, method, path, readPath, key string, steps []settingStep) {
	t.Helper()
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	base := v.branchAuthPath(v.branch)
	read := func() string {
		t.Helper()
		r := v.do("GET", base+readPath, nil)
		wantStatus(t, r, http.StatusOK)
		if key == "" {
			return strings.TrimSpace(string(r.Body))
		}
		var m map[string]json.RawMessage
		r.Decode(&m)
		return string(m[key])
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before, _ := v.e.BranchAuth(v.project, v.branch)
			r := v.do(method, base+path, st.body)
			if st.error != "" {
				wantError(t, r, http.StatusBadRequest, st.error)
				if after, _ := v.e.BranchAuth(v.project, v.branch); !reflect.DeepEqual(before, after) {
					t.Errorf("a refused %s %s changed the state", method, path)
				}
				return
			}
			wantStatus(t, r, http.StatusOK)
			if got := strings.TrimSpace(string(r.Body)); got != st.want {
				t.Errorf("response =\n  %s\nwant\n  %s", got, st.want)
			}
			if got := read(); got != st.want {
				t.Errorf("read back =\n  %s\nwant\n  %s", got, st.want)
			}
		})
	}
}

func TestEmailAndPasswordPatchesOnlyTheFieldsGiven(t *testing.T) {
	runSettingSteps(t, "PATCH", "/email_and_password", "/email_and_password", "", []settingStep{
		{name: "require verification by link", body: map[string]any{"require_email_verification": true, "email_verification_method": "link"},
			want: `{"enabled":true,"email_verification_method":"link","require_email_verification":true,"auto_sign_in_after_verification":true,` +
				`"send_verification_email_on_sign_up":false,"send_verification_email_on_sign_in":false,"disable_sign_up":false}`},
		{name: "then close sign-up, the rest stays", body: map[string]any{"disable_sign_up": true, "send_verification_email_on_sign_up": true},
			want: `{"enabled":true,"email_verification_method":"link","require_email_verification":true,"auto_sign_in_after_verification":true,` +
				`"send_verification_email_on_sign_up":true,"send_verification_email_on_sign_in":false,"disable_sign_up":true}`},
		{name: "unknown method", body: map[string]any{"email_verification_method": "sms"}, error: "email_verification_method: must be one of link, otp"},
		{name: "not a boolean", body: map[string]any{"enabled": "yes"}, error: "enabled: must be a boolean"},
		{name: "unknown field", body: map[string]any{"min_password_length": 8}, error: "min_password_length: unknown field"},
		{name: "a bad field refuses the good ones too", body: map[string]any{"enabled": false, "email_verification_method": "sms"}, error: "email_verification_method: "},
	})
}

func TestOrganizationPluginPatch(t *testing.T) {
	runSettingSteps(t, "PATCH", "/plugins/organization", "/plugins", "organization", []settingStep{
		{name: "limits", body: map[string]any{"organization_limit": 1, "membership_limit": 5000},
			want: `{"enabled":true,"organization_limit":1,"membership_limit":5000,"creator_role":"owner","send_invitation_email":false}`},
		{name: "creator role and invitations", body: map[string]any{"creator_role": "admin", "send_invitation_email": true},
			want: `{"enabled":true,"organization_limit":1,"membership_limit":5000,"creator_role":"admin","send_invitation_email":true}`},
		{name: "disable", body: map[string]any{"enabled": false},
			want: `{"enabled":false,"organization_limit":1,"membership_limit":5000,"creator_role":"admin","send_invitation_email":true}`},
		{name: "organization limit 0", body: map[string]any{"organization_limit": 0}, error: "organization_limit: must be at least 1"},
		{name: "membership limit 0", body: map[string]any{"membership_limit": 0}, error: "membership_limit: must be at least 1"},
		{name: "limit beyond int32", body: map[string]any{"membership_limit": int64(1) << 31}, error: "membership_limit: "},
		{name: "limit not an integer", body: map[string]any{"organization_limit": 1.5}, error: "organization_limit: must be an integer"},
		{name: "unknown creator role", body: map[string]any{"creator_role": "member"}, error: "creator_role: must be one of admin, owner"},
	})
}

func TestMagicLinkPluginPatch(t *testing.T) {
	runSettingSteps(t, "PATCH", "/plugins/magic-link", "/plugins", "magic_link", []settingStep{
		{name: "enable", body: map[string]any{"enabled": true}, want: `{"enabled":true,"expires_in":5,"disable_sign_up":false}`},
		{name: "longest expiry", body: map[string]any{"expires_in": 1440, "disable_sign_up": true}, want: `{"enabled":true,"expires_in":1440,"disable_sign_up":true}`},
		{name: "below 5 minutes", body: map[string]any{"expires_in": 4}, error: "expires_in: must be from 5 to 1440"},
		{name: "above a day", body: map[string]any{"expires_in": 1441}, error: "expires_in: must be from 5 to 1440"},
	})
}

func TestPhoneNumberPluginPatchIsPartial(t *testing.T) {
	runSettingSteps(t, "PATCH", "/plugins/phone-number", "/plugins/phone-number", "", []settingStep{
		{name: "all fields", body: map[string]any{"enabled": true, "otp_expires_in": 600},
			want: `{"enabled":true,"otp_expires_in":600}`},
		{name: "omitted fields keep their values", body: map[string]any{"enabled": false},
			want: `{"enabled":false,"otp_expires_in":600}`},
		{name: "expiry alone", body: map[string]any{"otp_expires_in": 60}, want: `{"enabled":false,"otp_expires_in":60}`},
		{name: "expiry below a minute", body: map[string]any{"enabled": true, "otp_expires_in": 59}, error: "otp_expires_in: must be from 60 to 600"},
		{name: "allowed_attempts is gone", body: map[string]any{"enabled": true, "allowed_attempts": 3}, error: "allowed_attempts: unknown field"},
	})
}

func TestWebhooksPut(t *testing.T) {
	runSettingSteps(t, "PUT", "/webhooks", "/webhooks", "", []settingStep{
		{name: "enabled with a URL and events",
			body: map[string]any{"enabled": true, "webhook_url": "https://hooks.example.com/neon", "enabled_events": []string{"user.created", "send.otp"}, "timeout_seconds": 10},
			want: `{"enabled":true,"webhook_url":"https://hooks.example.com/neon","enabled_events":["user.created","send.otp"],"timeout_seconds":10}`},
		{name: "replaced: omitted fields are gone, the timeout back to 5", body: map[string]any{"enabled": false},
			want: `{"enabled":false,"enabled_events":[],"timeout_seconds":5}`},
		{name: "enabled is required", body: map[string]any{"webhook_url": "https://hooks.example.com"}, error: "enabled: is required"},
		{name: "enabled without a URL", body: map[string]any{"enabled": true}, error: "webhook_url: is required when enabled is true"},
		{name: "plain http", body: map[string]any{"enabled": true, "webhook_url": "http://hooks.example.com"}, error: "webhook_url: must be an https URL"},
		{name: "not a URL", body: map[string]any{"enabled": false, "webhook_url": "hooks"}, error: "webhook_url: must be an https URL"},
		{name: "unknown event", body: map[string]any{"enabled": false, "enabled_events": []string{"user.deleted"}}, error: "enabled_events[0]: must be one of"},
		{name: "repeated event", body: map[string]any{"enabled": false, "enabled_events": []string{"send.otp", "send.otp"}}, error: "enabled_events[1]: "},
		{name: "timeout 0", body: map[string]any{"enabled": false, "timeout_seconds": 0}, error: "timeout_seconds: must be from 1 to 10"},
		{name: "timeout 11", body: map[string]any{"enabled": false, "timeout_seconds": 11}, error: "timeout_seconds: must be from 1 to 10"},
	})
}

func TestSettingsNeedNeonAuthAndGoWithIt(t *testing.T) {
	v := newEnv(t, Options{})
	base := v.branchAuthPath(v.branch)
	requests := []struct {
		method, path string
		body         any
	}{
		{"GET", "/email_and_password", nil},
		{"PATCH", "/email_and_password", map[string]any{"enabled": false}},
		{"GET", "/plugins", nil},
		{"PATCH", "/plugins/organization", map[string]any{"enabled": false}},
		{"PATCH", "/plugins/magic-link", map[string]any{"enabled": true}},
		{"GET", "/plugins/phone-number", nil},
		{"PATCH", "/plugins/phone-number", map[string]any{"enabled": true}},
		{"GET", "/webhooks", nil},
		{"PUT", "/webhooks", map[string]any{"enabled": false}},
	}
	for _, rq := range requests {
		wantError(t, v.do(rq.method, base+rq.path, rq.body), http.StatusNotFound, "Neon Auth is not enabled on branch "+v.branch)
	}
	t.Run("400 comes before 404", func(t *testing.T) {
		wantError(t, v.do("PATCH", base+"/plugins/magic-link", map[string]any{"expires_in": 1}), http.StatusBadRequest, "expires_in: ")
	})
	t.Run("disabling Neon Auth drops the settings", func(t *testing.T) {
		v.enableOn(v.branch, "better_auth")
		for _, rq := range requests {
			if rq.method != "GET" {
				wantStatus(t, v.do(rq.method, base+rq.path, rq.body), http.StatusOK)
			}
		}
		wantStatus(t, v.do("DELETE", base, nil), http.StatusOK)
		v.enableOn(v.branch, "better_auth")
		a, _ := v.e.BranchAuth(v.project, v.branch)
		if !reflect.DeepEqual(a.Settings, defaultSettings()) {
			t.Errorf("settings after enabling again = %+v, want the defaults", a.Settings)
		}
	})
}
