package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
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

const integrationAddr = "neon_auth_integration.test"

var anything = knownvalue.StringRegexp(regexp.MustCompile(`.+`))

// integrationCreateOnly are what the API returns of an integration only when
// it is created (keys, schema, table) or never lists (the role): after an
// import they are unknown to Terraform, so an import cannot verify them.
var integrationCreateOnly = []string{"pub_client_key", "secret_server_key", "schema_name", "table_name", "role_name"}

// The life of an integration with defaults, in both API families: create
// (Stack Auth through the project-level API on a production branch, Better
// Auth through the branch-scoped one on a branch of the test's own), import
// by every id form, the in-place updates, drift (deleted behind Terraform's
// back) and destroy.
func TestAccAuthIntegration_lifecycle(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		ctx := context.Background()
		cfg := func(args ...string) string { return env.Config(env.Resource("neon_auth_integration", "test", args...)) }
		listed := acctest.APICheck(func() error {
			if it := env.Integration(); it == nil || it.BranchID != env.BranchID || string(it.AuthProvider) != env.AuthProvider() {
				return fmt.Errorf("the branch's integration is %+v, want one %s integration on branch %s", it, env.AuthProvider(), env.BranchID)
			}
			return nil
		})
		created := []statecheck.StateCheck{
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.BranchID+"/"+env.AuthProvider())),
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("auth_provider"), knownvalue.StringExact(env.AuthProvider())),
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("branch_id"), knownvalue.StringExact(env.BranchID)),
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("database_name"), knownvalue.StringExact("neondb")),
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("db_name"), knownvalue.StringExact("neondb")),
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("owned_by"), knownvalue.StringExact("neon")),
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("jwks_url"), knownvalue.StringRegexp(regexp.MustCompile(`^https://.+jwks`))),
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("created_at"), knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT`))),
			listed,
		}
		if env.Mode == authAPIProject {
			// Stack Auth hands out SDK keys, once, in the create response.
			created = append(created,
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("pub_client_key"), anything),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("secret_server_key"), anything),
				statecheck.ExpectSensitiveValue(integrationAddr, tfjsonpath.New("pub_client_key")),
				statecheck.ExpectSensitiveValue(integrationAddr, tfjsonpath.New("secret_server_key")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("schema_name"), knownvalue.StringExact("neon_auth")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("table_name"), knownvalue.StringExact("users_sync")))
		} else {
			// Better Auth has no SDK keys: clients use base_url and the JWKS.
			created = append(created,
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("base_url"), anything),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("allow_localhost"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("pub_client_key"), knownvalue.Null()),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("secret_server_key"), knownvalue.Null()))
		}
		update := []string{"delete_data_on_destroy = true"}
		updated := []statecheck.StateCheck{
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("delete_data_on_destroy"), knownvalue.Bool(true)),
			listed,
		}
		if env.Mode == authAPIBranch {
			update = append(update, `name = "Acme Sign-in"`, "allow_localhost = false")
			updated = append(updated,
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("name"), knownvalue.StringExact("Acme Sign-in")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("allow_localhost"), knownvalue.Bool(false)),
				acctest.APICheck(func() error {
					allow, err := env.Client().GetAllowLocalhost(ctx, env.Scope())
					if err != nil {
						return err
					}
					if it := env.Integration(); it == nil || apiclient.Deref(it.Name) != "Acme Sign-in" || allow {
						return fmt.Errorf("the branch's integration is %+v with allow_localhost %v; want the configured name and false", it, allow)
					}
					return nil
				}))
		}
		imports := []string{"", env.ProjectID + "/" + env.BranchID}
		if env.Mode == authAPIProject {
			// Without a branch: the production branch, which is the test's.
			imports = append(imports, env.ProjectID)
		}
		steps := []resource.TestStep{{
			Config:            cfg(),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate)}},
			ConfigStateChecks: created,
		}}
		for _, id := range imports {
			steps = append(steps, resource.TestStep{ResourceName: integrationAddr, ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: integrationCreateOnly, ImportStateId: id})
		}
		steps = append(steps,
			resource.TestStep{
				// In place: the same integration, with its settings sent.
				Config:            cfg(update...),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionUpdate)}},
				ConfigStateChecks: updated,
			},
			resource.TestStep{
				// Drift: deleted outside Terraform; the plan creates it again.
				PreConfig:         func() { env.Must(env.Client().DeleteIntegration(ctx, env.Scope(), env.AuthProvider(), false)) },
				Config:            cfg(update...),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate)}},
				ConfigStateChecks: []statecheck.StateCheck{listed},
			},
		)
		tc := env.TestCase(steps...)
		tc.CheckDestroy = env.Destroyed(acctest.AuthGone)
		resource.ParallelTest(t, tc)
	})
}

// Neon Auth on a branch other than the production one (branch mode): it is
// that branch's, the production branch has none, and the import id names
// the branch.
func TestAccAuthIntegration_previewBranch(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	prod, err := env.Client().DefaultBranch(context.Background(), env.ProjectID)
	env.Must(err)
	production := prod.ID
	tc := env.TestCase(
		resource.TestStep{
			Config: env.Config(env.Resource("neon_auth_integration", "test")),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("branch_id"), knownvalue.StringExact(env.BranchID)),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("base_url"), anything),
				acctest.APICheck(func() error {
					if it := env.Integration(); it == nil || it.BranchID != env.BranchID {
						return fmt.Errorf("the branch %s has no integration of its own: %+v", env.BranchID, it)
					}
					parent := *env
					parent.BranchID = production
					switch _, err := env.Client().ListIntegrations(context.Background(), parent.Scope()); {
					case err == nil:
						return fmt.Errorf("the production branch %s has Neon Auth too", production)
					case !errors.Is(err, apiclient.ErrNotFound):
						return fmt.Errorf("reading the Neon Auth of the production branch %s: %w", production, err)
					}
					return nil
				}),
			},
		},
		resource.TestStep{ResourceName: integrationAddr, ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: integrationCreateOnly,
			ImportStateId:           env.ProjectID + "/" + env.BranchID},
	)
	tc.CheckDestroy = env.Destroyed(acctest.AuthGone)
	resource.ParallelTest(t, tc)
}

// The project-level API reaches only the production branch: naming another
// branch in project mode is refused at plan, saying how to reach it; naming
// the production branch explicitly is the same integration as omitting it.
func TestAccAuthIntegration_projectModeBranch(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	on := *env
	on.BranchID = env.ChildBranch("staging")
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{
			Config:      env.Config(on.Resource("neon_auth_integration", "test")),
			PlanOnly:    true,
			ExpectError: acctest.MatchInOrder("Branch "+on.BranchID+" is not the production branch", `Set auth_api = "branch"`),
		},
		resource.TestStep{
			Config:            env.Config(env.Resource("neon_auth_integration", "test")),
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("branch_id"), knownvalue.StringExact(env.BranchID))},
		},
		resource.TestStep{
			// Removing branch_id from the configuration keeps the stored one.
			Config:           env.Config(`resource "neon_auth_integration" "test" { project_id = "` + env.ProjectID + `" }`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
	))
}

// A revoked key fails with a clear message and leaves the state unchanged.
// The key is made and revoked through the API (POST /api_keys, DELETE
// /api_keys/{key_id}).
func TestAccAuthIntegration_revokedKey(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	key := env.NewAPIKey()
	body := env.Resource("neon_auth_integration", "test")
	// The failed refresh drops nothing: the same integration stays in state.
	same := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{
			Config:            env.ProviderBlock(fmt.Sprintf("api_key = %q", key.Token)) + body,
			ConfigStateChecks: []statecheck.StateCheck{same.AddStateValue(integrationAddr, tfjsonpath.New("auth_provider_project_id"))},
		},
		resource.TestStep{
			PreConfig:   func() { env.RevokeKey(key) },
			Config:      env.ProviderBlock(fmt.Sprintf("api_key = %q", key.Token)) + body,
			ExpectError: acctest.MatchInOrder("API key is missing, invalid or revoked"),
		},
		resource.TestStep{
			// With a valid key the same state is still there.
			Config:            env.Config(body),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{same.AddStateValue(integrationAddr, tfjsonpath.New("auth_provider_project_id"))},
		},
	))
}

// A project-scoped key for another project gets a 404 — in branch mode on
// the branch's auth, then on the branch list —; that is not proof the
// integration is gone, so the state is kept and the error names the cause.
// The key is made through the API, scoped by the project's organization.
func TestAccAuthIntegration_scopedKeyOnAnotherProjectKeepsState(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		scoped := env.NewProjectKey(env.AnotherProject())
		body := env.Resource("neon_auth_integration", "test")
		resource.ParallelTest(t, env.TestCase(
			resource.TestStep{Config: env.Config(body)},
			resource.TestStep{
				Config:      env.ProviderBlock(fmt.Sprintf("api_key = %q", scoped.Token)) + body,
				ExpectError: acctest.MatchInOrder("project-scoped key only sees its own project"),
			},
			resource.TestStep{Config: env.Config(body), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		))
	})
}

// Whether the API answers a project-scoped key that names another project
// with 404 (as the emulator does, as though the project did not exist) or
// with 403 is open: either way the state is kept and the error names the
// cause.
func TestAccAuthIntegration_scopedKeyAnswered403KeepsState(t *testing.T) {
	var scopedToken atomic.Value // the scoped key's token, once made
	env := acctest.NewEmulatorEnv(t, "it answers a project-scoped key on another project with 403", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tok, _ := scopedToken.Load().(string); tok != "" && r.Header.Get("Authorization") == "Bearer "+tok &&
				strings.Contains(r.URL.Path, "/projects/") {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusForbidden)
				_, _ = w.Write([]byte(`{"code":"","message":"forbidden","request_id":"scoped-403"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	scoped := env.NewProjectKey(env.AnotherProject())
	scopedToken.Store(scoped.Token)
	body := env.Resource("neon_auth_integration", "test")
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{Config: env.Config(body)},
		resource.TestStep{
			Config:      env.ProviderBlock(fmt.Sprintf("api_key = %q", scoped.Token)) + body,
			ExpectError: acctest.MatchInOrder("HTTP 403", "project-scoped key only sees its own project"),
		},
		resource.TestStep{Config: env.Config(body), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
	))
}

