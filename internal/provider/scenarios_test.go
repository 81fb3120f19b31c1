package provider

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Scenarios that several resources share, one row per resource.

// A create that finds its object already there on the production branch
// fails with an error that says so, why it is not taken over (nothing on a
// root branch is inherited; project mode reaches nothing else), and gives
// the `terraform import` command for it, with the import id. The objects are
// made through the API before Terraform runs, one row per resource type,
// each list-backed type's from its row of acctest.ListedCases. (A trusted
// domain is taken over wherever it is found: see
// TestAccAuthDomain_foundIsTakenOverOnAnyBranch.)
func TestAccConflictSuggestsImport(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			// The production branch of a project of the test's own: a root
			// branch, in either API family.
			env := acctest.NewProjectEnv(t)
			env.Mode = mode
			env.EnableAuth()
			ctx, c, s := context.Background(), env.Client(), env.Scope()
			why := "is a root branch (the production branch, or one created schema-only): it inherited nothing"
			if mode == authAPIProject {
				why = "The project-level endpoints (auth_api = \"project\") reach only the production branch, which inherits nothing."
			}
			at := env.ProjectID + "/" + env.BranchID
			type conflict struct {
				// exists makes the object outside Terraform (nil: the
				// integration, which every row has).
				exists func() error
				config string
				// want are the parts of the error, in order: the reason
				// follows the sentence that says what is there.
				want []string
			}
			rows := []conflict{
				{
					config: env.Resource("neon_auth_integration", "test"),
					want:   []string{"already has Neon Auth", why, "terraform import", at},
				},
				{
					exists: func() error {
						_, err := c.CreateUser(ctx, s, apiclient.CreateUserRequest{AuthProvider: env.AuthProvider(), Email: "taken@example.com"})
						return err
					},
					config: env.Resource("neon_auth_user", "test", `email = "taken@example.com"`),
					want: []string{"A user with this email already exists", why,
						"SELECT id FROM <schema_name>.users_sync WHERE email = 'taken@example.com'", "terraform import", at + "/<user_id>"},
				},
			}
			for _, lc := range acctest.ListedIn(mode) {
				if lc.Conflict == "" {
					continue // taken over wherever it is found
				}
				o := acctest.ListedObject{Key: lc.Key(lc.Written)}
				rows = append(rows, conflict{
					exists: func() error { return lc.Make(c, s, o) },
					config: env.Resource(lc.TypeName, "test", lc.Args(o)...),
					want:   []string{acctest.WithKey(lc.Conflict, o.Key), why, "terraform import", at + "/" + o.Key},
				})
			}
			var steps []resource.TestStep
			for _, row := range rows {
				if row.exists != nil {
					env.Must(row.exists())
				}
				steps = append(steps, resource.TestStep{Config: env.Config(row.config), ExpectError: acctest.MatchInOrder(row.want...)})
			}
			resource.ParallelTest(t, env.TestCase(steps...))
		})
	}
}

// The Stack Auth-only resources refuse a Better Auth integration: at plan
// when the configuration names it, at apply when the branch has it, saying
// what a Better Auth integration offers instead.
func TestAccNotForBetterAuth(t *testing.T) {
	// The production branch, the only one these resources may name, with
	// better_auth, the branch API's default.
	env := acctest.NewProjectEnv(t)
	env.Mode = authAPIBranch
	env.EnableAuth()
	var steps []resource.TestStep
	for _, row := range []struct {
		typeName string
		explains string // what the error says of Better Auth
	}{
		{typeName: "neon_auth_ownership_transfer", explains: "Better Auth integrations"},
		{typeName: "neon_auth_sdk_keys", explains: "Better Auth integrations have no SDK keys"},
	} {
		explained := acctest.MatchInOrder("works only for a Stack Auth (`stack`) integration on the project's production branch",
			row.explains, "`base_url`", "`jwks_url`")
		steps = append(steps,
			resource.TestStep{Config: env.Config(env.Resource(row.typeName, "test", `auth_provider = "better_auth"`)), PlanOnly: true, ExpectError: explained},
			resource.TestStep{Config: env.Config(env.Resource(row.typeName, "test")), ExpectError: explained},
		)
	}
	resource.ParallelTest(t, env.TestCase(steps...))
}

