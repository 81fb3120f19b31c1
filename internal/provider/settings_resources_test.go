package provider

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// settingsCase is one settings resource type under test: the settings to
// create with and to change to, what the emulator then holds of them, and a
// change made behind Terraform's back.
type settingsCase struct {
	typeName       string
	create, update string // HCL attributes
	// created and updated are checks of the state after each apply.
	created, updated map[string]knownvalue.Check
	// emu is the emulator's value of the settings.
	emu func(a emulator.BranchAuth) any
	// onCreate and onUpdate set what create and update write: applied to
	// the settings found before create, they give the values the emulator
	// must hold after each apply (what the configuration omits keeps the
	// branch's value).
	onCreate, onUpdate func(a *emulator.BranchAuth)
	// drift changes them outside Terraform.
	drift func(a *emulator.BranchAuth)
}

var settingsCases = []settingsCase{
	{
		typeName: "neon_auth_email_and_password",
		create:   "  email_verification_method = \"otp\"\n  require_email_verification = true",
		update:   "  email_verification_method = \"otp\"\n  require_email_verification = false\n  disable_sign_up = true",
		created:  map[string]knownvalue.Check{"email_verification_method": str("otp"), "require_email_verification": knownvalue.Bool(true), "enabled": knownvalue.NotNull()},
		updated:  map[string]knownvalue.Check{"disable_sign_up": knownvalue.Bool(true), "require_email_verification": knownvalue.Bool(false)},
		emu:      func(a emulator.BranchAuth) any { return a.EmailAndPassword },
		onCreate: func(a *emulator.BranchAuth) {
			a.EmailAndPassword.EmailVerificationMethod, a.EmailAndPassword.RequireEmailVerification = "otp", true
		},
		onUpdate: func(a *emulator.BranchAuth) {
			a.EmailAndPassword.RequireEmailVerification, a.EmailAndPassword.DisableSignUp = false, true
		},
		drift: func(a *emulator.BranchAuth) { a.EmailAndPassword.EmailVerificationMethod = "link" },
	},
	{
		typeName: "neon_auth_organization_plugin",
		create:   "  enabled = true\n  organization_limit = 3\n  creator_role = \"admin\"",
		update:   "  enabled = true\n  organization_limit = 5\n  creator_role = \"admin\"\n  send_invitation_email = true",
		created:  map[string]knownvalue.Check{"organization_limit": knownvalue.Int64Exact(3), "creator_role": str("admin"), "membership_limit": knownvalue.NotNull()},
		updated:  map[string]knownvalue.Check{"organization_limit": knownvalue.Int64Exact(5), "send_invitation_email": knownvalue.Bool(true)},
		emu:      func(a emulator.BranchAuth) any { return a.Organization },
		onCreate: func(a *emulator.BranchAuth) {
			a.Organization.Enabled, a.Organization.OrganizationLimit, a.Organization.CreatorRole = true, 3, "admin"
		},
		onUpdate: func(a *emulator.BranchAuth) {
			a.Organization.OrganizationLimit, a.Organization.SendInvitationEmail = 5, true
		},
		drift: func(a *emulator.BranchAuth) { a.Organization.OrganizationLimit = 1 },
	},
	{
		typeName: "neon_auth_magic_link_plugin",
		create:   "  enabled = true\n  expires_in = 15",
		update:   "  enabled = true\n  expires_in = 60",
		created:  map[string]knownvalue.Check{"enabled": knownvalue.Bool(true), "expires_in": knownvalue.Int64Exact(15), "disable_sign_up": knownvalue.NotNull()},
		updated:  map[string]knownvalue.Check{"expires_in": knownvalue.Int64Exact(60)},
		emu:      func(a emulator.BranchAuth) any { return a.MagicLink },
		onCreate: func(a *emulator.BranchAuth) { a.MagicLink.Enabled, a.MagicLink.ExpiresIn = true, 15 },
		onUpdate: func(a *emulator.BranchAuth) { a.MagicLink.ExpiresIn = 60 },
		drift:    func(a *emulator.BranchAuth) { a.MagicLink.Enabled = false },
	},
	{
		typeName: "neon_auth_phone_number_plugin",
		create:   "  enabled = true\n  otp_expires_in = 120",
		update:   "  enabled = false\n  otp_expires_in = 600",
		created:  map[string]knownvalue.Check{"otp_expires_in": knownvalue.Int64Exact(120), "allowed_attempts": knownvalue.Null()},
		updated:  map[string]knownvalue.Check{"enabled": knownvalue.Bool(false), "otp_expires_in": knownvalue.Int64Exact(600)},
		emu:      func(a emulator.BranchAuth) any { return a.PhoneNumber },
		onCreate: func(a *emulator.BranchAuth) { a.PhoneNumber.Enabled, a.PhoneNumber.OTPExpiresIn = true, new(120) },
		onUpdate: func(a *emulator.BranchAuth) { a.PhoneNumber.Enabled, a.PhoneNumber.OTPExpiresIn = false, new(600) },
		drift:    func(a *emulator.BranchAuth) { a.PhoneNumber.OTPExpiresIn = new(300) },
	},
	{
		typeName: "neon_auth_webhooks",
		create:   "  enabled = true\n  webhook_url = \"https://hooks.example.com/auth\"\n  enabled_events = [\"user.created\", \"send.otp\"]",
		update:   "  enabled = true\n  webhook_url = \"https://hooks.example.com/auth\"\n  enabled_events = [\"user.created\"]\n  timeout_seconds = 9",
		created: map[string]knownvalue.Check{"webhook_url": str("https://hooks.example.com/auth"), "timeout_seconds": knownvalue.Int64Exact(5),
			"enabled_events": knownvalue.SetExact([]knownvalue.Check{str("user.created"), str("send.otp")})},
		updated: map[string]knownvalue.Check{"timeout_seconds": knownvalue.Int64Exact(9), "enabled_events": knownvalue.SetExact([]knownvalue.Check{str("user.created")})},
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
	},
}

