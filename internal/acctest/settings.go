package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The Better Auth settings types under test, each described once through
// the public API, for the provider's tests and the random walks.

// SettingsCase is one settings resource type under test, the one place its
// tests are written: the settings to create with and to change to, what the
// API then returns of them, a change made behind Terraform's back and the
// configurations refused at plan. The provider's lifecycle, validation,
// import, identity, query, generate-config and private-state tests and the
// random walks all read their rows from here, so a new settings resource
// adds a row, not a file (and what earlier releases stored of it to
// settingsFound, in internal/provider/private_state_test.go).
type SettingsCase struct {
	TypeName string
	// API is the setting as the public API reads and writes it, in its
	// neonapi type.
	API SettingAPI
	// Create and Update are the resource's arguments after project_id, one
	// per line.
	Create, Update string
	// Created and Updated are checks of the state after each apply.
	Created, Updated map[string]knownvalue.Check
	// OnCreate and OnUpdate are the fields create and update write, in the
	// API's JSON: set on the value found before create, they give the value
	// the API must return after each apply (what the configuration omits
	// keeps the branch's value). Other tests seed a branch with OnCreate.
	OnCreate, OnUpdate string
	// Drift is a change made outside Terraform, in the API's JSON.
	Drift string
	// Invalid are arguments refused at plan, in branch mode.
	Invalid []InvalidSettings
}

// InvalidSettings is a bad configuration of a settings resource: Field is
// the argument the error names, Want what it says.
type InvalidSettings struct{ Name, Args, Field, Want string }

// SettingAPI is a Better Auth setting of a branch through the public API.
// Values are the JSON of the setting's neonapi type, so that they compare
// as strings and print as the API spells them.
type SettingAPI struct {
	Setting betterauth.Setting
	// Read is the setting of a branch of the test's project: from its own
	// GET where it has one, else from GET …/auth/plugins.
	Read func(env *Env, branchID string) (string, error)
	// Patched is value with the fields of patch set.
	Patched func(value, patch string) (string, error)
	// Patch sets the fields of patch on a branch: it reads the setting and
	// writes the whole value back.
	Patch func(env *Env, branchID, patch string) error
}

// settingOf is the SettingAPI of a setting whose API type is T; normalize
// puts a value in the form values are compared in.
func settingOf[T any](set betterauth.Setting, normalize ...func(*T)) SettingAPI {
	canonical := func(v T) (string, error) {
		for _, f := range normalize {
			f(&v)
		}
		b, err := json.Marshal(v)
		return string(b), err
	}
	decode := func(value, patch string) (T, error) {
		var v T
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			return v, err
		}
		d := json.NewDecoder(strings.NewReader(patch))
		d.DisallowUnknownFields()
		if err := d.Decode(&v); err != nil {
			return v, fmt.Errorf("setting %s on %s: %w", patch, value, err)
		}
		return v, nil
	}
	a := SettingAPI{Setting: set}
	a.Read = func(env *Env, branchID string) (string, error) {
		ctx, c := context.Background(), env.Client()
		s := apiclient.Scope{ProjectID: env.ProjectID, BranchID: branchID, Family: apiclient.FamilyBranch}
		if set.Read {
			v, err := apiclient.ReadSetting[T](ctx, c, s, set)
			if err != nil {
				return "", err
			}
			return canonical(v)
		}
		plugins, err := c.GetPlugins(ctx, s)
		if err != nil {
			return "", err
		}
		var v T
		switch ok, err := plugins.Part(set.Name, &v); {
		case err != nil:
			return "", fmt.Errorf("%s of GET …/auth/plugins of branch %s: %w", set.Name, branchID, err)
		case !ok:
			return "", fmt.Errorf("GET …/auth/plugins of branch %s has no %s", branchID, set.Name)
		}
		return canonical(v)
	}
	a.Patched = func(value, patch string) (string, error) {
		v, err := decode(value, patch)
		if err != nil {
			return "", err
		}
		return canonical(v)
	}
	a.Patch = func(env *Env, branchID, patch string) error {
		value, err := a.Read(env, branchID)
		if err != nil {
			return err
		}
		v, err := decode(value, patch)
		if err != nil {
			return err
		}
		s := apiclient.Scope{ProjectID: env.ProjectID, BranchID: branchID, Family: apiclient.FamilyBranch}
		_, err = apiclient.WriteSetting[T](context.Background(), env.Client(), s, set, v)
		return err
	}
	return a
}

