package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The Better Auth settings of a branch (internal/apispec/betterauth), each
// at its own path under …/auth/: read with GET where the API has one (else
// in GET …/auth/plugins), written with PATCH (the fields given change) or
// PUT (the whole value is replaced).

// settingSpec is what the tests need of one setting.
type settingSpec struct {
	// initial is its value on a new integration.
	initial string
	// example is a write that succeeds on a new integration and changes it.
	example map[string]any
	// steps are writes in order, each with the value it leaves or the 400
	// it gets.
	steps []settingStep
}

// settingStep is one write to a setting: the whole response body of a
// success (also what a read shows afterwards), or the message prefix of a
// 400 that changes nothing.
type settingStep struct {
	name  string
	body  any
	want  string
	error string
}

const (
	initialEmailAndPassword = `{"enabled":true,"email_verification_method":"otp","require_email_verification":false,` +
		`"auto_sign_in_after_verification":true,"send_verification_email_on_sign_up":false,` +
		`"send_verification_email_on_sign_in":false,"disable_sign_up":false}`
	initialPhoneNumber = `{"enabled":false,"otp_expires_in":300}`
)

// settingSpecs has a spec per setting of betterauth.Settings, by name.
var settingSpecs = map[string]settingSpec{
	betterauth.EmailAndPassword.Name: {
		initial: initialEmailAndPassword,
		example: map[string]any{"require_email_verification": true, "email_verification_method": "link"},
		steps: []settingStep{
			{name: "require verification by link", body: map[string]any{"require_email_verification": true, "email_verification_method": "link"},
				want: `{"enabled":true,"email_verification_method":"link","require_email_verification":true,"auto_sign_in_after_verification":true,` +
					`"send_verification_email_on_sign_up":false,"send_verification_email_on_sign_in":false,"disable_sign_up":false}`},
			{name: "then close sign-up, the rest stays", body: map[string]any{"disable_sign_up": true, "send_verification_email_on_sign_up": true},
				want: `{"enabled":true,"email_verification_method":"link","require_email_verification":true,"auto_sign_in_after_verification":true,` +
					`"send_verification_email_on_sign_up":true,"send_verification_email_on_sign_in":false,"disable_sign_up":true}`},
			{name: "unknown method", body: map[string]any{"email_verification_method": "sms"}, error: `email_verification_method: value is not one of the allowed values ["link","otp"]`},
			{name: "not a boolean", body: map[string]any{"enabled": "yes"}, error: "enabled: value must be a boolean"},
			{name: "unknown field", body: map[string]any{"min_password_length": 8}, error: `request body: property "min_password_length" is unsupported`},
			{name: "a bad field refuses the good ones too", body: map[string]any{"enabled": false, "email_verification_method": "sms"},
				error: "email_verification_method: "},
		},
	},
	betterauth.Organization.Name: {
		initial: `{"enabled":true,"organization_limit":10,"membership_limit":100,"creator_role":"owner","send_invitation_email":false}`,
		example: map[string]any{"organization_limit": 3, "creator_role": "admin"},
		steps: []settingStep{
			{name: "limits", body: map[string]any{"organization_limit": 1, "membership_limit": 5000},
				want: `{"enabled":true,"organization_limit":1,"membership_limit":5000,"creator_role":"owner","send_invitation_email":false}`},
			{name: "creator role and invitations", body: map[string]any{"creator_role": "admin", "send_invitation_email": true},
				want: `{"enabled":true,"organization_limit":1,"membership_limit":5000,"creator_role":"admin","send_invitation_email":true}`},
			{name: "disable", body: map[string]any{"enabled": false},
				want: `{"enabled":false,"organization_limit":1,"membership_limit":5000,"creator_role":"admin","send_invitation_email":true}`},
			{name: "organization limit 0", body: map[string]any{"organization_limit": 0}, error: "organization_limit: number must be at least 1"},
			{name: "membership limit 0", body: map[string]any{"membership_limit": 0}, error: "membership_limit: number must be at least 1"},
			{name: "limit beyond int32", body: map[string]any{"membership_limit": int64(1) << 31}, error: "membership_limit: "},
			{name: "limit not an integer", body: map[string]any{"organization_limit": 1.5}, error: "organization_limit: value must be an integer"},
			{name: "unknown creator role", body: map[string]any{"creator_role": "member"}, error: `creator_role: value is not one of the allowed values ["admin","owner"]`},
		},
	},
	betterauth.MagicLink.Name: {
		initial: `{"enabled":false,"expires_in":5,"disable_sign_up":false}`,
		example: map[string]any{"enabled": true, "expires_in": 30},
		steps: []settingStep{
			{name: "enable", body: map[string]any{"enabled": true}, want: `{"enabled":true,"expires_in":5,"disable_sign_up":false}`},
			{name: "longest expiry", body: map[string]any{"expires_in": 1440, "disable_sign_up": true}, want: `{"enabled":true,"expires_in":1440,"disable_sign_up":true}`},
			{name: "below 5 minutes", body: map[string]any{"expires_in": 4}, error: "expires_in: number must be at least 5"},
			{name: "above a day", body: map[string]any{"expires_in": 1441}, error: "expires_in: number must be at most 1440"},
		},
	},
	betterauth.PhoneNumber.Name: {
		initial: initialPhoneNumber,
		example: map[string]any{"enabled": true, "otp_expires_in": 90},
		steps: []settingStep{
			{name: "all fields", body: map[string]any{"enabled": true, "otp_expires_in": 600}, want: `{"enabled":true,"otp_expires_in":600}`},
			{name: "omitted fields keep their values", body: map[string]any{"enabled": false}, want: `{"enabled":false,"otp_expires_in":600}`},
			{name: "expiry alone", body: map[string]any{"otp_expires_in": 60}, want: `{"enabled":false,"otp_expires_in":60}`},
			{name: "expiry below a minute", body: map[string]any{"enabled": true, "otp_expires_in": 59}, error: "otp_expires_in: number must be at least 60"},
			{name: "allowed_attempts is gone", body: map[string]any{"enabled": true, "allowed_attempts": 3}, error: `request body: property "allowed_attempts" is unsupported`},
		},
	},
	betterauth.Webhooks.Name: {
		initial: `{"enabled":false,"enabled_events":[],"timeout_seconds":5}`,
		example: map[string]any{"enabled": true, "webhook_url": "https://app.example.com/hooks", "enabled_events": []string{"user.created"}},
		steps: []settingStep{
			{name: "enabled with a URL and events",
				body: map[string]any{"enabled": true, "webhook_url": "https://hooks.example.com/neon", "enabled_events": []string{"user.created", "send.otp"}, "timeout_seconds": 10},
				want: `{"enabled":true,"webhook_url":"https://hooks.example.com/neon","enabled_events":["user.created","send.otp"],"timeout_seconds":10}`},
			{name: "replaced: omitted fields are gone, the timeout back to 5", body: map[string]any{"enabled": false},
				want: `{"enabled":false,"enabled_events":[],"timeout_seconds":5}`},
			{name: "enabled is required", body: map[string]any{"webhook_url": "https://hooks.example.com"}, error: "enabled: is required"},
			{name: "enabled without a URL", body: map[string]any{"enabled": true}, error: "webhook_url: is required when enabled is true"},
			{name: "plain http", body: map[string]any{"enabled": true, "webhook_url": "http://hooks.example.com"}, error: "webhook_url: must be an https URL"},
			{name: "not a URL", body: map[string]any{"enabled": false, "webhook_url": "hooks"}, error: "webhook_url: must be an https URL"},
			{name: "an empty URL", body: map[string]any{"enabled": false, "webhook_url": ""}, error: "webhook_url: must not be empty"},
			{name: "unknown event", body: map[string]any{"enabled": false, "enabled_events": []string{"user.deleted"}}, error: "enabled_events[0]: value is not one of the allowed values"},
			{name: "repeated event", body: map[string]any{"enabled": false, "enabled_events": []string{"send.otp", "send.otp"}}, error: "enabled_events[1]: "},
			{name: "timeout 0", body: map[string]any{"enabled": false, "timeout_seconds": 0}, error: "timeout_seconds: number must be at least 1"},
			{name: "timeout 11", body: map[string]any{"enabled": false, "timeout_seconds": 11}, error: "timeout_seconds: number must be at most 10"},
		},
	},
}

