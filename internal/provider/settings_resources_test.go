package provider

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// settingsCase is one settings resource type under test, the one place its
// tests are written: the settings to create with and to change to, what the
// emulator then holds of them, a change made behind Terraform's back, the
// configurations refused at plan and the values earlier releases stored.
// The lifecycle, validation, import, identity, query, generate-config and
// private-state tests all read their rows from here, so a new settings
// resource adds a row, not a file.
type settingsCase struct {
	typeName string
	setting  betterauth.Setting
	// create and update are the resource's arguments after project_id, one
	// per line.
	create, update string
	// created and updated are checks of the state after each apply.
	created, updated map[string]knownvalue.Check
	// emu is the emulator's value of the settings.
	emu func(a emulator.BranchAuth) any
	// onCreate and onUpdate set what create and update write: applied to
	// the settings found before create, they give the values the emulator
	// must hold after each apply (what the configuration omits keeps the
	// branch's value). Other tests seed a branch with onCreate.
	onCreate, onUpdate func(a *emulator.BranchAuth)
	// drift changes them outside Terraform.
	drift func(a *emulator.BranchAuth)
	// invalid are arguments refused at plan, in branch mode.
	invalid []invalidSettings
	// found are values an earlier release stored as what to put back on
	// destroy, in the exact bytes it wrote (private_state_test.go).
	found []foundCase
}

// invalidSettings is a bad configuration of a settings resource: field is the
// argument the error names, want what it says.
type invalidSettings struct{ name, args, field, want string }

