package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

const integrationAddr = "neon_auth_integration.test"

func integrationConfig(projectID, extra string) string {
	return fmt.Sprintf(`
resource "neon_auth_integration" "test" {
  project_id = %[1]q
%[2]s
}
`, projectID, extra)
}

// stackIntegrationConfig is a Stack Auth integration, named so in both API
// families (the branch-scoped one defaults to Better Auth).
func stackIntegrationConfig(projectID string) string {
	return integrationConfig(projectID, `  auth_provider = "stack"`)
}

var (
	anything = knownvalue.StringRegexp(regexp.MustCompile(`.+`))
	aTime    = knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT`))
)

// expectIntegrations checks how many integrations the production branch has.
func expectIntegrations(env *accEnv, want int) apiCheck {
	return func() error {
		if n := len(env.Emu.Integrations(env.ProjectID)); n != want {
			return fmt.Errorf("%d integrations on the emulator, want %d", n, want)
		}
		return nil
	}
}

// The life of an integration with defaults, in both API families: create on
// the production branch (Stack Auth through the project-level API, Better
// Auth through the branch-scoped one), import by every id form, the
// in-place updates, drift (deleted behind Terraform's back) and destroy.
func TestAccAuthIntegration_lifecycle(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		branch := env.branch()
		cfg := env.config(integrationConfig(env.ProjectID, ""))
		created := []statecheck.StateCheck{
			expectValue(integrationAddr, "id", stringExact(env.ProjectID+"/"+env.branch()+"/"+env.authProvider())),
			expectValue(integrationAddr, "auth_provider", stringExact(env.authProvider())),
			expectValue(integrationAddr, "branch_id", stringExact(branch)),
			expectValue(integrationAddr, "database_name", stringExact("neondb")),
			expectValue(integrationAddr, "db_name", stringExact("neondb")),
			expectValue(integrationAddr, "owned_by", stringExact("neon")),
			expectValue(integrationAddr, "jwks_url", knownvalue.StringRegexp(regexp.MustCompile(`^https://.+jwks`))),
			expectValue(integrationAddr, "created_at", aTime),
			apiCheck(func() error {
				its := env.Emu.Integrations(env.ProjectID)
				if len(its) != 1 || its[0].BranchID != branch || its[0].AuthProvider != env.authProvider() {
					return fmt.Errorf("emulator integrations = %+v, want one %s integration on branch %s", its, env.authProvider(), branch)
				}
				return nil
			}),
		}
		if env.Mode == authAPIProject {
			// Stack Auth hands out SDK keys, once, in the create response.
			created = append(created, expectValue(integrationAddr, "pub_client_key", anything), expectValue(integrationAddr, "secret_server_key", anything),
				expectValue(integrationAddr, "schema_name", stringExact("neon_auth")), expectValue(integrationAddr, "table_name", stringExact("users_sync")))
			created = append(created, expectSensitive(integrationAddr, "pub_client_key", "secret_server_key")...)
		} else {
			// Better Auth has no SDK keys: clients use base_url and the JWKS.
			created = append(created, expectValue(integrationAddr, "base_url", anything), expectValue(integrationAddr, "allow_localhost", knownvalue.NotNull()))
			created = append(created, expectNull(integrationAddr, "pub_client_key", "secret_server_key")...)
		}
		// The API returns keys, schema and table only when the integration
		// is created, and never lists the role: after an import they are
		// unknown to Terraform.
		ignore := []string{"pub_client_key", "secret_server_key", "schema_name", "table_name", "role_name"}
		update := `  delete_data_on_destroy = true`
		updated := []statecheck.StateCheck{expectValue(integrationAddr, "delete_data_on_destroy", knownvalue.Bool(true)), expectIntegrations(env, 1)}
		if env.Mode == authAPIBranch {
			update = `
  delete_data_on_destroy = true
  name                   = "Acme Sign-in"
  allow_localhost        = false`
			updated = append(updated, expectValue(integrationAddr, "name", stringExact("Acme Sign-in")), expectValue(integrationAddr, "allow_localhost", knownvalue.Bool(false)),
				apiCheck(func() error {
					a, _ := env.Emu.BranchAuth(env.ProjectID, branch)
					if a.Name != "Acme Sign-in" || a.AllowLocalhost {
						return fmt.Errorf("emulator name %q, allow_localhost %v; want the configured ones", a.Name, a.AllowLocalhost)
					}
					return nil
				}))
		}
		tc := env.testCase(
			resource.TestStep{Config: cfg, ConfigPlanChecks: expectPlannedAction(integrationAddr, plancheck.ResourceActionCreate), ConfigStateChecks: created},
			resource.TestStep{ResourceName: integrationAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: ignore},
			resource.TestStep{ResourceName: integrationAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: ignore,
				ImportStateId: env.ProjectID},
			resource.TestStep{ResourceName: integrationAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: ignore,
				ImportStateId: env.ProjectID + "/" + branch},
			resource.TestStep{
				// In place: the same integration, with its settings sent.
				Config:            env.config(integrationConfig(env.ProjectID, update)),
				ConfigPlanChecks:  expectPlannedAction(integrationAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: updated,
			},
			resource.TestStep{
				// Drift: deleted outside Terraform; the plan creates it again.
				PreConfig: func() {
					if err := env.Emu.DisableBranchAuth(env.ProjectID, branch); err != nil {
						t.Fatal(err)
					}
				},
				Config:            env.config(integrationConfig(env.ProjectID, update)),
				ConfigPlanChecks:  expectPlannedAction(integrationAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{expectIntegrations(env, 1)},
			},
		)
		tc.CheckDestroy = func(*terraform.State) error { return expectIntegrations(env, 0)() }
		resource.ParallelTest(t, tc)
	})
}