// lostCreate is a resource whose create request loses its first answer.
type lostCreate struct {
	name string
	// paths are the API families the row runs in, each with the end of the
	// path of its create request; applied: the emulator applied the request
	// whose answer was lost.
	paths   map[string]string
	applied bool
	setup   func(env *acctest.Env) // before Terraform; nil: nothing
	config  func(env *acctest.Env) string
	// refused: the first apply fails so, without sending the create again
	// (nil: it succeeds).
	refused func(env *acctest.Env) *regexp.Regexp
	// sends is how many create requests the first apply sends.
	sends int32
	// holds checks the state and the emulator after the apply that creates.
	// With refused set, that is a second apply, which sends one more
	// create; nil holds means there is no such apply (then says what follows).
	holds func(env *acctest.Env) []statecheck.StateCheck
	// then are the steps that follow.
	then      func(t *testing.T, env *acctest.Env, cfg string, posts *atomic.Int32) []resource.TestStep
	destroyed func(env *acctest.Env) resource.TestCheckFunc
}

// lostListedCreate is the row of a list-backed type: its create, with its
// richest variant (an OAuth provider's own app and its secret), is
// recovered by reading the object back, with what the configuration gave
// that no endpoint returns, and destroy deletes it.
func lostListedCreate(c acctest.ListedCase) lostCreate {
	o := acctest.ListedObject{Key: c.Key(c.Written), Variant: len(c.Variants) - 1}
	paths := map[string]string{}
	for _, mode := range acctest.Modes {
		if slices.ContainsFunc(acctest.ListedIn(mode), func(in acctest.ListedCase) bool { return in.TypeName == c.TypeName }) {
			paths[mode] = "/auth/" + c.Path
		}
	}
	return lostCreate{
		name: c.TypeName + " recovered", paths: paths, applied: true,
		setup:  func(env *acctest.Env) { env.EnableAuth() },
		config: func(env *acctest.Env) string { return env.Resource(c.TypeName, "test", c.Args(o)...) },
		sends:  1,
		holds: func(env *acctest.Env) []statecheck.StateCheck {
			checks := []statecheck.StateCheck{env.ExpectListed(c, o), env.ExpectStored(c, o)}
			for name, v := range c.FieldsOf(o, false) {
				checks = append(checks, statecheck.ExpectKnownValue(c.TypeName+".test", tfjsonpath.New(name), knownvalue.StringExact(fmt.Sprint(v))))
			}
			return checks
		},
		destroyed: func(env *acctest.Env) resource.TestCheckFunc {
			return env.Destroyed(acctest.AuthKept, env.ExpectListed(c))
		},
	}
}