var settingsCases = []settingsCase{
	{
		typeName: "neon_auth_email_and_password",
		setting:  betterauth.EmailAndPassword,
		create: `
  email_verification_method  = "otp"
  require_email_verification = true
`,
		update: `
  email_verification_method  = "otp"
  require_email_verification = false
  disable_sign_up            = true
`,
		created: map[string]knownvalue.Check{"email_verification_method": stringExact("otp"), "require_email_verification": knownvalue.Bool(true), "enabled": knownvalue.NotNull()},
		updated: map[string]knownvalue.Check{"disable_sign_up": knownvalue.Bool(true), "require_email_verification": knownvalue.Bool(false)},
		emu:     func(a emulator.BranchAuth) any { return a.EmailAndPassword },
		onCreate: func(a *emulator.BranchAuth) {
			a.EmailAndPassword.EmailVerificationMethod, a.EmailAndPassword.RequireEmailVerification = "otp", true
		},
		onUpdate: func(a *emulator.BranchAuth) {
			a.EmailAndPassword.RequireEmailVerification, a.EmailAndPassword.DisableSignUp = false, true
		},
		drift: func(a *emulator.BranchAuth) { a.EmailAndPassword.EmailVerificationMethod = "link" },
		invalid: []invalidSettings{
			{"verification by sms", `email_verification_method = "sms"`, "email_verification_method", `value must be one of: ["link" "otp"], got: "sms"`},
		},
		found: []foundCase{
			foundCaseOf("", `{"enabled":true,"email_verification_method":"otp","require_email_verification":true,"auto_sign_in_after_verification":true,"send_verification_email_on_sign_up":false,"send_verification_email_on_sign_in":true,"disable_sign_up":false}`,
				neonapi.NeonAuthEmailAndPasswordConfig{
					Enabled: true, EmailVerificationMethod: "otp", RequireEmailVerification: true, AutoSignInAfterVerification: true,
					SendVerificationEmailOnSignIn: true,
				}),
		},
	},
	{
		typeName: "neon_auth_organization_plugin",
		setting:  betterauth.Organization,
		create: `
  enabled            = true
  organization_limit = 3
  creator_role       = "admin"
`,
		update: `
  enabled               = true
  organization_limit    = 5
  creator_role          = "admin"
  send_invitation_email = true
`,
		created: map[string]knownvalue.Check{"organization_limit": knownvalue.Int64Exact(3), "creator_role": stringExact("admin"), "membership_limit": knownvalue.NotNull()},
		updated: map[string]knownvalue.Check{"organization_limit": knownvalue.Int64Exact(5), "send_invitation_email": knownvalue.Bool(true)},
		emu:     func(a emulator.BranchAuth) any { return a.Organization },
		onCreate: func(a *emulator.BranchAuth) {
			a.Organization.Enabled, a.Organization.OrganizationLimit, a.Organization.CreatorRole = true, 3, "admin"
		},
		onUpdate: func(a *emulator.BranchAuth) {
			a.Organization.OrganizationLimit, a.Organization.SendInvitationEmail = 5, true
		},
		drift: func(a *emulator.BranchAuth) { a.Organization.OrganizationLimit = 1 },
		invalid: []invalidSettings{
			{"no organizations", `organization_limit = 0`, "organization_limit", "value must be at least 1, got: 0"},
			{"unknown creator role", `creator_role = "member"`, "creator_role", `value must be one of: ["admin" "owner"], got: "member"`},
		},
		found: []foundCase{
			foundCaseOf("", `{"enabled":true,"organization_limit":5,"membership_limit":100,"creator_role":"owner","send_invitation_email":true}`,
				neonapi.NeonAuthOrganizationConfig{Enabled: true, OrganizationLimit: 5, MembershipLimit: 100, CreatorRole: "owner", SendInvitationEmail: true}),
		},
	},
	{
		typeName: "neon_auth_magic_link_plugin",
		setting:  betterauth.MagicLink,
		create: `
  enabled    = true
  expires_in = 15
`,
		update: `
  enabled    = true
  expires_in = 60
`,
		created:  map[string]knownvalue.Check{"enabled": knownvalue.Bool(true), "expires_in": knownvalue.Int64Exact(15), "disable_sign_up": knownvalue.NotNull()},
		updated:  map[string]knownvalue.Check{"expires_in": knownvalue.Int64Exact(60)},
		emu:      func(a emulator.BranchAuth) any { return a.MagicLink },
		onCreate: func(a *emulator.BranchAuth) { a.MagicLink.Enabled, a.MagicLink.ExpiresIn = true, 15 },
		onUpdate: func(a *emulator.BranchAuth) { a.MagicLink.ExpiresIn = 60 },
		drift:    func(a *emulator.BranchAuth) { a.MagicLink.Enabled = false },
		invalid: []invalidSettings{
			{"expires in 4 minutes", `expires_in = 4`, "expires_in", "value must be between 5 and 1440, got: 4"},
		},
		found: []foundCase{
			foundCaseOf("", `{"enabled":true,"expires_in":300,"disable_sign_up":true}`,
				neonapi.NeonAuthMagicLinkConfig{Enabled: true, ExpiresIn: 300, DisableSignUp: true}),
		},
	},
	{
		typeName: "neon_auth_phone_number_plugin",
		setting:  betterauth.PhoneNumber,
		create: `
  enabled        = true
  otp_expires_in = 120
`,
		update: `
  enabled        = false
  otp_expires_in = 600
`,
		created:  map[string]knownvalue.Check{"otp_expires_in": knownvalue.Int64Exact(120), "allowed_attempts": knownvalue.Null()},
		updated:  map[string]knownvalue.Check{"enabled": knownvalue.Bool(false), "otp_expires_in": knownvalue.Int64Exact(600)},
		emu:      func(a emulator.BranchAuth) any { return a.PhoneNumber },
		onCreate: func(a *emulator.BranchAuth) { a.PhoneNumber.Enabled, a.PhoneNumber.OTPExpiresIn = true, new(120) },
		onUpdate: func(a *emulator.BranchAuth) { a.PhoneNumber.Enabled, a.PhoneNumber.OTPExpiresIn = false, new(600) },
		drift:    func(a *emulator.BranchAuth) { a.PhoneNumber.OTPExpiresIn = new(300) },
		invalid: []invalidSettings{
			{"code expires in 30 s", `otp_expires_in = 30`, "otp_expires_in", "value must be between 60 and 600, got: 30"},
			{"allowed_attempts, which Neon removed", `allowed_attempts = 3`, "allowed_attempts", "Neon removed `allowed_attempts` from the phone number plugin in 2026"},
		},
		found: []foundCase{
			foundCaseOf("", `{"enabled":true,"otp_expires_in":300}`, neonapi.NeonAuthPhoneNumberConfig{Enabled: true, OTPExpiresIn: apiclient.Ptr(300)}),
			foundCaseOf("off", `{"enabled":false}`, neonapi.NeonAuthPhoneNumberConfig{}),
		},
	},
	{
		typeName: "neon_auth_webhooks",
		setting:  betterauth.Webhooks,
		create: `
  enabled        = true
  webhook_url    = "https://hooks.example.com/auth"
  enabled_events = ["user.created", "send.otp"]
`,
		update: `
  enabled         = true
  webhook_url     = "https://hooks.example.com/auth"
  enabled_events  = ["user.created"]
  timeout_seconds = 9
`,
		created: map[string]knownvalue.Check{"webhook_url": stringExact("https://hooks.example.com/auth"), "timeout_seconds": knownvalue.Int64Exact(5),
			"enabled_events": knownvalue.SetExact([]knownvalue.Check{stringExact("user.created"), stringExact("send.otp")})},
		updated: map[string]knownvalue.Check{"timeout_seconds": knownvalue.Int64Exact(9), "enabled_events": knownvalue.SetExact([]knownvalue.Check{stringExact("user.created")})},
		// The events are a set: compared in order.
		emu: func(a emulator.BranchAuth) any {
			w := a.Webhooks
			events := slices.Sorted(slices.Values(*w.EnabledEvents))
			w.EnabledEvents = &events
			return w
		},
		onCreate: func(a *emulator.BranchAuth) {
			a.Webhooks.Enabled, a.Webhooks.WebhookURL = true, new("https://hooks.example.com/auth")
			a.Webhooks.EnabledEvents = &[]neonapi.NeonAuthWebhookConfigEnabledEvents{"user.created", "send.otp"}
		},
		onUpdate: func(a *emulator.BranchAuth) {
			a.Webhooks.EnabledEvents, a.Webhooks.TimeoutSeconds = &[]neonapi.NeonAuthWebhookConfigEnabledEvents{"user.created"}, new(9)
		},
		drift: func(a *emulator.BranchAuth) { a.Webhooks.WebhookURL = new("https://attacker.example.com/") },
		invalid: []invalidSettings{
			{"plain http URL", `webhook_url = "http://hooks.example.com/"`, "webhook_url", "must be an `https://` URL"},
			{"unknown event", `enabled_events = ["user.deleted"]`, "enabled_events", `value must be one of: ["user.before_create"`},
			{"timeout of 11 s", `timeout_seconds = 11`, "timeout_seconds", "value must be between 1 and 10, got: 11"},
		},
		found: []foundCase{
			foundCaseOf("", `{"enabled":true,"webhook_url":"https://hooks.example.com/neon","enabled_events":["user.created","send.otp"],"timeout_seconds":7}`,
				neonapi.NeonAuthWebhookConfig{
					Enabled: true, WebhookURL: apiclient.Ptr("https://hooks.example.com/neon"),
					EnabledEvents: &[]neonapi.NeonAuthWebhookConfigEnabledEvents{"user.created", "send.otp"}, TimeoutSeconds: apiclient.Ptr(7),
				}),
			foundCaseOf("off", `{"enabled":false}`, neonapi.NeonAuthWebhookConfig{}),
		},
	},
}

