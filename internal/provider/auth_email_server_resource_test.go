package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

const emailAddr = "neon_auth_email_server.test"

// emailStandardConfig is a standard server; password is the HCL of the
// password argument(s).
func emailStandardConfig(projectID, host, password string) string {
	return fmt.Sprintf(`
resource "neon_auth_email_server" "test" {
  project_id   = %[1]q
  type         = "standard"
  host         = %[2]q
  port         = 587
  username     = "mailer"
%[3]s
  sender_email = "noreply@example.com"
  sender_name  = "Example"
}
`, projectID, host, password)
}

func emailSharedConfig(projectID string) string {
	return fmt.Sprintf(`
resource "neon_auth_email_server" "test" {
  project_id = %[1]q
  type       = "shared"
}
`, projectID)
}

// expectEmuEmail checks the emulator's configuration, password included.
func expectEmuEmail(env *accEnv, want emulator.EmailServer) statecheck.StateCheck {
	return apiCheck(func() error {
		got, err := env.Emu.EmailServer(env.ProjectID)
		if err != nil {
			return err
		}
		if got != want {
			got.Password, want.Password = fmt.Sprintf("<%d chars>", len(got.Password)), fmt.Sprintf("<%d chars>", len(want.Password))
			return fmt.Errorf("emulator email server = %+v, want %+v", got, want)
		}
		return nil
	})
}

func standardEmail(host, password string) emulator.EmailServer {
	return emulator.EmailServer{Type: "standard", Host: host, Port: 587, Username: "mailer", Password: password,
		SenderEmail: "noreply@example.com", SenderName: "Example"}
}

// Destroy resets the project to the shared server, with the integration kept.
func emailResetToShared(env *accEnv) func(*terraform.State) error {
	return func(*terraform.State) error {
		if n := len(env.Emu.Integrations(env.ProjectID)); n != 1 {
			return fmt.Errorf("the integration must outlive the email server; emulator has %d integrations", n)
		}
		got, err := env.Emu.EmailServer(env.ProjectID)
		if err != nil {
			return err
		}
		if got != (emulator.EmailServer{Type: "shared"}) {
			return fmt.Errorf("after destroy the email server is %+v, want shared", got)
		}
		return nil
	}
}

// The life of a standard email server, in both API families: create, import,
// host changed in place, drift (host changed, type reset to shared, provider
// removed) repaired, switch to shared, destroy back to shared.
func TestAccAuthEmailServer_lifecycle(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		withIntegration(t, env)
		const pw = `  password     = "smtp-secret-1"`
		first := env.config(emailStandardConfig(env.ProjectID, "smtp.example.com", pw))
		second := env.config(emailStandardConfig(env.ProjectID, "smtp2.example.com", pw))
		updates := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionUpdate),
		}}

		tc := env.testCase(
			resource.TestStep{
				Config: first,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.branch())),
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("port"), knownvalue.Int64Exact(587)),
					statecheck.ExpectSensitiveValue(emailAddr, tfjsonpath.New("password")),
					expectEmuEmail(env, standardEmail("smtp.example.com", "smtp-secret-1")),
				},
			},
			resource.TestStep{
				ResourceName:      emailAddr,
				ImportState:       true,
				ImportStateVerify: true,
				// The API never returns the password.
				ImportStateVerifyIgnore: []string{"password"},
			},
			resource.TestStep{
				// Another host: the whole configuration is sent again, in place.
				Config:            second,
				ConfigPlanChecks:  updates,
				ConfigStateChecks: []statecheck.StateCheck{expectEmuEmail(env, standardEmail("smtp2.example.com", "smtp-secret-1"))},
			},
			resource.TestStep{
				// Drift: the host is changed behind Terraform's back.
				PreConfig: func() {
					if err := env.Emu.SetEmailServer(env.ProjectID, standardEmail("evil.example.com", "smtp-secret-1")); err != nil {
						t.Fatal(err)
					}
				},
				Config:            second,
				ConfigPlanChecks:  updates,
				ConfigStateChecks: []statecheck.StateCheck{expectEmuEmail(env, standardEmail("smtp2.example.com", "smtp-secret-1"))},
			},
			resource.TestStep{
				// Drift: reset to the shared server behind Terraform's back.
				PreConfig: func() {
					if err := env.Emu.SetEmailServer(env.ProjectID, emulator.EmailServer{Type: "shared"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: second,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(emailAddr, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectEmuEmail(env, standardEmail("smtp2.example.com", "smtp-secret-1"))},
			},
			resource.TestStep{
				// Drift: no email provider at all (the API answers 404): the
				// configuration is created again, never reported as an error.
				PreConfig: func() {
					if err := env.Emu.RemoveEmailProvider(env.ProjectID, env.branch()); err != nil {
						t.Fatal(err)
					}
				},
				Config:            second,
				ConfigPlanChecks:  expectPlannedAction(emailAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{expectEmuEmail(env, standardEmail("smtp2.example.com", "smtp-secret-1"))},
			},
			resource.TestStep{
				// Back to the platform's server, in place.
				Config:           env.config(emailSharedConfig(env.ProjectID)),
				ConfigPlanChecks: updates,
				ConfigStateChecks: []statecheck.StateCheck{
					expectValue(emailAddr, "host", knownvalue.Null()), expectValue(emailAddr, "port", knownvalue.Null()),
					expectValue(emailAddr, "password", knownvalue.Null()), expectValue(emailAddr, "sender_name", knownvalue.Null()),
					expectEmuEmail(env, emulator.EmailServer{Type: "shared"}),
				},
			},
			resource.TestStep{
				// And to standard again, so that destroy has something to reset.
				Config:            first,
				ConfigPlanChecks:  updates,
				ConfigStateChecks: []statecheck.StateCheck{expectEmuEmail(env, standardEmail("smtp.example.com", "smtp-secret-1"))},
			},
		)
		tc.CheckDestroy = emailResetToShared(env)
		resource.ParallelTest(t, tc)
	})
}

