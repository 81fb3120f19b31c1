package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// The Better Auth settings of a branch, generically over betterauth.Settings:
// where each is held (its field of Settings, found by the setting's name),
// the defaults of a new integration (the API reference's, read once), and
// how a write makes a new value (the fields given over the stored value or
// over the defaults). Settings in branch_auth.go is the one place that
// names a setting; the rules the reference cannot express live in
// setting_rules.go, the handlers in handlers_settings.go.

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

// newSettingValue is base with the fields of body set, checked by the
// setting's rules.
func newSettingValue(st betterauth.Setting, base reflect.Value, body object) (reflect.Value, error) {
	v, err := overlay(base, body)
	if err != nil {
		return v, err
	}
	if rule := settingRules[st.Name]; rule != nil {
		if err := rule(v.Interface()); err != nil {
			return v, err
		}
	}
	return v, nil
}

// overlay decodes base's JSON object, with the members of patch set over its
// own, as a new value of base's type. The API reference has checked patch
// (readDocumentBody); a value it let through that the type cannot hold is
// still refused, naming the field.
func overlay(base reflect.Value, patch map[string]json.RawMessage) (reflect.Value, error) {
	raw, err := json.Marshal(base.Interface())
	if err != nil {
		return reflect.Value{}, err
	}
	members := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &members); err != nil {
		return reflect.Value{}, err
	}
	maps.Copy(members, patch)
	merged, err := json.Marshal(members)
	if err != nil {
		return reflect.Value{}, err
	}
	out := reflect.New(base.Type())
	if err := json.Unmarshal(merged, out.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return reflect.Value{}, invalid(te.Field, "must not be a JSON %s", te.Value)
		}
		return reflect.Value{}, err
	}
	return out.Elem(), nil
}

// referenceSettingDefaults are the defaults the API reference gives the
// fields of each setting (the `default` of each property of the schema its
// write answers with), by setting name. Read once per process; New reads it
// before the first request.
var referenceSettingDefaults = sync.OnceValues(func() (map[string]map[string]json.RawMessage, error) {
	doc, err := apispec.Document()
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]json.RawMessage{}
	for _, st := range betterauth.Settings {
		path := branchAuthRoutes + "/" + st.Path
		item := doc.Paths.Find(path)
		if item == nil || item.GetOperation(st.Write) == nil {
			return nil, fmt.Errorf("emulator: the API reference has no %s %s", st.Write, path)
		}
		resp := item.GetOperation(st.Write).Responses.Status(http.StatusOK)
		if resp == nil || resp.Value == nil || resp.Value.Content.Get("application/json") == nil {
			return nil, fmt.Errorf("emulator: the API reference gives %s %s no JSON answer", st.Write, path)
		}
		schema := resp.Value.Content.Get("application/json").Schema
		defaults := map[string]json.RawMessage{}
		for name, p := range schema.Value.Properties {
			if p.Value == nil || p.Value.Default == nil {
				continue
			}
			if defaults[name], err = json.Marshal(p.Value.Default); err != nil {
				return nil, err
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
	s := emulatorSettingChoices()
	for _, st := range betterauth.Settings {
		f := s.setting(st)
		v, err := overlay(f, defaults[st.Name])
		if err != nil {
			panic(fmt.Sprintf("emulator: the API reference's defaults of %s: %v", st.Name, err))
		}
		f.Set(v)
	}
	return s
}

// normalized is s with every field a setting leaves unset (a nil pointer:
// the API always shows it) at its default, and nothing shared with s.
func (s Settings) normalized() Settings {
	defaults := defaultSettings()
	for _, st := range betterauth.Settings {
		members := map[string]json.RawMessage{}
		raw, _ := json.Marshal(s.setting(st).Interface())
		_ = json.Unmarshal(raw, &members)
		v, err := overlay(defaults.setting(st), members)
		if err != nil {
			panic(fmt.Sprintf("emulator: setting %s: %v", st.Name, err))
		}
		defaults.setting(st).Set(v)
	}
	return defaults
}

// clone is a deep copy of s.
func (s Settings) clone() Settings {
	var c Settings
	raw, err := json.Marshal(s)
	if err == nil {
		err = json.Unmarshal(raw, &c)
	}
	if err != nil {
		panic(fmt.Sprintf("emulator: copy settings: %v", err))
	}
	return c
}