// seedSettings gives every settings resource type's setting on the branch
// the values its create step writes, behind Terraform's back.
func seedSettings(t *testing.T, env *accEnv, branchID string) {
	t.Helper()
	for _, c := range settingsCases {
		if err := env.Emu.MutateBranchAuth(env.ProjectID, branchID, c.onCreate); err != nil {
			t.Fatal(err)
		}
	}
}

// checksOf turns a map of expected attributes into state checks.
func checksOf(addr string, want map[string]knownvalue.Check) []statecheck.StateCheck {
	var checks []statecheck.StateCheck
	for attr, v := range want {
		checks = append(checks, expectValue(addr, attr, v))
	}
	return checks
}

// expectSettings checks that the emulator holds want as c's settings.
func expectSettings(env *accEnv, c settingsCase, when string, want any) error {
	a, ok := env.Emu.BranchAuth(env.ProjectID, env.branch())
	if !ok {
		return fmt.Errorf("%s the branch has no Neon Auth", when)
	}
	if got := c.emu(a); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s the emulator holds %+v, want %+v", when, got, want)
	}
	return nil
}

// The life of every Better Auth settings resource on a branch: create (the
// settings it omits keep the branch's values, which it reads), import by
// `<project_id>/<branch_id>`, update in place, drift (changed behind
// Terraform's back) repaired, and destroy, which puts back what was found.
func TestAccSettings_lifecycle(t *testing.T) {
	for _, c := range settingsCases {
		t.Run(c.typeName, func(t *testing.T) {
			env := newAccEnv(t)
			env.Mode = authAPIBranch
			withIntegration(t, env)
			branch := env.branch()
			addr := c.typeName + ".test"
			cfg := func(args string) string {
				return env.config(resourceBlock(c.typeName, "test", env.ProjectID, "", args))
			}
			a, _ := env.Emu.BranchAuth(env.ProjectID, branch)
			found := c.emu(a)
			c.onCreate(&a)
			created := c.emu(a)
			c.onUpdate(&a)
			updated := c.emu(a)
			emuHolds := func(when string, want any) statecheck.StateCheck {
				return apiCheck(func() error { return expectSettings(env, c, when, want) })
			}
			tc := env.testCase(
				resource.TestStep{
					Config:           cfg(c.create),
					ConfigPlanChecks: expectPlannedAction(addr, plancheck.ResourceActionCreate),
					ConfigStateChecks: append(checksOf(addr, c.created), expectValue(addr, "id", stringExact(env.ProjectID+"/"+branch)),
						expectValue(addr, "branch_id", stringExact(branch)), emuHolds("after create", created)),
				},
				resource.TestStep{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateId: env.ProjectID + "/" + branch},
				resource.TestStep{
					Config:            cfg(c.update),
					ConfigPlanChecks:  expectPlannedAction(addr, plancheck.ResourceActionUpdate),
					ConfigStateChecks: append(checksOf(addr, c.updated), emuHolds("after update", updated)),
				},
				resource.TestStep{
					PreConfig: func() {
						if err := env.Emu.MutateBranchAuth(env.ProjectID, branch, c.drift); err != nil {
							t.Fatal(err)
						}
					},
					Config:            cfg(c.update),
					ConfigPlanChecks:  expectPlannedAction(addr, plancheck.ResourceActionUpdate),
					ConfigStateChecks: []statecheck.StateCheck{emuHolds("after repairing drift", updated)},
				},
			)
			tc.CheckDestroy = func(*terraform.State) error {
				return expectSettings(env, c, "after destroy (the settings found at creation)", found)
			}
			resource.ParallelTest(t, tc)
		})
	}
}

// The settings resources of one branch read every setting GET …/auth/plugins
// reports with that one request per refresh, and only the others at their
// own paths.
func TestAccSettings_bundledSettingsShareOneRead(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	withIntegration(t, env)
	var body strings.Builder
	want := map[string]int{env.authRoute("GET", "/plugins"): 1}
	for _, c := range settingsCases {
		body.WriteString(resourceBlock(c.typeName, "test", env.ProjectID, "", c.create))
		if c.setting.Read {
			want[env.authRoute("GET", "/"+c.setting.Path)] = 1
			if c.setting.Bundled {
				want[env.authRoute("GET", "/"+c.setting.Path)] = 0
			}
		}
	}
	resource.ParallelTest(t, env.testCase(
		resource.TestStep{Config: env.config(body.String())},
		refreshRequests(env, "every settings resource of one branch", want),
	))
}
