package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

const emailAddr = "neon_auth_email_server.test"

// standardEmailServerArgs are the arguments of a standard email server on the
// host %[1]q, sent as %[2]q, with the password argument lines %[3]s.
const standardEmailServerArgs = `type         = "standard"
  host         = %[1]q
  port         = 587
  username     = "mailer"
  sender_email = "noreply@example.com"
  sender_name  = %[2]q
  %[3]s`

// writeOnlyPassword is the password argument lines (%[3]s) of
// standardEmailServerArgs: the write-only password at version.
func writeOnlyPassword(password string, version int) string {
	return fmt.Sprintf(`password_wo         = %q
  password_wo_version = %d`, password, version)
}

// expectEmailServer checks the email server of the test's branch as the API
// shows it: a shared one (host and senderName empty) or a standard one on
// host, port 587, as standardEmailServerArgs sets it. The password reads
// redacted, so it is not compared (TestAccAuthEmailServer_passwordsReachTheAPI
// checks what the API stored).
func expectEmailServer(env *acctest.Env, typ, host, senderName string) acctest.APICheck {
	return func() error {
		es := env.EmailServer()
		if es == nil {
			return fmt.Errorf("the branch has no email server, want a %s one", typ)
		}
		want := apiclient.SMTP{}
		if typ == apiclient.TypeStandard {
			want = apiclient.SMTP{Host: host, Port: 587, Username: "mailer", SenderEmail: "noreply@example.com", SenderName: senderName}
		}
		got := apiclient.SMTP{Host: apiclient.Deref(es.Host), Port: apiclient.Deref(es.Port), Username: apiclient.Deref(es.Username),
			SenderEmail: apiclient.Deref(es.SenderEmail), SenderName: apiclient.Deref(es.SenderName)}
		if string(es.Type) != typ || got != want {
			return fmt.Errorf("the branch's email server is %s %+v, want %s %+v", es.Type, got, typ, want)
		}
		return nil
	}
}

// The life of a standard email server, in both API families: create, import,
// host changed in place, drift (host changed, type reset to shared, the
// integration re-created) repaired, switch to shared, destroy back to
// shared.
func TestAccAuthEmailServer_lifecycle(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		env.EnableAuth()
		standard := func(host string) string {
			return env.Config(env.Resource("neon_auth_email_server", "test",
				fmt.Sprintf(standardEmailServerArgs, host, "Example", `password = "smtp-secret-1"`)))
		}
		first, second := standard("smtp.example.com"), standard("smtp2.example.com")
		updates := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionUpdate),
		}}
		// After the integration is re-created, whether its email server
		// survives is open (Neon's docs say disabling keeps the data). The
		// emulator keeps nothing: a new Better Auth integration has no
		// email server (the API answers 404), so the configuration is
		// created again; a new Stack Auth one has the shared server, which
		// is updated. A server that kept it plans nothing.
		afterRecreate := plancheck.ResourceActionCreate
		if env.AuthProvider() == apiclient.AuthProviderStack {
			afterRecreate = plancheck.ResourceActionUpdate
		}
		ctx, c := context.Background(), env.Client()

		tc := env.TestCase(
			resource.TestStep{
				Config: first,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.BranchID)),
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("port"), knownvalue.Int64Exact(587)),
					statecheck.ExpectSensitiveValue(emailAddr, tfjsonpath.New("password")),
					expectEmailServer(env, "standard", "smtp.example.com", "Example"),
				},
			},
			resource.TestStep{
				ResourceName:      emailAddr,
				ImportState:       true,
				ImportStateVerify: true,
				// The API returns the password redacted.
				ImportStateVerifyIgnore: []string{"password"},
			},
			resource.TestStep{
				// Another host: the whole configuration is sent again, in place.
				Config:            second,
				ConfigPlanChecks:  updates,
				ConfigStateChecks: []statecheck.StateCheck{expectEmailServer(env, "standard", "smtp2.example.com", "Example")},
			},
			resource.TestStep{
				// Drift: the host is changed behind Terraform's back.
				PreConfig: func() {
					_, err := c.UpdateEmailServer(ctx, env.Scope(), apiclient.StandardEmailServer(apiclient.SMTP{Host: "evil.example.com", Port: 587,
						Username: "mailer", Password: "smtp-secret-1", SenderEmail: "noreply@example.com", SenderName: "Example"}))
					env.Must(err)
				},
				Config:            second,
				ConfigPlanChecks:  updates,
				ConfigStateChecks: []statecheck.StateCheck{expectEmailServer(env, "standard", "smtp2.example.com", "Example")},
			},
			resource.TestStep{
				// Drift: reset to the shared server behind Terraform's back.
				PreConfig: func() {
					_, err := c.UpdateEmailServer(ctx, env.Scope(), apiclient.SharedEmailServer())
					env.Must(err)
				},
				Config: second,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(emailAddr, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectEmailServer(env, "standard", "smtp2.example.com", "Example")},
			},
			resource.TestStep{
				// Drift: the integration is deleted and re-created behind
				// Terraform's back.
				PreConfig:         env.RecreateAuth,
				Config:            second,
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{actionIn(env, emailAddr, afterRecreate, plancheck.ResourceActionNoop)}},
				ConfigStateChecks: []statecheck.StateCheck{expectEmailServer(env, "standard", "smtp2.example.com", "Example")},
			},
			resource.TestStep{
				// Back to the platform's server, in place.
				Config:           env.Config(env.Resource("neon_auth_email_server", "test", `type = "shared"`)),
				ConfigPlanChecks: updates,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("host"), knownvalue.Null()),
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("port"), knownvalue.Null()),
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("password"), knownvalue.Null()),
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("sender_name"), knownvalue.Null()),
					expectEmailServer(env, "shared", "", ""),
				},
			},
			resource.TestStep{
				// And to standard again, so that destroy has something to reset.
				Config:            first,
				ConfigPlanChecks:  updates,
				ConfigStateChecks: []statecheck.StateCheck{expectEmailServer(env, "standard", "smtp.example.com", "Example")},
			},
		)
		// Destroy resets the branch to the shared server.
		tc.CheckDestroy = env.Destroyed(acctest.AuthKept, expectEmailServer(env, "shared", "", ""))
		resource.ParallelTest(t, tc)
	})
}