// specOf is the spec of a setting; the test fails without one.
func specOf(t *testing.T, st betterauth.Setting) settingSpec {
	t.Helper()
	spec, ok := settingSpecs[st.Name]
	if !ok {
		t.Fatalf("settingSpecs has no spec of the setting %q: add one", st.Name)
	}
	return spec
}

// settingPath is a setting's path on a branch.
func (v *env) settingPath(branch string, st betterauth.Setting) string {
	return v.branchAuthPath(branch) + "/" + st.Path
}

// readSettingOf reads a setting of a branch as a client can: its own GET,
// or its member of GET …/plugins.
func (v *env) readSettingOf(t *testing.T, branch string, st betterauth.Setting) []byte {
	t.Helper()
	if st.Read {
		r := v.do("GET", v.settingPath(branch, st), nil)
		wantStatus(t, r, http.StatusOK)
		return r.Body
	}
	var bundle map[string]json.RawMessage
	r := v.do("GET", v.branchAuthPath(branch)+"/plugins", nil)
	wantStatus(t, r, http.StatusOK)
	r.Decode(&bundle)
	return bundle[st.Name]
}

// Settings holds every setting under its name, of the type the API
// reference gives it, and GET …/plugins a pointer to that type where the
// setting is bundled.
func TestSettingsHoldEveryBetterAuthSetting(t *testing.T) {
	var s Settings
	bundle := reflect.ValueOf(&neonapi.NeonAuthPluginConfigs{}).Elem()
	for _, st := range betterauth.Settings {
		specOf(t, st)
		if _, ok := settingIndex()[st.Name]; !ok {
			t.Errorf("Settings has no field named %q", st.Name)
			continue
		}
		f, err := bundleField(bundle, st.Name)
		switch {
		case st.Bundled && err != nil:
			t.Errorf("%s: %v", st.Name, err)
		case st.Bundled && f.Type() != reflect.PointerTo(s.setting(st).Type()):
			t.Errorf("%s: the bundle holds a %s, Settings a %s", st.Name, f.Type(), s.setting(st).Type())
		}
	}
	if n := reflect.TypeFor[Settings]().NumField(); n != len(betterauth.Settings) || len(settingSpecs) != n {
		t.Errorf("Settings has %d fields, settingSpecs %d specs, betterauth %d settings", n, len(settingSpecs), len(betterauth.Settings))
	}
}

