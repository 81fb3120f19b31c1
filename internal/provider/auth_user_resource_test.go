package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
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
)

const userAddr = "neon_auth_user.test"

// expectUserRow checks that the emulator's users_sync table holds exactly one
// row, the user in Terraform's state: same id, with the given email and name.
type expectUserRow struct {
	env         *acctest.Env
	email, name string
}

func (c expectUserRow) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	id := ""
	if req.State != nil && req.State.Values != nil && req.State.Values.RootModule != nil {
		for _, r := range req.State.Values.RootModule.Resources {
			if r.Address == userAddr {
				id, _ = r.AttributeValues["user_id"].(string)
			}
		}
	}
	if id == "" {
		resp.Error = fmt.Errorf("no user_id of %s in state", userAddr)
		return
	}
	rows := c.env.Emu.UsersSync(c.env.ProjectID)
	if len(rows) != 1 {
		resp.Error = fmt.Errorf("users_sync has %d rows (%+v), want exactly the user in state (%s)", len(rows), rows, id)
		return
	}
	if r := rows[0]; r.ID != id || r.Email != c.email || r.Name != c.name {
		resp.Error = fmt.Errorf("users_sync row = {id %q, email %q, name %q}, want {id %q (from state), email %q, name %q}",
			r.ID, r.Email, r.Name, id, c.email, c.name)
	}
}

// expectUser checks whether the test's branch has a user with the email (no
// endpoint reads users: env.userExists asks by creating one).
func expectUser(env *acctest.Env, email string, exists bool) acctest.APICheck {
	return func() error {
		if env.Integration() == nil {
			return fmt.Errorf("the branch has no Neon Auth, so no user %s", email)
		}
		if got := env.UserExists(email); got != exists {
			return fmt.Errorf("the branch has a user %s: %v, want %v", email, got, exists)
		}
		return nil
	}
}