// The write-only password never reaches plan or state; a new
// password_wo_version updates in place
// (TestAccAuthEmailServer_passwordsReachTheAPI checks what reached the API).
func TestAccAuthEmailServer_writeOnlyPassword(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	env.EnableAuth()
	cfg := func(password string, version int) string {
		return env.Config(env.Resource("neon_auth_email_server", "test", fmt.Sprintf(standardEmailServerArgs, "smtp.example.com", "Example",
			writeOnlyPassword(password, version))))
	}
	tc := env.TestCase(
		resource.TestStep{
			Config: cfg("wo-pass-1", 1),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("password_wo"), knownvalue.Null()),
				statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("password"), knownvalue.Null()),
				statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("password_wo_version"), knownvalue.Int64Exact(1)),
				expectEmailServer(env, "standard", "smtp.example.com", "Example"),
			},
		},
		resource.TestStep{
			Config: cfg("wo-pass-2", 2),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("password_wo"), knownvalue.Null()),
				expectEmailServer(env, "standard", "smtp.example.com", "Example"),
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
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.WriteOnlyArguments)
	tc.CheckDestroy = env.Destroyed(acctest.AuthKept, expectEmailServer(env, "shared", "", ""))
	resource.ParallelTest(t, tc)
}

// What the API stored of the password, in both API families: the
// configured one, sent again when a reset to shared is repaired; kept by
// Better Auth when a configuration without it changes another setting (the
// blank one read back is never sent); the write-only one, sent with each
// new version. The API returns the password redacted, so the emulator's
// record is read.
func TestAccAuthEmailServer_passwordsReachTheAPI(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			env := acctest.NewEmulatorEnv(t, "it reads the password the API stored, which the API returns redacted", nil)
			env.Mode = mode
			env.EnableAuth()
			cfg := func(senderName, password string) string {
				return env.Config(env.Resource("neon_auth_email_server", "test", fmt.Sprintf(standardEmailServerArgs, "smtp.example.com", senderName, password)))
			}
			stored := func(senderName, password string) []statecheck.StateCheck {
				return []statecheck.StateCheck{acctest.APICheck(func() error {
					got, err := env.Emu.EmailServer(env.ProjectID)
					if err != nil {
						return err
					}
					want := emulator.EmailServer{Type: "standard", Host: "smtp.example.com", Port: 587, Username: "mailer", Password: password,
						SenderEmail: "noreply@example.com", SenderName: senderName}
					if got != want {
						got.Password, want.Password = fmt.Sprintf("<%d chars>", len(got.Password)), fmt.Sprintf("<%d chars>", len(want.Password))
						return fmt.Errorf("the emulator's email server is %+v, want %+v", got, want)
					}
					return nil
				})}
			}
			steps := []resource.TestStep{
				{Config: cfg("Example", `password = "smtp-secret-1"`), ConfigStateChecks: stored("Example", "smtp-secret-1")},
				{
					PreConfig:         func() { env.Must(env.Emu.SetEmailServer(env.ProjectID, emulator.EmailServer{Type: "shared"})) },
					Config:            cfg("Example", `password = "smtp-secret-1"`),
					ConfigStateChecks: stored("Example", "smtp-secret-1"),
				},
			}
			if env.AuthProvider() == apiclient.AuthProviderBetterAuth {
				steps = append(steps, resource.TestStep{Config: cfg("Shop", ""), ConfigStateChecks: stored("Shop", "smtp-secret-1")})
			}
			steps = append(steps,
				resource.TestStep{Config: cfg("Shop", writeOnlyPassword("wo-pass-1", 1)), ConfigStateChecks: stored("Shop", "wo-pass-1")},
				resource.TestStep{Config: cfg("Shop", writeOnlyPassword("wo-pass-2", 2)), ConfigStateChecks: stored("Shop", "wo-pass-2")},
			)
			tc := env.TestCase(steps...)
			tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.WriteOnlyArguments)
			resource.ParallelTest(t, tc)
		})
	}
}