// Neon Auth on a branch other than the production one (branch mode): it is
// that branch's, the production branch has none, and the import id names
// the branch.
func TestAccAuthIntegration_previewBranch(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	preview, err := env.Emu.AddBranch(env.ProjectID, "preview")
	if err != nil {
		t.Fatal(err)
	}
	cfg := env.config(integrationConfig(env.ProjectID, fmt.Sprintf(`
  branch_id     = %q
  auth_provider = "stack"`, preview)))
	tc := env.testCase(
		resource.TestStep{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue(integrationAddr, "branch_id", stringExact(preview)),
				expectValue(integrationAddr, "pub_client_key", anything),
				expectIntegrations(env, 0),
				apiCheck(func() error {
					if a, ok := env.Emu.BranchAuth(env.ProjectID, preview); !ok || a.AuthProvider != "stack" {
						return fmt.Errorf("the preview branch has no stack integration: %+v", a)
					}
					return nil
				}),
			},
		},
		resource.TestStep{ResourceName: integrationAddr, ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"pub_client_key", "secret_server_key", "schema_name", "table_name", "role_name"},
			ImportStateId:           env.ProjectID + "/" + preview},
	)
	tc.CheckDestroy = func(*terraform.State) error {
		if _, ok := env.Emu.BranchAuth(env.ProjectID, preview); ok {
			return fmt.Errorf("destroy left Neon Auth on the preview branch")
		}
		return nil
	}
	resource.ParallelTest(t, tc)
}

// The project-level API reaches only the production branch: naming another
// branch in project mode is refused at plan, saying how to reach it; naming
// the production branch explicitly is the same integration as omitting it.
func TestAccAuthIntegration_projectModeBranch(t *testing.T) {
	env := newAccEnv(t)
	staging, err := env.Emu.AddBranch(env.ProjectID, "staging")
	if err != nil {
		t.Fatal(err)
	}
	main := env.branch()
	resource.ParallelTest(t, env.testCase(
		resource.TestStep{
			Config:      env.config(integrationConfig(env.ProjectID, fmt.Sprintf("  branch_id = %q", staging))),
			PlanOnly:    true,
			ExpectError: matchInOrder("Branch "+staging+" is not the production branch", `Set auth_api = "branch"`),
		},
		resource.TestStep{
			Config:            env.config(integrationConfig(env.ProjectID, fmt.Sprintf("  branch_id = %q", main))),
			ConfigStateChecks: []statecheck.StateCheck{expectValue(integrationAddr, "branch_id", stringExact(main))},
		},
		resource.TestStep{
			// Removing branch_id from the configuration keeps the stored one.
			Config:           env.config(integrationConfig(env.ProjectID, "")),
			ConfigPlanChecks: noChanges(),
		},
	))
}

