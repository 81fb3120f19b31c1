package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The Better Auth settings of a branch, generically over betterauth.Settings:
// where each is held (its field of Settings, found by the setting's name),
// the defaults of a new integration (the API reference's, read once), how a
// write makes a new value (the fields given over the stored value or over
// the defaults), and the rules the reference cannot express. The handlers
// are in handlers_settings.go.

// Settings is the Better Auth configuration surface of a branch's Neon Auth
// (every integration has it, whatever its provider): one field per setting
// of internal/apispec/betterauth, of the type the API reference gives it,
// under the setting's name. It is the one place the emulator names a
// setting; everything else works from betterauth.Settings.
type Settings struct {
	EmailAndPassword neonapi.NeonAuthEmailAndPasswordConfig `json:"email_and_password"`
	Organization     neonapi.NeonAuthOrganizationConfig     `json:"organization"`
	MagicLink        neonapi.NeonAuthMagicLinkConfig        `json:"magic_link"`
	PhoneNumber      neonapi.NeonAuthPhoneNumberConfig      `json:"phone_number"`
	Webhooks         neonapi.NeonAuthWebhookConfig          `json:"webhooks"`
}

// emulatorSettingChoices are the emulator's defaults where the API
// reference gives none (defaultSettings puts the reference's over them).
// The reference gives none for email and password, nor for webhooks never
// configured; the emulator's: sign-up and sign-in with email and password
// work at once, without verification (no mail needs to be delivered for a
// first user), verification by one-time code once required; no webhooks
// (disabled, no URL, no events).
func emulatorSettingChoices() Settings {
	return Settings{
		EmailAndPassword: neonapi.NeonAuthEmailAndPasswordConfig{
			Enabled:                     true,
			EmailVerificationMethod:     neonapi.NeonAuthEmailVerificationMethodOTP,
			AutoSignInAfterVerification: true,
		},
		Webhooks: neonapi.NeonAuthWebhookConfig{EnabledEvents: &[]neonapi.NeonAuthWebhookConfigEnabledEvents{}},
	}
}

// settingIndex maps a setting's name to its field of Settings (the field's
// JSON name).
var settingIndex = sync.OnceValue(func() map[string]int {
	t := reflect.TypeFor[Settings]()
	out := map[string]int{}
	for i := range t.NumField() {
		out[jsonName(t.Field(i))] = i
	}
	return out
})

// jsonName is the name a struct field has in JSON.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// setting is the value of setting st in s, settable.
func (s *Settings) setting(st betterauth.Setting) reflect.Value {
	i, ok := settingIndex()[st.Name]
	if !ok {
		panic(fmt.Sprintf("emulator: Settings has no field for the setting %q", st.Name))
	}
	return reflect.ValueOf(s).Elem().Field(i)
}

// overlay decodes base's JSON object, with the members of patch set over its
// own, as a new value of base's type. The API reference has checked patch;
// a value it let through that the type cannot hold is still refused, naming
// the field.
func overlay(base reflect.Value, patch map[string]json.RawMessage) (reflect.Value, error) {
	members := map[string]json.RawMessage{}
	if err := json.Unmarshal(mustEncode(base.Interface()), &members); err != nil {
		return reflect.Value{}, err
	}
	maps.Copy(members, patch)
	out := reflect.New(base.Type())
	if err := json.Unmarshal(mustEncode(members), out.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return reflect.Value{}, invalid(te.Field, "must not be a JSON %s", te.Value)
		}
		return reflect.Value{}, err
	}
	return out.Elem(), nil
}

// checkSetting refuses a setting's new value that the reference allows and
// the API does not. Only the webhooks have such rules: their URL is https
// and required when they are enabled, and each event is listed once.
func checkSetting(v reflect.Value) error {
	w, ok := v.Interface().(neonapi.NeonAuthWebhookConfig)
	if !ok {
		return nil
	}
	switch {
	case w.WebhookURL != nil && *w.WebhookURL == "":
		return invalid("webhook_url", "must not be empty")
	case w.WebhookURL != nil:
		if u, err := url.Parse(*w.WebhookURL); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
			return invalid("webhook_url", "must be an https URL such as https://example.com/hooks/neon-auth")
		}
	case w.Enabled:
		return invalid("webhook_url", "is required when enabled is true")
	}
	events := *orZero(w.EnabledEvents)
	for i, ev := range events {
		if slices.Contains(events[:i], ev) {
			return invalid(fmt.Sprintf("enabled_events[%d]", i), "%q is listed twice", ev)
		}
	}
	return nil
}

// referenceSettingDefaults are the defaults the API reference gives the
// fields of each setting (the `default` of each property of the schema its
// write answers with), by setting name. Read once per process; New reads it
// before the first request.
var referenceSettingDefaults = sync.OnceValues(func() (map[string]map[string]json.RawMessage, error) {
	doc, err := referenceDocument()
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]json.RawMessage{}
	for _, st := range betterauth.Settings {
		path := apispec.BranchAuthPath + st.Path
		item := doc.Paths.Find(path)
		if item == nil || item.GetOperation(st.Write) == nil {
			return nil, fmt.Errorf("emulator: the API reference has no %s %s", st.Write, path)
		}
		resp := item.GetOperation(st.Write).Responses.Status(http.StatusOK)
		if resp == nil || resp.Value == nil || resp.Value.Content.Get(jsonMediaType) == nil {
			return nil, fmt.Errorf("emulator: the API reference gives %s %s no JSON answer", st.Write, path)
		}
		defaults := map[string]json.RawMessage{}
		for name, p := range resp.Value.Content.Get(jsonMediaType).Schema.Value.Properties {
			if p.Value != nil && p.Value.Default != nil {
				defaults[name] = mustEncode(p.Value.Default)
			}
		}
		out[st.Name] = defaults
	}
	return out, nil
})

// defaultSettings are the settings of a new integration: the API
// reference's defaults, over the emulator's own choices where the
// reference gives none (emulatorSettingChoices).
func defaultSettings() Settings {
	defaults, err := referenceSettingDefaults()
	if err != nil {
		panic(err) // New has read them already
	}
	return emulatorSettingChoices().overlaid(defaults)
}

// normalized is s with every field a setting leaves unset (a nil pointer:
// the API always shows it) at its default, and nothing shared with s.
func (s Settings) normalized() Settings { return defaultSettings().overlaid(s.members()) }

// members are the JSON members of each setting of s, by setting name.
func (s Settings) members() map[string]map[string]json.RawMessage {
	var out map[string]map[string]json.RawMessage
	if err := json.Unmarshal(mustEncode(s), &out); err != nil {
		panic(fmt.Sprintf("emulator: settings: %v", err))
	}
	return out
}

// overlaid is s with the members patch gives each setting set over its own.
func (s Settings) overlaid(patch map[string]map[string]json.RawMessage) Settings {
	members := s.members()
	for name, p := range patch {
		maps.Copy(members[name], p)
	}
	return *mustDecode[Settings](string(mustEncode(members)))
}