// A user's life: create, import, every change of an input replaces it (a
// new user, with a new id; the old one goes), removal from the
// configuration deletes it while the integration stays, and an integration
// deleted behind Terraform's back takes the user with it.
func TestAccAuthUser_lifecycle(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		const email1, email2 = "seed@example.com", "service@example.com"
		integration := env.Resource("neon_auth_integration", "test")
		cfg := func(email string, args ...string) string {
			return env.Config(integration + env.Resource("neon_auth_user", "test",
				append([]string{"email = " + strconv.Quote(email), "depends_on = [neon_auth_integration.test]"}, args...)...))
		}
		newUser := statecheck.CompareValue(compare.ValuesDiffer())
		userID := tfjsonpath.New("user_id")
		replaced := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionDestroyBeforeCreate),
		}}
		tc := env.TestCase(
			resource.TestStep{
				Config: cfg(email1, `name = "Seed User"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectUnknownValue(userAddr, tfjsonpath.New("id")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("id"),
						knownvalue.StringRegexp(regexp.MustCompile(`^`+regexp.QuoteMeta(env.ProjectID+"/"+env.BranchID+"/")+`[^/]+$`))),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("project_id"), knownvalue.StringExact(env.ProjectID)),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("auth_provider"), knownvalue.StringExact(env.AuthProvider())),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("branch_id"), knownvalue.StringExact(env.BranchID)),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("email"), knownvalue.StringExact(email1)),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("name"), knownvalue.StringExact("Seed User")),
					newUser.AddStateValue(userAddr, userID),
					expectUser(env, email1, true),
				},
			},
			resource.TestStep{
				ResourceName:      userAddr,
				ImportState:       true,
				ImportStateVerify: true,
				// The API has no endpoint to read a user: email and name cannot
				// be known after an import (null until the configuration
				// supplies them, see TestAccAuthUser_importFillsInConfiguration).
				ImportStateVerifyIgnore: []string{"email", "name"},
			},
			resource.TestStep{
				// A new name is a new user: the API cannot update users.
				Config:            cfg(email1, `name = "Renamed User"`),
				ConfigPlanChecks:  replaced,
				ConfigStateChecks: []statecheck.StateCheck{newUser.AddStateValue(userAddr, userID), expectUser(env, email1, true)},
			},
			resource.TestStep{
				Config:           cfg(email2, `name = "Renamed User"`),
				ConfigPlanChecks: replaced,
				ConfigStateChecks: []statecheck.StateCheck{
					newUser.AddStateValue(userAddr, userID), expectUser(env, email2, true), expectUser(env, email1, false),
				},
			},
			resource.TestStep{
				// Removing the optional name is a change too.
				Config:           cfg(email2),
				ConfigPlanChecks: replaced,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("name"), knownvalue.Null()),
					newUser.AddStateValue(userAddr, userID),
					expectUser(env, email2, true),
				},
			},
			resource.TestStep{
				// Destroying the user alone deletes it; the integration stays.
				Config: env.Config(integration),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionDestroy),
					plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectUser(env, email2, false)},
			},
			resource.TestStep{
				Config:            cfg(email1, `name = "Seed User"`),
				ConfigStateChecks: []statecheck.StateCheck{newUser.AddStateValue(userAddr, userID), expectUser(env, email1, true)},
			},
			resource.TestStep{
				// Drift: the integration is deleted behind Terraform's back.
				// It leaves the state on refresh and is planned again; whether
				// its users survive is not known (Neon keeps them unless
				// delete_data is set), so the user is planned to be confirmed:
				// created again, or kept if the API says it exists.
				PreConfig: func() {
					env.Must(env.Client().DeleteIntegration(context.Background(), env.Scope(), env.AuthProvider(), false))
				},
				Config: cfg(email1, `name = "Seed User"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(userAddr, userID),
				}},
				ConfigStateChecks: append(onTheEmulator(env,
					// The emulator keeps nothing of a disabled integration.
					newUser.AddStateValue(userAddr, userID)), expectUser(env, email1, true)),
			},
			resource.TestStep{
				Config:           cfg(email1, `name = "Seed User"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		)
		tc.CheckDestroy = env.Destroyed(acctest.AuthGone)
		resource.ParallelTest(t, tc)
	})
}

// After an import, email and name are unknown (the API cannot read a user).
// The first apply fills in the configured values in place, with no API call:
// the same user, with the same id, stays; from then on a change replaces the
// user as usual.
func TestAccAuthUser_importFillsInConfiguration(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		const email, name = "ops@example.com", "Ops Bot"
		var userID string
		env.EnableAuth()
		cfg := func(name string) string {
			return env.Config(env.Resource("neon_auth_user", "test", "email = "+strconv.Quote(email), "name = "+strconv.Quote(name)))
		}
		sameUser := func(same bool) statecheck.StateCheck {
			return statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("user_id"), knownvalue.StringFunc(func(got string) error {
				if (got == userID) != same {
					return fmt.Errorf("user_id %q, the imported user %q: same = %v, want %v", got, userID, got == userID, same)
				}
				return nil
			}))
		}
		tc := env.TestCase(
			resource.TestStep{
				PreConfig: func() {
					u, err := env.Client().CreateUser(context.Background(), env.Scope(), apiclient.CreateUserRequest{
						AuthProvider: env.AuthProvider(), Email: email, Name: name,
					})
					env.Must(err)
					userID = u.ID
				},
				Config:             cfg(name),
				ResourceName:       userAddr,
				ImportState:        true,
				ImportStatePersist: true,
				ImportStateIdFunc: func(*terraform.State) (string, error) {
					if env.Mode == authAPIProject {
						// The test's branch is the production branch, which
						// the short id means.
						return env.ProjectID + "/" + userID, nil
					}
					return env.ProjectID + "/" + env.BranchID + "/" + userID, nil
				},
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 || states[0].Attributes["user_id"] != userID {
						return fmt.Errorf("imported %d states, want the one user %s", len(states), userID)
					}
					if a := states[0].Attributes; a["email"] != "" || a["name"] != "" || a["project_id"] != env.ProjectID {
						return fmt.Errorf("after import email/name/project_id = %q/%q/%q, want null/null/%s", a["email"], a["name"], a["project_id"], env.ProjectID)
					}
					if want := env.ProjectID + "/" + env.BranchID + "/" + userID; states[0].ID != want {
						return fmt.Errorf("after import id = %q, want %q", states[0].ID, want)
					}
					return nil
				},
			},
			resource.TestStep{
				// Filling in creates no user (the email is taken: a create would
				// fail) and deletes none (the imported one stays, same id).
				Config: cfg(name),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("email"), knownvalue.StringExact(email)),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("name"), knownvalue.StringExact(name)),
					sameUser(true),
					expectUser(env, email, true),
				},
			},
			resource.TestStep{
				// Filled in: a change now replaces the user.
				Config: cfg("Ops Robot"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{sameUser(false), expectUser(env, email, true)},
			},
			resource.TestStep{
				ResourceName:  userAddr,
				ImportState:   true,
				ImportStateId: env.ProjectID,
				ExpectError:   acctest.MatchInOrder("Expected `<project_id>/<branch_id>/<user_id>` or `<project_id>/<user_id>` (without a branch id: the production branch)"),
			},
		)
		tc.CheckDestroy = env.Destroyed(acctest.AuthKept, expectUser(env, email, false))
		resource.ParallelTest(t, tc)
	})
}

// What the provider cannot see: with no read endpoint, a user deleted behind
// Terraform's back while the integration exists goes unnoticed (the plan
// stays empty, as documented). Destroying it then succeeds: the delete meets
// a 404 (see TestAccAuthUser_deletedOutOfBandDeleteAnswers404), which is
// success because the integration is there: the missing thing is the user.
func TestAccAuthUser_deletedOutOfBand(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		env.EnableAuth()
		user := env.Resource("neon_auth_user", "test", `email = "gone@example.com"`)
		var userID string
		tc := env.TestCase(
			resource.TestStep{
				Config: env.Config(user),
				Check: func(s *terraform.State) error {
					userID = s.RootModule().Resources[userAddr].Primary.Attributes["user_id"]
					return nil
				},
			},
			resource.TestStep{
				PreConfig: func() { env.Must(env.Client().DeleteUser(context.Background(), env.Scope(), userID)) },
				Config:    env.Config(user),
				PlanOnly:  true, // an empty plan: not detectable
			},
		)
		tc.CheckDestroy = env.Destroyed(acctest.AuthKept, expectUser(env, "gone@example.com", false))
		resource.ParallelTest(t, tc)
	})
}

// The destroy of a user deleted behind Terraform's back sends one delete,
// answered 404, and takes that as done.
func TestAccAuthUser_deletedOutOfBandDeleteAnswers404(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			env := acctest.NewEmulatorEnv(t, "it counts the answers to user deletions", nil)
			env.Mode = mode
			env.EnableAuth()
			user := env.Resource("neon_auth_user", "test", `email = "gone@example.com"`)
			const del = "DELETE /auth/users/{auth_user_id}"
			tc := env.TestCase(
				resource.TestStep{Config: env.Config(user)},
				resource.TestStep{
					PreConfig: func() {
						// Behind the API, so that only the provider's delete counts.
						rows := env.Emu.UsersSync(env.ProjectID)
						if len(rows) != 1 {
							t.Fatalf("users_sync = %+v, want one row", rows)
						}
						env.Must(env.Emu.DeleteUser(env.ProjectID, rows[0].ID))
					},
					Config: env.Config(""),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionDestroy),
					}},
					ConfigStateChecks: []statecheck.StateCheck{acctest.APICheck(func() error {
						if n, all := env.RouteCount(del, http.StatusNotFound), env.RouteCount(del); n != 1 || all != 1 {
							return fmt.Errorf("%d user deletions, %d of them answered 404; want one, answered 404", all, n)
						}
						return nil
					})},
				},
			)
			tc.CheckDestroy = env.Destroyed(acctest.AuthKept)
			resource.ParallelTest(t, tc)
		})
	}
}

// An integration deleted and created again behind Terraform's back (a new
// auth_provider_project_id) may or may not have kept its users: Neon's docs
// say disabling keeps the data and enabling again restores it; a
// re-created Stack Auth integration is a new auth project. The user stays
// in state and is planned to be confirmed: the apply creates it again, and
// the emulator, which keeps nothing of a disabled integration, makes a new
// one. On a server that kept it (TestAccAuthUser_survivesTheRecreation)
// the same apply keeps it. Either way the next plan is empty.
func TestAccAuthUser_integrationRecreatedOutOfBand(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		cfg := env.Config(env.Resource("neon_auth_integration", "test") +
			env.Resource("neon_auth_user", "test", `email = "seed@example.com"`, `name = "Seed"`, "depends_on = [neon_auth_integration.test]"))
		newUser := statecheck.CompareValue(compare.ValuesDiffer())
		resource.ParallelTest(t, env.TestCase(
			resource.TestStep{Config: cfg, ConfigStateChecks: []statecheck.StateCheck{newUser.AddStateValue(userAddr, tfjsonpath.New("user_id"))}},
			resource.TestStep{
				PreConfig: env.RecreateAuth,
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					// An integration re-created under the same auth project
					// id leaves the user as it was: no change.
					actionIn(env, userAddr, plancheck.ResourceActionUpdate, plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: append(onTheEmulator(env, newUser.AddStateValue(userAddr, tfjsonpath.New("user_id"))),
					expectUser(env, "seed@example.com", true)),
			},
			resource.TestStep{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		))
	})
}

// A server that kept the user through its integration's re-creation
// answers the create of the same email with 409: the user is kept, with
// its id, and nothing is refused.
func TestAccAuthUser_survivesTheRecreation(t *testing.T) {
	var kept atomic.Bool // set once the integration was re-created: the server has kept the user
	env := acctest.NewEmulatorEnv(t, "it answers as a server that kept the user when its integration was re-created", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if kept.Load() && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/auth/users") {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusConflict)
				_, _ = w.Write([]byte(`{"code":"","message":"a user with this email already exists","request_id":"kept-user"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	env.Mode = authAPIBranch
	cfg := env.Config(env.Resource("neon_auth_integration", "test") +
		env.Resource("neon_auth_user", "test", `email = "seed@example.com"`, `roles = ["admin"]`, "depends_on = [neon_auth_integration.test]"))
	sameUser := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{Config: cfg, ConfigStateChecks: []statecheck.StateCheck{sameUser.AddStateValue(userAddr, tfjsonpath.New("user_id"))}},
		resource.TestStep{
			PreConfig: func() { env.RecreateAuth(); kept.Store(true) },
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue(userAddr, tfjsonpath.New("user_id")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				sameUser.AddStateValue(userAddr, tfjsonpath.New("user_id")),
				statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("roles"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("admin")})),
			},
		},
		resource.TestStep{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
	))
}