var SettingsCases = []SettingsCase{
	{
		TypeName: "neon_auth_email_and_password",
		API:      settingOf[neonapi.NeonAuthEmailAndPasswordConfig](betterauth.EmailAndPassword),
		Create: `
  email_verification_method  = "otp"
  require_email_verification = true
`,
		Update: `
  email_verification_method  = "otp"
  require_email_verification = false
  disable_sign_up            = true
`,
		Created:  map[string]knownvalue.Check{"email_verification_method": knownvalue.StringExact("otp"), "require_email_verification": knownvalue.Bool(true), "enabled": knownvalue.NotNull()},
		Updated:  map[string]knownvalue.Check{"disable_sign_up": knownvalue.Bool(true), "require_email_verification": knownvalue.Bool(false)},
		OnCreate: `{"email_verification_method": "otp", "require_email_verification": true}`,
		OnUpdate: `{"require_email_verification": false, "disable_sign_up": true}`,
		Drift:    `{"email_verification_method": "link"}`,
		Invalid: []InvalidSettings{
			{"verification by sms", `email_verification_method = "sms"`, "email_verification_method", `value must be one of: ["link" "otp"], got: "sms"`},
		},
	},
	{
		TypeName: "neon_auth_organization_plugin",
		API:      settingOf[neonapi.NeonAuthOrganizationConfig](betterauth.Organization),
		Create: `
  enabled            = true
  organization_limit = 3
  creator_role       = "admin"
`,
		Update: `
  enabled               = true
  organization_limit    = 5
  creator_role          = "admin"
  send_invitation_email = true
`,
		Created:  map[string]knownvalue.Check{"organization_limit": knownvalue.Int64Exact(3), "creator_role": knownvalue.StringExact("admin"), "membership_limit": knownvalue.NotNull()},
		Updated:  map[string]knownvalue.Check{"organization_limit": knownvalue.Int64Exact(5), "send_invitation_email": knownvalue.Bool(true)},
		OnCreate: `{"enabled": true, "organization_limit": 3, "creator_role": "admin"}`,
		OnUpdate: `{"organization_limit": 5, "send_invitation_email": true}`,
		Drift:    `{"organization_limit": 1}`,
		Invalid: []InvalidSettings{
			{"no organizations", `organization_limit = 0`, "organization_limit", "value must be at least 1, got: 0"},
			{"unknown creator role", `creator_role = "member"`, "creator_role", `value must be one of: ["admin" "owner"], got: "member"`},
		},
	},
	{
		TypeName: "neon_auth_magic_link_plugin",
		API:      settingOf[neonapi.NeonAuthMagicLinkConfig](betterauth.MagicLink),
		Create: `
  enabled    = true
  expires_in = 15
`,
		Update: `
  enabled    = true
  expires_in = 60
`,
		Created:  map[string]knownvalue.Check{"enabled": knownvalue.Bool(true), "expires_in": knownvalue.Int64Exact(15), "disable_sign_up": knownvalue.NotNull()},
		Updated:  map[string]knownvalue.Check{"expires_in": knownvalue.Int64Exact(60)},
		OnCreate: `{"enabled": true, "expires_in": 15}`,
		OnUpdate: `{"expires_in": 60}`,
		Drift:    `{"enabled": false}`,
		Invalid: []InvalidSettings{
			{"expires in 4 minutes", `expires_in = 4`, "expires_in", "value must be between 5 and 1440, got: 4"},
		},
	},
	{
		TypeName: "neon_auth_phone_number_plugin",
		API:      settingOf[neonapi.NeonAuthPhoneNumberConfig](betterauth.PhoneNumber),
		Create: `
  enabled        = true
  otp_expires_in = 120
`,
		Update: `
  enabled        = false
  otp_expires_in = 600
`,
		Created:  map[string]knownvalue.Check{"otp_expires_in": knownvalue.Int64Exact(120), "allowed_attempts": knownvalue.Null()},
		Updated:  map[string]knownvalue.Check{"enabled": knownvalue.Bool(false), "otp_expires_in": knownvalue.Int64Exact(600)},
		OnCreate: `{"enabled": true, "otp_expires_in": 120}`,
		OnUpdate: `{"enabled": false, "otp_expires_in": 600}`,
		Drift:    `{"otp_expires_in": 300}`,
		Invalid: []InvalidSettings{
			{"code expires in 30 s", `otp_expires_in = 30`, "otp_expires_in", "value must be between 60 and 600, got: 30"},
			{"allowed_attempts, which Neon removed", `allowed_attempts = 3`, "allowed_attempts", "Neon removed `allowed_attempts` from the phone number plugin in 2026 (the API no longer has it, and the number of attempts is no longer configurable). Delete the `allowed_attempts` line"},
		},
	},
	{
		TypeName: "neon_auth_webhooks",
		// The events are a set: compared in order.
		API: settingOf(betterauth.Webhooks, func(w *neonapi.NeonAuthWebhookConfig) {
			if w.EnabledEvents != nil {
				slices.Sort(*w.EnabledEvents)
			}
		}),
		Create: `
  enabled        = true
  webhook_url    = "https://hooks.example.com/auth"
  enabled_events = ["user.created", "send.otp"]
`,
		Update: `
  enabled         = true
  webhook_url     = "https://hooks.example.com/auth"
  enabled_events  = ["user.created"]
  timeout_seconds = 9
`,
		Created: map[string]knownvalue.Check{"webhook_url": knownvalue.StringExact("https://hooks.example.com/auth"), "timeout_seconds": knownvalue.Int64Exact(5),
			"enabled_events": knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("user.created"), knownvalue.StringExact("send.otp")})},
		Updated: map[string]knownvalue.Check{"timeout_seconds": knownvalue.Int64Exact(9),
			"enabled_events": knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("user.created")})},
		OnCreate: `{"enabled": true, "webhook_url": "https://hooks.example.com/auth", "enabled_events": ["user.created", "send.otp"]}`,
		OnUpdate: `{"enabled_events": ["user.created"], "timeout_seconds": 9}`,
		Drift:    `{"webhook_url": "https://attacker.example.com/"}`,
		Invalid: []InvalidSettings{
			{"plain http URL", `webhook_url = "http://hooks.example.com/"`, "webhook_url", "must be an `https://` URL"},
			{"unknown event", `enabled_events = ["user.deleted"]`, "enabled_events", `value must be one of: ["user.before_create"`},
			{"timeout of 11 s", `timeout_seconds = 11`, "timeout_seconds", "value must be between 1 and 10, got: 11"},
		},
	},
}