// A revoked key fails with a clear message and leaves the state unchanged.
func TestAccAuthIntegration_revokedKey(t *testing.T) {
	env := newAccEnv(t)
	key, err := env.Emu.CreateKey("personal", "")
	if err != nil {
		t.Fatal(err)
	}
	body := integrationConfig(env.ProjectID, "")
	var idBefore string
	resource.ParallelTest(t, env.testCase(
		resource.TestStep{
			Config: env.providerBlockWithKey(key) + body,
			Check: func(s *terraform.State) error {
				idBefore = s.RootModule().Resources[integrationAddr].Primary.Attributes["auth_provider_project_id"]
				return nil
			},
		},
		resource.TestStep{
			PreConfig: func() {
				if err := env.Emu.RevokeKey(key); err != nil {
					t.Fatal(err)
				}
			},
			Config:      env.providerBlockWithKey(key) + body,
			ExpectError: mustMatch("API key is missing, invalid or revoked"),
		},
		resource.TestStep{
			// With a valid key the same state is still there: nothing was
			// dropped by the failed refresh.
			Config:           env.config(body),
			ConfigPlanChecks: noChanges(),
			Check: func(s *terraform.State) error {
				if got := s.RootModule().Resources[integrationAddr].Primary.Attributes["auth_provider_project_id"]; got != idBefore {
					return fmt.Errorf("auth_provider_project_id changed from %q to %q", idBefore, got)
				}
				return nil
			},
		},
	))
}

// A project-scoped key for another project gets a 404 — in branch mode on
// the branch's auth, then on the branch list —; that is not proof the
// integration is gone, so the state is kept and the error names the cause.
func TestAccAuthIntegration_scopedKeyOnAnotherProjectKeepsState(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		scoped, err := env.Emu.CreateKey("project", env.Emu.ProjectIDs()[1])
		if err != nil {
			t.Fatal(err)
		}
		body := integrationConfig(env.ProjectID, "")
		resource.ParallelTest(t, env.testCase(
			resource.TestStep{Config: env.config(body)},
			resource.TestStep{
				Config:      env.providerBlockWithKey(scoped) + body,
				ExpectError: mustMatch("project-scoped key only sees its own project"),
			},
			resource.TestStep{Config: env.config(body), ConfigPlanChecks: noChanges()},
		))
	})
}

// loseThenLag loses the response of the first POST to a path ending in
// suffix (after the emulator applied it), then answers the next GET of that
// path with status and body, as a read that lags the write: the read-back
// does not show the write, the re-send meets it (409).
func loseThenLag(suffix string, status int, body string, posts *atomic.Int32) func(http.Handler) http.Handler {
	var lagged atomic.Bool
	lose := loseFirstResponse(suffix, true, posts)
	return func(next http.Handler) http.Handler {
		lost := lose(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, suffix) && posts.Load() == 1 && lagged.CompareAndSwap(false, true) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = w.Write([]byte(body))
				return
			}
			lost.ServeHTTP(w, r)
		})
	}
}

// An enable whose response was lost, whose read-back lagged, and whose
// re-send got 409: the integration is the provider's own, adopted and read
// back, not refused with the import hint of a second enable.
func TestAccAuthIntegration_lostEnableAnsweredConflictIsAdopted(t *testing.T) {
	var posts atomic.Int32
	env := newAccEnvWith(t, loseThenLag("/auth", http.StatusNotFound,
		`{"code":"","message":"Neon Auth is not enabled on this branch","request_id":"lagging-read"}`, &posts))
	env.Mode = authAPIBranch
	resource.ParallelTest(t, env.testCase(resource.TestStep{
		Config: env.config(integrationConfig(env.ProjectID, "")),
		Check: func(s *terraform.State) error {
			its := env.Emu.Integrations(env.ProjectID)
			if len(its) != 1 {
				return fmt.Errorf("emulator has %d integrations, want 1", len(its))
			}
			if n := posts.Load(); n != 2 {
				return fmt.Errorf("%d enables were sent, want the lost one and its re-send", n)
			}
			if n := env.Emu.Stats().Requests["POST /projects/{project_id}/branches/{branch_id}/auth"][409]; n != 1 {
				return fmt.Errorf("the re-send was answered 409 %d times, want once", n)
			}
			got := s.RootModule().Resources[integrationAddr].Primary.Attributes
			if got["auth_provider_project_id"] != its[0].AuthProviderProjectID || got["jwks_url"] == "" {
				return fmt.Errorf("state %v does not hold the adopted integration %+v", got, its[0])
			}
			return nil
		},
	}))
}