// Roles (branch mode): set after the user is created, changed in place,
// never read back (an import cannot verify them); removing them from the
// configuration is an update too, and the user stays the same.
func TestAccAuthUser_roles(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	env.EnableAuth()
	const email = "admin@example.com"
	cfg := func(args ...string) string {
		return env.Config(env.Resource("neon_auth_user", "test", append([]string{"email = " + strconv.Quote(email)}, args...)...))
	}
	sameUser := statecheck.CompareValue(compare.ValuesSame())
	tc := env.TestCase(
		resource.TestStep{
			Config: cfg(`roles = ["admin"]`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("roles"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("admin")})),
				sameUser.AddStateValue(userAddr, tfjsonpath.New("user_id")),
				expectUser(env, email, true),
			},
		},
		resource.TestStep{
			// The API accepts the new roles for the same user.
			Config: cfg(`roles = ["admin", "billing"]`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("roles"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("admin"), knownvalue.StringExact("billing")})),
				sameUser.AddStateValue(userAddr, tfjsonpath.New("user_id")),
			},
		},
		resource.TestStep{ResourceName: userAddr, ImportState: true, ImportStateVerify: true,
			// The API has no endpoint to read a user.
			ImportStateVerifyIgnore: []string{"email", "name", "roles"}},
		resource.TestStep{
			Config: cfg(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("roles"), knownvalue.Null()),
				sameUser.AddStateValue(userAddr, tfjsonpath.New("user_id")),
				expectUser(env, email, true),
			},
		},
	)
	tc.CheckDestroy = env.Destroyed(acctest.AuthKept, expectUser(env, email, false))
	resource.ParallelTest(t, tc)
}

