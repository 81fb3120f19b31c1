package provider

import (
	"context"
	"fmt"
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

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

const userAddr = "neon_auth_user.test"

// userRoutes are the routes that create and delete users in env's family.
func (e *accEnv) userRoutes() (create, del string) {
	create = "POST /projects/auth/user"
	if e.Mode == authAPIBranch {
		create = e.authRoute("POST", "/users")
	}
	return create, e.authRoute("DELETE", "/users/{auth_user_id}")
}

// userConfig is an integration and a user under it; the user takes its
// project_id from the integration so that Terraform orders them.
func userConfig(projectID, email, extra string) string {
	return integrationConfig(projectID, "") + fmt.Sprintf(`
resource "neon_auth_user" "test" {
  project_id = neon_auth_integration.test.project_id
  email      = %[1]q
%[2]s
}
`, email, extra)
}

func nameLine(name string) string { return fmt.Sprintf("  name = %q", name) }

// expectUserRow checks that the emulator's users_sync table holds exactly one
// row, the user in Terraform's state: same id, with the given email and name.
type expectUserRow struct {
	env         *accEnv
	email, name string
}

func (c expectUserRow) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	id, err := stateString(req, userAddr, "user_id")
	if err != nil {
		resp.Error = err
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

// stateString reads a string attribute of a resource from Terraform's state.
func stateString(req statecheck.CheckStateRequest, address, attr string) (string, error) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		return "", fmt.Errorf("no state to check")
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address == address {
			s, ok := r.AttributeValues[attr].(string)
			if !ok {
				return "", fmt.Errorf("%s.%s is %v, not a string", address, attr, r.AttributeValues[attr])
			}
			return s, nil
		}
	}
	return "", fmt.Errorf("resource %s not in state", address)
}

// userImportID is the user's id in state, `<project_id>/<branch_id>/<user_id>`:
// the id it is imported by.
func userImportID(s *terraform.State) (string, error) {
	rs, ok := s.RootModule().Resources[userAddr]
	if !ok {
		return "", fmt.Errorf("%s not in state", userAddr)
	}
	return rs.Primary.ID, nil
}

// checkUsersAndIntegrationsGone is CheckDestroy: nothing left on the emulator.
func checkUsersAndIntegrationsGone(env *accEnv) func(*terraform.State) error {
	return func(*terraform.State) error {
		if n := len(env.Emu.UsersSync(env.ProjectID)); n != 0 {
			return fmt.Errorf("destroy left %d row(s) in users_sync", n)
		}
		if n := len(env.Emu.Integrations(env.ProjectID)); n != 0 {
			return fmt.Errorf("destroy left %d integration(s)", n)
		}
		return nil
	}
}

// A user's life: create (the row appears in users_sync), import, every
// change of an input replaces it (the old row goes), removal from the
// configuration deletes it while the integration stays, and an integration
// deleted behind Terraform's back takes the user with it.
func TestAccAuthUser_lifecycle(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		const email1, email2 = "seed@example.com", "service@example.com"
		const name1, name2 = "Seed User", "Renamed User"

		tc := env.testCase(
			resource.TestStep{
				Config: env.config(userConfig(env.ProjectID, email1, nameLine(name1))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectUnknownValue(userAddr, tfjsonpath.New("id")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("id"),
						knownvalue.StringRegexp(regexp.MustCompile(`^`+regexp.QuoteMeta(env.ProjectID+"/"+env.branch()+"/")+`[0-9a-f-]{36}$`))),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("project_id"), knownvalue.StringExact(env.ProjectID)),
					expectValue(userAddr, "auth_provider", stringExact(env.authProvider())),
					expectValue(userAddr, "branch_id", stringExact(env.branch())),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("email"), knownvalue.StringExact(email1)),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("name"), knownvalue.StringExact(name1)),
					expectUserRow{env, email1, name1},
				},
			},
			resource.TestStep{
				ResourceName:      userAddr,
				ImportState:       true,
				ImportStateIdFunc: userImportID,
				ImportStateVerify: true,
				// The API has no endpoint to read a user: email and name cannot
				// be known after an import (null until the configuration
				// supplies them, see TestAccAuthUser_importAdoptsConfiguration).
				ImportStateVerifyIgnore: []string{"email", "name"},
			},
			resource.TestStep{
				// A new name is a new user: the API cannot update users.
				Config: env.config(userConfig(env.ProjectID, email1, nameLine(name2))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, email1, name2}},
			},
			resource.TestStep{
				Config: env.config(userConfig(env.ProjectID, email2, nameLine(name2))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, email2, name2}},
			},
			resource.TestStep{
				// Removing the optional name is a change too.
				Config: env.config(userConfig(env.ProjectID, email2, "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("name"), knownvalue.Null()),
					expectUserRow{env, email2, ""},
				},
			},
			resource.TestStep{
				// Destroying the user alone deletes its row; the integration stays.
				Config:           env.config(integrationConfig(env.ProjectID, "")),
				ConfigPlanChecks: expectActionKeepingIntegration(userAddr, plancheck.ResourceActionDestroy),
				ConfigStateChecks: []statecheck.StateCheck{apiCheck(func() error {
					if rows := env.Emu.UsersSync(env.ProjectID); len(rows) != 0 {
						return fmt.Errorf("users_sync still holds %+v after the user was destroyed", rows)
					}
					if n := len(env.Emu.Integrations(env.ProjectID)); n != 1 {
						return fmt.Errorf("the integration is gone too (%d listed)", n)
					}
					return nil
				})},
			},
			resource.TestStep{
				Config:            env.config(userConfig(env.ProjectID, email1, nameLine(name1))),
				ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, email1, name1}},
			},
			resource.TestStep{
				// Drift: the integration is deleted behind Terraform's back, and
				// its users with it. Both leave the state on refresh, and the
				// plan creates both again.
				PreConfig: func() {
					if err := env.Emu.DisableBranchAuth(env.ProjectID, env.branch()); err != nil {
						t.Fatal(err)
					}
				},
				Config: env.config(userConfig(env.ProjectID, email1, nameLine(name1))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, email1, name1}},
			},
		)
		tc.CheckDestroy = checkUsersAndIntegrationsGone(env)
		resource.ParallelTest(t, tc)
	})
}