// The write-only password never reaches plan or state, yet the API gets it;
// a new value is sent with a new password_wo_version.
func TestAccAuthEmailServer_writeOnlyPassword(t *testing.T) {
	env := newAccEnv(t)
	withIntegration(t, env)
	cfg := func(password string, version int) string {
		return env.config(emailStandardConfig(env.ProjectID, "smtp.example.com", fmt.Sprintf(`
  password_wo         = %q
  password_wo_version = %d
`, password, version)))
	}
	tc := env.testCase(
		resource.TestStep{
			Config: cfg("wo-pass-1", 1),
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue(emailAddr, "password_wo", knownvalue.Null()),
				expectValue(emailAddr, "password", knownvalue.Null()),
				statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("password_wo_version"), knownvalue.Int64Exact(1)),
				expectEmuEmail(env, standardEmail("smtp.example.com", "wo-pass-1")),
			},
		},
		resource.TestStep{
			Config: cfg("wo-pass-2", 2),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue(emailAddr, "password_wo", knownvalue.Null()),
				expectEmuEmail(env, standardEmail("smtp.example.com", "wo-pass-2")),
			},
		},
		resource.TestStep{
			ResourceName:      emailAddr,
			ImportState:       true,
			ImportStateVerify: true,
			// The version exists only in the configuration: it tracks a
			// write-only value the API never returns.
			ImportStateVerifyIgnore: []string{"password_wo_version"},
		},
	)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, writeOnlyArguments)
	tc.CheckDestroy = emailResetToShared(env)
	resource.ParallelTest(t, tc)
}

// With the integration in the same configuration, and the integration
// deleted behind Terraform's back: the email server leaves the state (its
// configuration went with the integration) and both are created again.
func TestAccAuthEmailServer_integrationDeleted(t *testing.T) {
	env := newAccEnv(t)
	cfg := env.config(integrationConfig(env.ProjectID, "") + `
` + standardEmailServer("smtp-secret-1"))
	tc := env.testCase(
		resource.TestStep{
			Config:            cfg,
			ConfigStateChecks: []statecheck.StateCheck{expectEmuEmail(env, standardEmail("smtp.example.com", "smtp-secret-1"))},
		},
		resource.TestStep{
			PreConfig: func() {
				if err := env.Emu.DisableBranchAuth(env.ProjectID, env.branch()); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{expectEmuEmail(env, standardEmail("smtp.example.com", "smtp-secret-1"))},
		},
	)
	tc.CheckDestroy = func(*terraform.State) error { return expectIntegrations(env, 0)() }
	resource.ParallelTest(t, tc)
}

// A configuration without the password, after a standard server is set:
// Better Auth merges the partial update and keeps its stored password (the
// blank one read back is never sent); Stack Auth needs all six fields, so
// the plan is refused on password.
func TestAccAuthEmailServer_partialUpdateKeepsThePasswordOnBetterAuth(t *testing.T) {
	for _, provider := range []string{"better_auth", "stack"} {
		t.Run(provider, func(t *testing.T) {
			env := newAccEnv(t)
			env.Mode = authAPIBranch
			withIntegrationOf(t, env, provider)
			cfg := func(password, senderName string) string {
				return env.config(fmt.Sprintf(`
resource "neon_auth_email_server" "test" {
  project_id   = %[1]q
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
%[2]s
  sender_email = "noreply@example.com"
  sender_name  = %[3]q
}
`, env.ProjectID, password, senderName))
			}
			second := resource.TestStep{Config: cfg("", "Shop")}
			if provider == "better_auth" {
				renamed := standardEmail("smtp.example.com", "smtp-secret-1")
				renamed.SenderName = "Shop"
				second.ConfigPlanChecks = expectPlannedAction(emailAddr, plancheck.ResourceActionUpdate)
				second.ConfigStateChecks = []statecheck.StateCheck{expectValue(emailAddr, "password", knownvalue.Null()), expectEmuEmail(env, renamed)}
			} else {
				second.ExpectError = regexp.MustCompile(`(?s)Missing argument for a standard email server.*Stack Auth integration needs\s+all six fields`)
			}
			tc := env.testCase(
				resource.TestStep{
					Config:            cfg(`  password     = "smtp-secret-1"`, "Example"),
					ConfigStateChecks: []statecheck.StateCheck{expectEmuEmail(env, standardEmail("smtp.example.com", "smtp-secret-1"))},
				},
				second,
			)
			tc.CheckDestroy = emailResetToShared(env)
			resource.ParallelTest(t, tc)
		})
	}
}