// loseThenLag cuts the connection of the first POST to a path ending in
// suffix, before any response byte but after the emulator applied it, then
// answers the next GET of that path with status and body, as a read that
// lags the write: the read-back does not show the write, the re-send meets
// it (409). posts counts the POSTs to that path.
func loseThenLag(suffix string, status int, body string, posts *atomic.Int32) func(http.Handler) http.Handler {
	var lagged atomic.Bool
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, suffix) && posts.Add(1) == 1:
				next.ServeHTTP(httptest.NewRecorder(), r)
				if hj, ok := w.(http.Hijacker); ok {
					if conn, _, err := hj.Hijack(); err == nil {
						_ = conn.Close()
					}
				}
			case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, suffix) && posts.Load() == 1 && lagged.CompareAndSwap(false, true):
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = w.Write([]byte(body))
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
}

// An enable whose response was lost, whose read-back lagged, and whose
// re-send got 409: the integration is the provider's own, recovered and read
// back, not refused with the import hint of a second enable.
func TestAccAuthIntegration_lostEnableAnsweredConflictIsRecovered(t *testing.T) {
	var posts atomic.Int32
	env := acctest.NewEmulatorEnv(t, "it loses an answer and makes a read lag", loseThenLag("/auth", http.StatusNotFound,
		`{"code":"","message":"Neon Auth is not enabled on this branch","request_id":"lagging-read"}`, &posts))
	env.Mode = authAPIBranch
	resource.ParallelTest(t, env.TestCase(resource.TestStep{
		Config: env.Config(env.Resource("neon_auth_integration", "test")),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("jwks_url"), anything),
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("auth_provider_project_id"), knownvalue.StringFunc(func(got string) error {
				if it := env.Integration(); it == nil || got != it.AuthProviderProjectID {
					return fmt.Errorf("state holds auth_provider_project_id %q, not the recovered integration's: %+v", got, it)
				}
				return nil
			})),
			acctest.APICheck(func() error {
				if n := posts.Load(); n != 2 {
					return fmt.Errorf("%d enables were sent, want the lost one and its re-send", n)
				}
				if n := env.RouteCount("POST /auth", http.StatusConflict); n != 1 {
					return fmt.Errorf("the re-send was answered 409 %d times, want once", n)
				}
				return nil
			}),
		},
	}))
}