// With the integration in the same configuration, and the integration
// deleted behind Terraform's back: the email server leaves the state (its
// configuration went with the integration) and both are created again.
func TestAccAuthEmailServer_integrationDeleted(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	cfg := env.Config(env.Resource("neon_auth_integration", "test") + `
resource "neon_auth_email_server" "test" {
  project_id   = neon_auth_integration.test.project_id
  branch_id    = neon_auth_integration.test.branch_id
  ` + fmt.Sprintf(standardEmailServerArgs, "smtp.example.com", "Example", `password = "smtp-secret-1"`) + `
}
`)
	tc := env.TestCase(
		resource.TestStep{
			Config:            cfg,
			ConfigStateChecks: []statecheck.StateCheck{expectEmailServer(env, "standard", "smtp.example.com", "Example")},
		},
		resource.TestStep{
			PreConfig: func() {
				env.Must(env.Client().DeleteIntegration(context.Background(), env.Scope(), env.AuthProvider(), false))
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{expectEmailServer(env, "standard", "smtp.example.com", "Example")},
		},
	)
	tc.CheckDestroy = func(*terraform.State) error {
		if it := env.Integration(); it != nil {
			return fmt.Errorf("destroy left the %s integration", it.AuthProvider)
		}
		return nil
	}
	resource.ParallelTest(t, tc)
}

// A configuration without the password, after a standard server is set:
// Better Auth merges the partial update (the blank password read back is
// never sent); Stack Auth needs all six fields, so the plan is refused on
// password.
func TestAccAuthEmailServer_partialUpdateKeepsThePasswordOnBetterAuth(t *testing.T) {
	for _, provider := range []string{apiclient.AuthProviderBetterAuth, apiclient.AuthProviderStack} {
		t.Run(provider, func(t *testing.T) {
			// Stack Auth needs a production branch.
			var env *acctest.Env
			if provider == apiclient.AuthProviderStack {
				env = acctest.NewProjectEnv(t)
				env.Mode = authAPIBranch
			} else {
				env = acctest.NewBranchEnv(t)
			}
			env.EnableAuth(provider)
			cfg := func(password, senderName string) string {
				return env.Config(env.Resource("neon_auth_email_server", "test", fmt.Sprintf(standardEmailServerArgs, "smtp.example.com", senderName, password)))
			}
			second := resource.TestStep{Config: cfg("", "Shop")}
			if provider == apiclient.AuthProviderBetterAuth {
				second.ConfigPlanChecks = resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(emailAddr, plancheck.ResourceActionUpdate)}}
				second.ConfigStateChecks = []statecheck.StateCheck{
					statecheck.ExpectKnownValue(emailAddr, tfjsonpath.New("password"), knownvalue.Null()),
					expectEmailServer(env, "standard", "smtp.example.com", "Shop"),
				}
			} else {
				second.ExpectError = regexp.MustCompile(`(?s)Missing argument for a standard email server.*Stack Auth integration needs\s+all six fields`)
			}
			tc := env.TestCase(
				resource.TestStep{
					Config:            cfg(`password = "smtp-secret-1"`, "Example"),
					ConfigStateChecks: []statecheck.StateCheck{expectEmailServer(env, "standard", "smtp.example.com", "Example")},
				},
				second,
			)
			tc.CheckDestroy = env.Destroyed(acctest.AuthKept, expectEmailServer(env, "shared", "", ""))
			resource.ParallelTest(t, tc)
		})
	}
}