// A create whose answer is lost in transit, resource by resource: what can be
// read back is recovered without a second object; what can be sent again
// harmlessly is sent again; what can be neither is not sent again, and the
// error says how to find out and import it.
func TestAccLostCreateResponse(t *testing.T) {
	const email, userAt, transferAt = "seed@example.com", "neon_auth_user.test", "neon_auth_ownership_transfer.test"
	// lose drops the connection of the first POST to a path ending in
	// suffix once armed (the row's setup done), after the emulator applied
	// it when applied is set; posts counts those POSTs.
	lose := func(suffix string, applied bool, armed *atomic.Bool, posts *atomic.Int32) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !armed.Load() || r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, suffix) || posts.Add(1) != 1 {
					next.ServeHTTP(w, r)
					return
				}
				if applied {
					next.ServeHTTP(httptest.NewRecorder(), r)
				}
				if hj, ok := w.(http.Hijacker); ok {
					if conn, _, err := hj.Hijack(); err == nil {
						_ = conn.Close()
					}
				}
			})
		}
	}
	postsSoFar := func(t *testing.T, posts *atomic.Int32, want int32) func() {
		return func() {
			t.Helper()
			if n := posts.Load(); n != want {
				t.Fatalf("%d create requests so far, want %d", n, want)
			}
		}
	}
	// withUser is an integration and its user, with more arguments.
	withUser := func(env *acctest.Env, args ...string) string {
		return env.Resource("neon_auth_integration", "test") +
			env.Resource("neon_auth_user", "test", append([]string{fmt.Sprintf("email = %q", email), "depends_on = [neon_auth_integration.test]"}, args...)...)
	}
	outcomeUnknown := func(env *acctest.Env) *regexp.Regexp {
		return acctest.MatchInOrder("The response was lost in transit, so the user may or may not have been created",
			"the request was not sent again, since no endpoint can read a user back",
			"Run apply again: if it then fails because the email already exists, the user was created",
			"SELECT id FROM <schema_name>.users_sync WHERE email = '"+email+"'",
			"terraform import", env.ProjectID+"/"+env.BranchID+"/<user_id>")
	}
	// userRow checks that users_sync holds exactly one row, the user in
	// the state, with the email and name.
	userRow := func(env *acctest.Env, name string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(userAt, tfjsonpath.New("user_id"), knownvalue.StringFunc(func(id string) error {
			rows := env.Emu.UsersSync(env.ProjectID)
			if len(rows) != 1 || rows[0].ID != id || rows[0].Email != email || rows[0].Name != name {
				return fmt.Errorf("users_sync holds %+v, want one row {id %q (from state), email %q, name %q}", rows, id, email, name)
			}
			return nil
		}))
	}
	users := map[string]string{authAPIProject: "/projects/auth/user", authAPIBranch: "/auth/users"}
	var listed []lostCreate
	for _, c := range acctest.ListedCases {
		listed = append(listed, lostListedCreate(c))
	}
	for _, row := range append(listed, []lostCreate{
		{
			// The lost answer may have been the 409 of a branch that had
			// Neon Auth: on a preview whose parent has it, the integration
			// is taken over as inherited, and destroy keeps it.
			name: "neon_auth_integration on a preview taken over", paths: map[string]string{authAPIBranch: "/auth"}, applied: true,
			setup: func(env *acctest.Env) {
				env.EnableAuth()
				env.BranchID = env.ChildBranch("preview")
			},
			config: func(env *acctest.Env) string {
				return env.Resource("neon_auth_integration", "test", `name = "Preview"`)
			},
			sends: 1,
			holds: func(env *acctest.Env) []statecheck.StateCheck {
				return []statecheck.StateCheck{statecheck.ExpectKnownValue("neon_auth_integration.test", tfjsonpath.New("name"), knownvalue.StringExact("Preview"))}
			},
			destroyed: func(env *acctest.Env) resource.TestCheckFunc {
				return env.Destroyed(acctest.AuthKept, func() error {
					if it := env.Integration(); apiclient.Deref(it.Name) == "Preview" {
						return fmt.Errorf("destroy left the preview's integration named %q, want the inherited name restored", "Preview")
					}
					return nil
				})
			},
		},
		{
			name: "neon_auth_ownership_transfer sent again", paths: map[string]string{authAPIProject: "/projects/auth/transfer_ownership"}, applied: true,
			config: func(env *acctest.Env) string {
				return env.Resource("neon_auth_integration", "test", `auth_provider = "stack"`) +
					env.Resource("neon_auth_ownership_transfer", "test", "depends_on = [neon_auth_integration.test]")
			},
			sends: 2, // starting a transfer again is harmless
			holds: func(*acctest.Env) []statecheck.StateCheck {
				return []statecheck.StateCheck{
					statecheck.ExpectKnownValue(transferAt, tfjsonpath.New("owned_by"), knownvalue.StringExact("neon")),
					statecheck.ExpectKnownValue(transferAt, tfjsonpath.New("transferred"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("neon_auth_integration.test", tfjsonpath.New("owned_by"), knownvalue.StringExact("neon")),
					statecheck.ExpectKnownValue(transferAt, tfjsonpath.New("url"), knownvalue.StringRegexp(regexp.MustCompile(`^https://`))),
				}
			},
			then: func(t *testing.T, env *acctest.Env, _ string, _ *atomic.Int32) []resource.TestStep {
				// The recorded platform owner is right: a confirmation shows as usual.
				return []resource.TestStep{{
					PreConfig: func() {
						if err := env.Emu.ConfirmTransfer(env.ProjectID, "stack"); err != nil {
							t.Fatal(err)
						}
					},
					RefreshState: true,
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr(transferAt, "owned_by", "user"),
						resource.TestCheckResourceAttr(transferAt, "transferred", "true"),
						resource.TestCheckResourceAttr("neon_auth_integration.test", "owned_by", "user"),
					),
				}}
			},
		},
		{
			name: "neon_auth_sdk_keys not sent again", paths: map[string]string{authAPIProject: "/projects/auth/keys"}, applied: true,
			setup:  func(env *acctest.Env) { env.EnableAuth(apiclient.AuthProviderStack) },
			config: func(env *acctest.Env) string { return env.Resource("neon_auth_sdk_keys", "test") },
			refused: func(*acctest.Env) *regexp.Regexp {
				return acctest.MatchInOrder("Unable to Create Auth SDK Keys", "A key pair may have been minted that no one has seen", "Run apply again")
			},
			sends: 1,
			holds: func(*acctest.Env) []statecheck.StateCheck {
				return []statecheck.StateCheck{statecheck.ExpectKnownValue("neon_auth_sdk_keys.test", tfjsonpath.New("secret_server_key"), knownvalue.NotNull())}
			},
		},
		{
			name: "neon_auth_user not applied, not sent again", paths: users,
			config:  func(env *acctest.Env) string { return withUser(env) },
			refused: outcomeUnknown,
			sends:   1,
			holds:   func(env *acctest.Env) []statecheck.StateCheck { return []statecheck.StateCheck{userRow(env, "")} },
		},
		{
			name: "neon_auth_user applied, not sent again", paths: users, applied: true,
			config:  func(env *acctest.Env) string { return withUser(env, `name = "Seed"`) },
			refused: outcomeUnknown,
			sends:   1,
			// The next apply finds the email taken, exactly one user
			// exists, and the fix the error describes (import, then apply)
			// takes it in.
			then: func(t *testing.T, env *acctest.Env, cfg string, posts *atomic.Int32) []resource.TestStep {
				return []resource.TestStep{
					{
						PreConfig: postsSoFar(t, posts, 1),
						Config:    cfg,
						ExpectError: acctest.MatchInOrder("A user with this email already exists",
							"SELECT id FROM <schema_name>.users_sync WHERE email = '"+email+"'",
							"terraform import", env.ProjectID+"/"+env.BranchID+"/<user_id>"),
					},
					{
						PreConfig: func() {
							postsSoFar(t, posts, 2)()
							if rows := env.Emu.UsersSync(env.ProjectID); len(rows) != 1 || rows[0].Email != email {
								t.Fatalf("users_sync = %+v, want the one user of the lost response", rows)
							}
						},
						Config:             cfg,
						ResourceName:       userAt,
						ImportState:        true,
						ImportStatePersist: true,
						ImportStateIdFunc: func(*terraform.State) (string, error) {
							return env.ProjectID + "/" + env.Emu.UsersSync(env.ProjectID)[0].ID, nil
						},
					},
					{
						Config:            cfg,
						ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(userAt, plancheck.ResourceActionUpdate)}},
						ConfigStateChecks: []statecheck.StateCheck{userRow(env, "Seed")},
					},
				}
			},
			destroyed: func(env *acctest.Env) resource.TestCheckFunc {
				return func(*terraform.State) error {
					if n, m := len(env.Emu.UsersSync(env.ProjectID)), len(env.Emu.Integrations(env.ProjectID)); n != 0 || m != 0 {
						return fmt.Errorf("destroy left %d row(s) in users_sync and %d integration(s)", n, m)
					}
					return nil
				}
			},
		},
	}...) {
		t.Run(row.name, func(t *testing.T) {
			for _, mode := range slices.Sorted(maps.Keys(row.paths)) {
				t.Run(mode, func(t *testing.T) {
					var posts atomic.Int32
					var armed atomic.Bool
					env := acctest.NewEmulatorEnv(t, "it loses the answer to a create", lose(row.paths[mode], row.applied, &armed, &posts))
					env.Mode = mode
					if row.setup != nil {
						row.setup(env)
					}
					armed.Store(true)
					cfg := env.Config(row.config(env))
					sent := func(want int32) statecheck.StateCheck {
						return acctest.APICheck(func() error {
							if n := posts.Load(); n != want {
								return fmt.Errorf("%d create requests, want %d", n, want)
							}
							return nil
						})
					}
					var steps []resource.TestStep
					switch {
					case row.refused == nil:
						steps = append(steps, resource.TestStep{Config: cfg, ConfigStateChecks: append(row.holds(env), sent(row.sends))})
					case row.holds != nil:
						steps = append(steps, resource.TestStep{Config: cfg, ExpectError: row.refused(env)},
							resource.TestStep{PreConfig: postsSoFar(t, &posts, row.sends), Config: cfg,
								ConfigStateChecks: append(row.holds(env), sent(row.sends+1))})
					default:
						steps = append(steps, resource.TestStep{Config: cfg, ExpectError: row.refused(env)})
					}
					if row.then != nil {
						steps = append(steps, row.then(t, env, cfg, &posts)...)
					}
					tc := env.TestCase(steps...)
					if row.destroyed != nil {
						tc.CheckDestroy = row.destroyed(env)
					}
					resource.ParallelTest(t, tc)
				})
			}
		})
	}
}