// Creating a Stack Auth integration in branch mode warns that Neon
// deprecated it; Better Auth, and project mode (made for Stack Auth), do not.
func TestAccAuthIntegration_newStackAuthInBranchModeWarns(t *testing.T) {
	env := newAccEnv(t)
	cli := newCLIDir(t)
	const warning = "Stack Auth is deprecated"
	for _, tc := range []struct {
		mode, extra string
		warns       bool
	}{
		{authAPIBranch, `  auth_provider = "stack"`, true},
		{authAPIBranch, `  auth_provider = "better_auth"`, false},
		{authAPIProject, "", false},
	} {
		cli.write("main.tf", requiredProviders+env.configIn(tc.mode, integrationConfig(env.ProjectID, tc.extra)))
		if tc.mode == authAPIBranch && tc.warns {
			cli.must(0, "init")
		}
		out := cli.must(0, "plan", "-input=false")
		if got := strings.Contains(out, warning); got != tc.warns {
			t.Errorf("%s mode, %q: warning shown = %v, want %v:\n%s", tc.mode, tc.extra, got, tc.warns, out)
		}
	}
}

// 423 Locked on enable and on disable (the project has a conflicting
// operation running) is a refusal: retried with back-off within
// retry_timeout, and the apply and the destroy succeed. A 423 that outlasts
// retry_timeout is reported, naming the status.
func TestAccAuthIntegration_lockedEnableAndDisableAreRetried(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	enable, disable := env.authRoute("POST", ""), env.authRoute("DELETE", "")
	locked := func(route string) int { return env.Emu.Stats().Requests[route][http.StatusLocked] }
	block := func(retryTimeout string) string {
		return env.providerBlockWithArgs(fmt.Sprintf(`
  auth_api            = "branch"
  requests_per_minute = 100000
  max_retries         = 20
  retry_timeout       = %q
`, retryTimeout))
	}
	cfg := block("2m") + integrationConfig(env.ProjectID, "")
	// About every other request of the two routes is refused 423, with
	// Retry-After: 1s; the checks below prove some were.
	faults := emulator.Faults{Rate: 0.5, Statuses: []int{http.StatusLocked}, Routes: []string{enable, disable}, Seed: 7}
	tc := env.testCase(
		resource.TestStep{
			PreConfig: func() { env.Emu.SetFaults(faults) },
			Config:    cfg,
			Check: func(*terraform.State) error {
				if locked(enable) == 0 {
					return fmt.Errorf("no enable was refused 423: the retry was not exercised")
				}
				if n := len(env.Emu.Integrations(env.ProjectID)); n != 1 {
					return fmt.Errorf("%d integrations after the apply", n)
				}
				return nil
			},
		},
		resource.TestStep{
			// Locked for longer than retry_timeout: reported with its status.
			PreConfig: func() {
				env.Emu.SetFaults(emulator.Faults{Rate: 1, Statuses: []int{http.StatusLocked}, Routes: []string{disable}})
			},
			Config:      block("2s") + integrationConfig(env.ProjectID, `  delete_data_on_destroy = true`),
			Destroy:     true,
			ExpectError: matchInOrder("HTTP 423"),
		},
	)
	var lockedBefore int
	tc.CheckDestroy = func(*terraform.State) error {
		if locked(disable) == lockedBefore {
			return fmt.Errorf("no disable of the destroy was refused 423: the retry was not exercised")
		}
		if n := len(env.Emu.Integrations(env.ProjectID)); n != 0 {
			return fmt.Errorf("%d integrations after destroy", n)
		}
		return nil
	}
	// The final destroy runs under the faults of the first step again.
	tc.Steps = append(tc.Steps, resource.TestStep{PreConfig: func() { env.Emu.SetFaults(faults) }, Config: cfg,
		Check: func(*terraform.State) error { lockedBefore = locked(disable); return nil }})
	resource.ParallelTest(t, tc)
}