// After an import, email and name are unknown (the API cannot read a user).
// The first apply adopts the configured values in place, with no API call;
// from then on a change replaces the user as usual.
func TestAccAuthUser_importAdoptsConfiguration(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		const email, name = "ops@example.com", "Ops Bot"
		var userID string
		cfg := env.config(userConfig(env.ProjectID, email, nameLine(name)))

		tc := env.testCase(
			resource.TestStep{Config: env.config(integrationConfig(env.ProjectID, ""))},
			resource.TestStep{
				PreConfig: func() {
					u, err := env.client().CreateUser(context.Background(), env.scope(), apiclient.CreateUserRequest{
						AuthProvider: env.authProvider(), Email: email, Name: name,
					})
					if err != nil {
						t.Fatal(err)
					}
					userID = u.ID
				},
				Config:             cfg,
				ResourceName:       userAddr,
				ImportState:        true,
				ImportStatePersist: true,
				ImportStateIdFunc:  func(*terraform.State) (string, error) { return env.ProjectID + "/" + userID, nil },
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					// The states of the whole configuration: find the user.
					// Imported by the short id, it gets the id that names the
					// production branch.
					for _, st := range states {
						if st.Attributes["user_id"] != userID {
							continue
						}
						if a := st.Attributes; a["email"] != "" || a["name"] != "" || a["project_id"] != env.ProjectID {
							return fmt.Errorf("after import email/name/project_id = %q/%q/%q, want null/null/%s", a["email"], a["name"], a["project_id"], env.ProjectID)
						}
						if want := env.ProjectID + "/" + env.branch() + "/" + userID; st.ID != want {
							return fmt.Errorf("after import id = %q, want %q", st.ID, want)
						}
						return nil
					}
					return fmt.Errorf("the user %s is not among the imported states", userID)
				},
			},
			resource.TestStep{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("email"), knownvalue.StringExact(email)),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("name"), knownvalue.StringExact(name)),
					expectUserRow{env, email, name},
					apiCheck(func() error {
						// Only the out-of-band create: adopting made no call.
						create, del := env.userRoutes()
						if n := env.routeCount(create); n != 1 {
							return fmt.Errorf("%d user creations, want 1 (adopting must not create)", n)
						}
						if n := env.routeCount(del); n != 0 {
							return fmt.Errorf("%d user deletions, want 0", n)
						}
						return nil
					}),
				},
			},
			resource.TestStep{
				// Adopted: a change now replaces the user.
				Config: env.config(userConfig(env.ProjectID, email, nameLine("Ops Robot"))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, email, "Ops Robot"}},
			},
			resource.TestStep{
				ResourceName:  userAddr,
				ImportState:   true,
				ImportStateId: env.ProjectID,
				ExpectError:   mustMatch("Expected `<project_id>/<branch_id>/<user_id>` or `<project_id>/<user_id>` (without a branch id: the production branch)"),
			},
		)
		tc.CheckDestroy = checkUsersAndIntegrationsGone(env)
		resource.ParallelTest(t, tc)
	})
}