// What the API sends of a user lands at the auth provider: its users_sync
// row holds exactly the user in state, with the configured email and name;
// a new name replaces the row; roles are set after the create, changed in
// place, and stay as they are when removed from the configuration.
func TestAccAuthUser_usersSyncRowAndRoles(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "no endpoint reads a user: its users_sync row (the name) and its roles show only on the emulator", nil)
	env.Mode = authAPIBranch
	env.EnableAuth()
	const email = "admin@example.com"
	cfg := func(args ...string) string {
		return env.Config(env.Resource("neon_auth_user", "test", append([]string{"email = " + strconv.Quote(email)}, args...)...))
	}
	rolesAre := func(want ...string) acctest.APICheck {
		return func() error {
			rows := env.Emu.UsersSync(env.ProjectID)
			if len(rows) != 1 || !slices.Equal(rows[0].Roles, want) {
				return fmt.Errorf("users_sync = %+v, want one user with roles %q", rows, want)
			}
			return nil
		}
	}
	updated := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate)}}
	replaced := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionDestroyBeforeCreate)}}
	tc := env.TestCase(
		resource.TestStep{
			Config:            cfg(`name = "Admin"`, `roles = ["admin"]`),
			ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, email, "Admin"}, rolesAre("admin")},
		},
		resource.TestStep{
			Config:            cfg(`name = "Admin"`, `roles = ["admin", "billing"]`),
			ConfigPlanChecks:  updated,
			ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, email, "Admin"}, rolesAre("admin", "billing")},
		},
		resource.TestStep{
			Config:            cfg(`name = "Admin"`),
			ConfigPlanChecks:  updated,
			ConfigStateChecks: []statecheck.StateCheck{rolesAre("admin", "billing")},
		},
		resource.TestStep{
			// A new user: the old row goes, the new one has no roles.
			Config:            cfg(`name = "Renamed"`),
			ConfigPlanChecks:  replaced,
			ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, email, "Renamed"}, rolesAre()},
		},
		resource.TestStep{
			Config:            cfg(),
			ConfigPlanChecks:  replaced,
			ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, email, ""}},
		},
	)
	tc.CheckDestroy = env.Destroyed(acctest.AuthKept, func() error {
		if rows := env.Emu.UsersSync(env.ProjectID); len(rows) != 0 {
			return fmt.Errorf("destroy left users_sync rows %+v", rows)
		}
		return nil
	})
	resource.ParallelTest(t, tc)
}