// checksOf turns a map of expected attributes into state checks.
func checksOf(addr string, want map[string]knownvalue.Check) []statecheck.StateCheck {
	var checks []statecheck.StateCheck
	for attr, v := range want {
		checks = append(checks, has(addr, attr, v))
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
			cfg := func(attrs string) string {
				return env.config(fmt.Sprintf("resource %q \"test\" {\n  project_id = %q\n%s\n}\n", c.typeName, env.ProjectID, attrs))
			}
			a, _ := env.Emu.BranchAuth(env.ProjectID, branch)
			found := c.emu(a)
			c.onCreate(&a)
			created := c.emu(a)
			c.onUpdate(&a)
			updated := c.emu(a)
			emuHolds := func(when string, want any) statecheck.StateCheck {
				return stateCheckFunc(func() error { return expectSettings(env, c, when, want) })
			}
			tc := env.testCase(
				resource.TestStep{
					Config:           cfg(c.create),
					ConfigPlanChecks: plans(addr, plancheck.ResourceActionCreate),
					ConfigStateChecks: append(checksOf(addr, c.created), has(addr, "id", str(env.ProjectID+"/"+branch)),
						has(addr, "branch_id", str(branch)), emuHolds("after create", created)),
				},
				resource.TestStep{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateId: env.ProjectID + "/" + branch},
				resource.TestStep{
					Config:            cfg(c.update),
					ConfigPlanChecks:  plans(addr, plancheck.ResourceActionUpdate),
					ConfigStateChecks: append(checksOf(addr, c.updated), emuHolds("after update", updated)),
				},
				resource.TestStep{
					PreConfig: func() {
						if err := env.Emu.MutateBranchAuth(env.ProjectID, branch, c.drift); err != nil {
							t.Fatal(err)
						}
					},
					Config:            cfg(c.update),
					ConfigPlanChecks:  plans(addr, plancheck.ResourceActionUpdate),
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

// The plugin resources of one branch read every plugin's settings with one
// GET …/auth/plugins per refresh.
func TestAccSettings_pluginsShareOneRead(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	withIntegration(t, env)
	cfg := env.config(fmt.Sprintf(`
resource "neon_auth_organization_plugin" "test" {
  project_id = %[1]q
  enabled    = true
}

resource "neon_auth_magic_link_plugin" "test" {
  project_id = %[1]q
  enabled    = true
}
`, env.ProjectID))
	resource.ParallelTest(t, env.testCase(
		resource.TestStep{Config: cfg},
		refreshRequests(env, "two plugin resources of one branch", map[string]int{env.authRoute("GET", "/plugins"): 1}),
	))
}