// Creating a Stack Auth integration in branch mode warns that Neon
// deprecated it; Better Auth, and project mode (made for Stack Auth), do not.
// Only plans: nothing is created.
func TestAccAuthIntegration_newStackAuthInBranchModeWarns(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	cli := env.CLI(nil, nil)
	const warning = "Stack Auth is deprecated"
	for i, tc := range []struct {
		mode, branch, args string
		warns              bool
	}{
		{authAPIBranch, env.BranchID, `auth_provider = "stack"`, true},
		{authAPIBranch, env.BranchID, `auth_provider = "better_auth"`, false},
		// The project-level API reaches only the production branch.
		{authAPIProject, "", "", false},
	} {
		on := *env
		on.Mode, on.BranchID = tc.mode, tc.branch
		cli.Write("main.tf", acctest.RequiredProviders+on.Config(on.Resource("neon_auth_integration", "test", tc.args)))
		if i == 0 {
			cli.Must(0, "init")
		}
		out := cli.Must(0, "plan", "-input=false")
		if got := strings.Contains(out, warning); got != tc.warns {
			t.Errorf("%s mode, %q: warning shown = %v, want %v:\n%s", tc.mode, tc.args, got, tc.warns, out)
		}
	}
}

// 423 Locked on enable and on disable (the project has a conflicting
// operation running) is a refusal: retried with back-off within
// retry_timeout, and the apply and the destroy succeed. A 423 that outlasts
// retry_timeout is reported, naming the status.
func TestAccAuthIntegration_lockedEnableAndDisableAreRetried(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "it injects 423 answers and counts them", nil)
	env.Mode = authAPIBranch
	const enable, disable = "POST /projects/{project_id}/branches/{branch_id}/auth", "DELETE /projects/{project_id}/branches/{branch_id}/auth"
	locked := func(route string) int { return env.RouteCount(route, http.StatusLocked) }
	block := func(retryTimeout string) string {
		return env.ProviderBlock("max_retries = 20", fmt.Sprintf("retry_timeout = %q", retryTimeout))
	}
	cfg := block("2m") + env.Resource("neon_auth_integration", "test")
	// About every other request of the two routes is refused 423, with
	// Retry-After: 1s; the checks below prove some were.
	faults := emulator.Faults{Rate: 0.5, Statuses: []int{http.StatusLocked}, Routes: []string{enable, disable}, Seed: 7}
	tc := env.TestCase(
		resource.TestStep{
			PreConfig: func() { env.Emu.SetFaults(faults) },
			Config:    cfg,
			ConfigStateChecks: []statecheck.StateCheck{acctest.APICheck(func() error {
				if locked(enable) == 0 {
					return fmt.Errorf("no enable was refused 423: the retry was not exercised")
				}
				if env.Integration() == nil {
					return fmt.Errorf("no integration after the apply")
				}
				return nil
			})},
		},
		resource.TestStep{
			// Locked for longer than retry_timeout: reported with its status.
			PreConfig: func() {
				env.Emu.SetFaults(emulator.Faults{Rate: 1, Statuses: []int{http.StatusLocked}, Routes: []string{disable}})
			},
			Config:      block("2s") + env.Resource("neon_auth_integration", "test", "delete_data_on_destroy = true"),
			Destroy:     true,
			ExpectError: acctest.MatchInOrder("HTTP 423"),
		},
	)
	var lockedBefore int
	tc.CheckDestroy = func(*terraform.State) error {
		if locked(disable) == lockedBefore {
			return fmt.Errorf("no disable of the destroy was refused 423: the retry was not exercised")
		}
		return env.Destroyed(acctest.AuthGone)(nil)
	}
	// The final destroy runs under the faults of the first step again.
	tc.Steps = append(tc.Steps, resource.TestStep{PreConfig: func() { env.Emu.SetFaults(faults) }, Config: cfg,
		Check: func(*terraform.State) error { lockedBefore = locked(disable); return nil }})
	resource.ParallelTest(t, tc)
}

// The integration and its allow_localhost are read side by side. When the
// allow_localhost read meets the run's first 401 and the integration's read,
// sent after it, is kept from the wire ("not sent … see that error"), the
// error it points at is the allow_localhost read's: that one is reported.
// A refusal that was itself not sent, or no 401 at all, reports nothing more.
func TestUnitFirstRefusalOfTheReadBeside(t *testing.T) {
	first401 := fmt.Errorf("GET …/auth/plugins: the API answered HTTP 401: %w", apiclient.ErrUnauthorized)
	for _, c := range []struct {
		name  string
		allow func() (bool, error)
		want  error
	}{
		{name: "project mode: no read beside", allow: nil, want: nil},
		{name: "read beside met the first 401", allow: func() (bool, error) { return false, first401 }, want: first401},
		{name: "read beside was not sent either", allow: func() (bool, error) { return false, &apiclient.KeyRefusedError{Method: "GET"} }, want: nil},
		{name: "read beside failed otherwise", allow: func() (bool, error) { return false, apiclient.ErrNotFound }, want: nil},
		{name: "read beside answered", allow: func() (bool, error) { return true, nil }, want: nil},
	} {
		if got := firstRefusal(c.allow); !errors.Is(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