func TestSettingsOfANewIntegration(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	bundle := map[string]json.RawMessage{"oauth_providers": json.RawMessage(`[]`), "allow_localhost": json.RawMessage(`true`)}
	for _, st := range betterauth.Settings {
		spec := specOf(t, st)
		wantJSON(t, st.Name, v.readSettingOf(t, v.branch, st), spec.initial)
		if st.Bundled {
			bundle[st.Name] = json.RawMessage(spec.initial)
		}
	}
	want, _ := json.Marshal(bundle)
	r := v.do("GET", v.branchAuthPath(v.branch)+"/plugins", nil)
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, "GET …/plugins", r.Body, string(want))
	// A fresh Better Auth integration has no email provider configured.
	wantError(t, v.do("GET", v.branchAuthPath(v.branch)+"/email_provider", nil), http.StatusNotFound, "no email provider is configured")
}

// Each write changes what its spec says, and a refused one changes nothing.
func TestSettingWrites(t *testing.T) {
	for _, st := range betterauth.Settings {
		t.Run(st.Name, func(t *testing.T) {
			v := newEnv(t, Options{})
			v.enableOn(v.branch, "better_auth")
			path := v.settingPath(v.branch, st)
			for _, step := range specOf(t, st).steps {
				t.Run(step.name, func(t *testing.T) {
					before, _ := v.e.BranchAuth(v.project, v.branch)
					r := v.do(st.Write, path, step.body)
					if step.error != "" {
						wantError(t, r, http.StatusBadRequest, step.error)
						if after, _ := v.e.BranchAuth(v.project, v.branch); !reflect.DeepEqual(before, after) {
							t.Errorf("a refused %s %s changed the state", st.Write, path)
						}
						return
					}
					wantStatus(t, r, http.StatusOK)
					wantJSON(t, "response", r.Body, step.want)
					wantJSON(t, "read back", v.readSettingOf(t, v.branch, st), step.want)
				})
			}
		})
	}
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
	var got map[string]json.RawMessage
	r.Decode(&got)
	wantJSON(t, "email_provider", got["email_provider"], `{"type":"standard","host":"smtp.example.com","port":465,"username":"u","password":"",`+
		`"sender_email":"a@example.com","sender_name":"A"}`)
	wantJSON(t, "oauth_providers", got["oauth_providers"], `[{"id":"google","type":"standard","client_id":"oauth-client","client_secret":"oauth-secret"}]`)
	wantJSON(t, "allow_localhost", got["allow_localhost"], `false`)
	if err := v.e.RemoveEmailProvider(v.project, v.branch); err != nil {
		t.Fatal(err)
	}
	var without map[string]json.RawMessage
	r = v.do("GET", base+"/plugins", nil)
	r.Decode(&without)
	if _, ok := without["email_provider"]; ok {
		t.Errorf("plugins without an email provider: %s", r.Body)
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
				own := func(path, member string) []byte {
					r := v.do("GET", base+path, nil)
					wantStatus(t, r, http.StatusOK)
					if member == "" {
						return r.Body
					}
					var m map[string]json.RawMessage
					r.Decode(&m)
					return m[member]
				}
				parts := map[string][]byte{
					"email_provider":  own("/email_provider", ""),
					"oauth_providers": own("/oauth_providers", "providers"),
					"allow_localhost": own("/allow_localhost", "allow_localhost"),
				}
				for _, st := range betterauth.Settings {
					if st.Bundled && st.Read {
						parts[st.Name] = own("/"+st.Path, "")
					}
				}
				for part, got := range parts {
					wantJSON(t, when+": the bundle's "+part, bundle[part], string(got))
				}
			}
			wantStatus(t, v.do("PATCH", base+"/email_provider", map[string]any{"type": "shared"}), http.StatusOK)
			compare("initially")
			for _, st := range betterauth.Settings {
				if st.Bundled {
					wantStatus(t, v.do(st.Write, v.settingPath(v.branch, st), specOf(t, st).example), http.StatusOK)
				}
			}
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

func TestSettingsNeedNeonAuthAndGoWithIt(t *testing.T) {
	v := newEnv(t, Options{})
	type request struct {
		method, path string
		body         any
	}
	requests := []request{{"GET", v.branchAuthPath(v.branch) + "/plugins", nil}}
	for _, st := range betterauth.Settings {
		if st.Read {
			requests = append(requests, request{"GET", v.settingPath(v.branch, st), nil})
		}
		requests = append(requests, request{st.Write, v.settingPath(v.branch, st), specOf(t, st).example})
	}
	for _, rq := range requests {
		wantError(t, v.do(rq.method, rq.path, rq.body), http.StatusNotFound, "Neon Auth is not enabled on branch "+v.branch)
	}
	t.Run("400 comes before 404", func(t *testing.T) {
		for _, st := range betterauth.Settings {
			for _, step := range specOf(t, st).steps {
				if step.error != "" {
					wantError(t, v.do(st.Write, v.settingPath(v.branch, st), step.body), http.StatusBadRequest, step.error)
					break
				}
			}
		}
	})
	t.Run("disabling Neon Auth drops the settings", func(t *testing.T) {
		v.enableOn(v.branch, "better_auth")
		for _, rq := range requests {
			if rq.method != "GET" {
				wantStatus(t, v.do(rq.method, rq.path, rq.body), http.StatusOK)
			}
		}
		if a, _ := v.e.BranchAuth(v.project, v.branch); reflect.DeepEqual(a.Settings, defaultSettings()) {
			t.Fatal("the examples changed no setting")
		}
		wantStatus(t, v.do("DELETE", v.branchAuthPath(v.branch), nil), http.StatusOK)
		v.enableOn(v.branch, "better_auth")
		a, _ := v.e.BranchAuth(v.project, v.branch)
		if !reflect.DeepEqual(a.Settings, defaultSettings()) {
			t.Errorf("settings after enabling again = %+v, want the defaults", a.Settings)
		}
	})
}

// The defaults of a new integration are the API reference's where it gives
// them: a setting whose every field has a reference default starts at them.
func TestSettingDefaultsComeFromTheAPIReference(t *testing.T) {
	defaults, err := referenceSettingDefaults()
	if err != nil {
		t.Fatal(err)
	}
	s := defaultSettings()
	for _, st := range betterauth.Settings {
		raw, _ := json.Marshal(s.setting(st).Interface())
		var got map[string]json.RawMessage
		_ = json.Unmarshal(raw, &got)
		for field, want := range defaults[st.Name] {
			wantJSON(t, st.Name+"."+field, got[field], string(want))
		}
	}
	if len(defaults[betterauth.Organization.Name]) == 0 {
		t.Error("the reference gives the organization plugin no defaults; expected its own")
	}
}

// bundleField is the field of NeonAuthPluginConfigs that holds a setting:
// a pointer to the setting's type, under the setting's name.
func bundleField(bundle reflect.Value, name string) (reflect.Value, error) {
	t := bundle.Type()
	for i := range t.NumField() {
		if jsonName(t.Field(i)) == name {
			return bundle.Field(i), nil
		}
	}
	return reflect.Value{}, fmt.Errorf("%s has no field %q", t.Name(), name)
}