// What the provider cannot see: with no read endpoint, a user deleted behind
// Terraform's back while the integration exists goes unnoticed (the plan
// stays empty, as documented). Destroying it then meets a 404, which is
// success because the integration list shows the project visible and the
// integration active: the missing thing is the user.
func TestAccAuthUser_deletedOutOfBand(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		cfg := env.config(userConfig(env.ProjectID, "gone@example.com", ""))
		tc := env.testCase(
			resource.TestStep{Config: cfg},
			resource.TestStep{
				PreConfig: func() {
					rows := env.Emu.UsersSync(env.ProjectID)
					if len(rows) != 1 {
						t.Fatalf("users_sync = %+v, want one row", rows)
					}
					if err := env.Emu.DeleteUser(env.ProjectID, rows[0].ID); err != nil {
						t.Fatal(err)
					}
				},
				Config:   cfg,
				PlanOnly: true, // an empty plan: not detectable
			},
			resource.TestStep{
				Config: env.config(integrationConfig(env.ProjectID, "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionDestroy),
				}},
				ConfigStateChecks: []statecheck.StateCheck{apiCheck(func() error {
					_, del := env.userRoutes()
					if got := env.Emu.Stats().Requests[del]; got[http.StatusNotFound] != 1 || len(got) != 1 {
						return fmt.Errorf("user deletions by status = %v, want one 404", got)
					}
					return nil
				})},
			},
		)
		tc.CheckDestroy = checkUsersAndIntegrationsGone(env)
		resource.ParallelTest(t, tc)
	})
}

// An integration deleted and created again behind Terraform's back is a new
// auth project without the old users: the user leaves the state (the
// integration's auth_provider_project_id no longer matches the one recorded
// at creation) and is created again.
func TestAccAuthUser_integrationRecreatedOutOfBand(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		cfg := env.config(userConfig(env.ProjectID, "seed@example.com", nameLine("Seed")))
		resource.ParallelTest(t, env.testCase(
			resource.TestStep{Config: cfg},
			resource.TestStep{
				PreConfig: func() { recreateIntegration(t, env) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, "seed@example.com", "Seed"}},
			},
		))
	})
}

// userCreateSuffix is the end of the path that creates users, per family.
var userCreateSuffix = map[string]string{authAPIProject: "/projects/auth/user", authAPIBranch: "/auth/users"}

// lostUserGuidance is what a create whose answer was lost says: the request
// was not sent again, and how to find out and adopt the user.
func lostUserGuidance(env *accEnv, email string) *regexp.Regexp {
	return matchInOrder("The response was lost in transit, so the user may or may not have been created",
		"the request was not sent again, since no endpoint can read a user back",
		"Run apply again: if it then fails because the email already exists, the user was created",
		"SELECT id FROM <schema_name>.users_sync WHERE email = '"+email+"'",
		"terraform import", env.ProjectID+"/"+env.branch()+"/<user_id>")
}

// expectPosts checks how many user creation requests were sent so far.
func expectPosts(t *testing.T, posts *atomic.Int32, want int32) func() {
	return func() {
		t.Helper()
		if n := posts.Load(); n != want {
			t.Fatalf("%d user creation requests so far, want %d", n, want)
		}
	}
}

// loseFirstResponse cuts the connection of the first POST to a path ending in
// suffix, before any response byte: after handing the request to the
// emulator when applied is true, without it otherwise. posts counts the
// POSTs to that path.
func loseFirstResponse(suffix string, applied bool, posts *atomic.Int32) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, suffix) || posts.Add(1) != 1 {
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

// Roles (branch mode): set after the user is created, changed in place,
// never read back (an import cannot verify them); removing them from the
// configuration leaves the user's roles as they are.
func TestAccAuthUser_roles(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	withRoles := func(roles string) string {
		return env.config(userConfig(env.ProjectID, "admin@example.com", "  roles = "+roles))
	}
	rolesAre := func(want ...string) apiCheck {
		return func() error {
			rows := env.Emu.UsersSync(env.ProjectID)
			if len(rows) != 1 || !slices.Equal(rows[0].Roles, want) {
				return fmt.Errorf("users_sync = %+v, want one user with roles %q", rows, want)
			}
			return nil
		}
	}
	tc := env.testCase(
		resource.TestStep{
			Config:            withRoles(`["admin"]`),
			ConfigStateChecks: []statecheck.StateCheck{rolesAre("admin"), expectValue(userAddr, "roles", knownvalue.ListExact([]knownvalue.Check{stringExact("admin")}))},
		},
		resource.TestStep{
			Config:            withRoles(`["admin", "billing"]`),
			ConfigPlanChecks:  expectPlannedAction(userAddr, plancheck.ResourceActionUpdate),
			ConfigStateChecks: []statecheck.StateCheck{rolesAre("admin", "billing")},
		},
		resource.TestStep{ResourceName: userAddr, ImportState: true, ImportStateIdFunc: userImportID, ImportStateVerify: true,
			// The API has no endpoint to read a user.
			ImportStateVerifyIgnore: []string{"email", "name", "roles"}},
		resource.TestStep{
			Config:            env.config(userConfig(env.ProjectID, "admin@example.com", "")),
			ConfigPlanChecks:  expectPlannedAction(userAddr, plancheck.ResourceActionUpdate),
			ConfigStateChecks: []statecheck.StateCheck{rolesAre("admin", "billing"), expectValue(userAddr, "roles", knownvalue.Null())},
		},
	)
	tc.CheckDestroy = checkUsersAndIntegrationsGone(env)
	resource.ParallelTest(t, tc)
}
