package provider

import (
	"context"
	"fmt"
	"regexp"
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
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// Scenarios that several resources share, one row per resource.

// A create that finds its object already there on the production branch
// fails with an error that says so, why it is not taken over (nothing on a
// root branch is inherited; project mode reaches nothing else), and gives
// the `terraform import` that adopts it, with the import id.
func TestAccConflictSuggestsImport(t *testing.T) {
	for _, row := range []struct {
		typeName string
		// before is a configuration applied first ("" for none); exists
		// then makes the object outside Terraform.
		before func(env *accEnv) string
		exists func(t *testing.T, env *accEnv)
		config func(env *accEnv) string
		// want are the parts of the error, in order.
		want func(env *accEnv) []string
	}{
		{
			typeName: "neon_auth_integration",
			exists:   withIntegration,
			config:   func(env *accEnv) string { return integrationConfig(env.ProjectID, "") },
			want: func(env *accEnv) []string {
				return []string{"already has Neon Auth", "terraform import", env.ProjectID + "/" + env.branch()}
			},
		},
		{
			typeName: "neon_auth_domain",
			exists: func(t *testing.T, env *accEnv) {
				withIntegration(t, env)
				if err := env.Emu.AddDomain(env.ProjectID, "https://app.example.com"); err != nil {
					t.Fatal(err)
				}
			},
			// Another spelling of the same origin.
			config: func(env *accEnv) string { return domainConfig(env.ProjectID, "https://APP.example.com") },
			want: func(env *accEnv) []string {
				return []string{"Unable to Create Auth Domain", "already whitelisted", "terraform import",
					env.ProjectID + "/" + env.branch() + "/https://app.example.com"}
			},
		},
		{
			typeName: "neon_auth_oauth_provider",
			exists: func(t *testing.T, env *accEnv) {
				withIntegration(t, env)
				if err := env.Emu.PutOAuthProvider(env.ProjectID, emulator.OAuthProvider{ID: "google"}); err != nil {
					t.Fatal(err)
				}
			},
			config: func(env *accEnv) string { return oauthConfig(env.ProjectID, "google", "") },
			want: func(env *accEnv) []string {
				return []string{"already has the google OAuth provider", "terraform import", env.ProjectID + "/" + env.branch() + "/google"}
			},
		},
		{
			typeName: "neon_auth_user",
			before:   func(env *accEnv) string { return integrationConfig(env.ProjectID, "") },
			exists: func(t *testing.T, env *accEnv) {
				if _, err := env.client().CreateUser(context.Background(), env.scope(), apiclient.CreateUserRequest{
					AuthProvider: env.authProvider(), Email: "taken@example.com",
				}); err != nil {
					t.Fatal(err)
				}
			},
			config: func(env *accEnv) string { return userConfig(env.ProjectID, "taken@example.com", "") },
			want: func(env *accEnv) []string {
				return []string{"A user with this email already exists",
					"SELECT id FROM <schema_name>.users_sync WHERE email = 'taken@example.com'",
					"terraform import", env.ProjectID + "/" + env.branch() + "/<user_id>"}
			},
		},
	} {
		t.Run(row.typeName, func(t *testing.T) {
			inBothModes(t, func(t *testing.T, env *accEnv) {
				var steps []resource.TestStep
				if row.before != nil {
					steps = append(steps, resource.TestStep{Config: env.config(row.before(env))})
				}
				why := "is a root branch (the production branch, or one created schema-only): it inherited nothing"
				if env.Mode == authAPIProject {
					why = "The project-level endpoints (auth_api = \"project\") reach only the production branch, which inherits nothing."
				}
				// The reason follows the sentence that says what is there.
				var want []string
				for _, part := range row.want(env) {
					want = append(want, part)
					if strings.Contains(part, "already") {
						want = append(want, why)
					}
				}
				steps = append(steps, resource.TestStep{
					PreConfig:   func() { row.exists(t, env) },
					Config:      env.config(row.config(env)),
					ExpectError: matchInOrder(want...),
				})
				resource.ParallelTest(t, env.testCase(steps...))
			})
		})
	}
}

// The Stack Auth-only resources refuse a Better Auth integration: at plan
// when the configuration names it, at apply when the branch has it, saying
// what a Better Auth integration offers instead.
func TestAccNotForBetterAuth(t *testing.T) {
	for _, row := range []struct {
		typeName string
		explains string // what the error says of Better Auth
	}{
		{typeName: "neon_auth_ownership_transfer", explains: "Better Auth integrations"},
		{typeName: "neon_auth_sdk_keys", explains: "Better Auth integrations have no SDK keys"},
	} {
		t.Run(row.typeName, func(t *testing.T) {
			env := newAccEnv(t)
			env.Mode = authAPIBranch
			withIntegration(t, env) // better_auth, the branch API's default
			cfg := func(extra string) string {
				return env.config(fmt.Sprintf(`
resource %q "test" {
  project_id = %q
%s
}
`, row.typeName, env.ProjectID, extra))
			}
			explained := matchInOrder("works only for a Stack Auth (`stack`) integration on the project's production branch",
				row.explains, "`base_url`", "`jwks_url`")
			resource.ParallelTest(t, env.testCase(
				resource.TestStep{Config: cfg(`  auth_provider = "better_auth"`), PlanOnly: true, ExpectError: explained},
				resource.TestStep{Config: cfg(""), ExpectError: explained},
			))
		})
	}
}

// lostCreate is a resource whose create request loses its first answer.
type lostCreate struct {
	name string
	// modes it runs in; nil: project mode only.
	modes []string
	// suffix ends the path of the create request; applied: the emulator
	// applied the request whose answer was lost.
	suffix  func(mode string) string
	applied bool
	setup   func(t *testing.T, env *accEnv) // before Terraform; nil: nothing
	config  func(env *accEnv) string
	// refused: the first apply fails so, without sending the create again
	// (nil: it succeeds).
	refused func(env *accEnv) *regexp.Regexp
	// sends is how many create requests the first apply sends.
	sends int32
	// holds checks the state and the emulator after the apply that creates.
	// With refused set, that is a second apply, which sends one more
	// create; nil holds means there is no such apply (then says what follows).
	holds func(env *accEnv) []statecheck.StateCheck
	// then are the steps that follow.
	then      func(t *testing.T, env *accEnv, cfg string, posts *atomic.Int32) []resource.TestStep
	destroyed func(env *accEnv) func(*terraform.State) error
}

// pathSuffix is the same path suffix in every mode.
func pathSuffix(s string) func(string) string { return func(string) string { return s } }

// A create whose answer is lost in transit, resource by resource: what can be
// read back is adopted without a second object; what can be sent again
// harmlessly is sent again; what can be neither is not sent again, and the
// error says how to find out and adopt it.
func TestAccLostCreateResponse(t *testing.T) {
	const email = "seed@example.com"
	for _, row := range []lostCreate{
		{
			name: "neon_auth_domain adopted", modes: modes, suffix: pathSuffix("/auth/domains"), applied: true,
			setup:  withIntegration,
			config: func(env *accEnv) string { return domainConfig(env.ProjectID, "https://app.example.com") },
			sends:  1,
			holds: func(env *accEnv) []statecheck.StateCheck {
				return []statecheck.StateCheck{expectEmuDomains(env, "https://app.example.com")}
			},
			destroyed: domainsGoneIntegrationKept,
		},
		{
			name: "neon_auth_oauth_provider adopted", modes: modes, suffix: pathSuffix("/oauth_providers"), applied: true,
			setup: withIntegration,
			config: func(env *accEnv) string {
				return oauthConfig(env.ProjectID, "google", `
  client_id     = "c"
  client_secret = "s"`)
			},
			sends: 1,
			holds: func(env *accEnv) []statecheck.StateCheck {
				return []statecheck.StateCheck{expectValue(oauthAddr, "type", stringExact("standard")), expectEmuOAuth(env, "google", "standard", "c", "s")}
			},
			destroyed: oauthGoneIntegrationKept,
		},
		{
			name: "neon_auth_ownership_transfer sent again", suffix: pathSuffix("/projects/auth/transfer_ownership"), applied: true,
			config: func(env *accEnv) string { return transferConfig(env.ProjectID) },
			sends:  2, // starting a transfer again is harmless
			holds: func(*accEnv) []statecheck.StateCheck {
				return append(transferState("neon", false),
					statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("url"), knownvalue.StringRegexp(regexp.MustCompile(`^https://`))))
			},
			then: func(t *testing.T, env *accEnv, _ string, _ *atomic.Int32) []resource.TestStep {
				// The recorded platform owner is right: a confirmation shows as usual.
				return []resource.TestStep{{
					PreConfig: func() {
						if err := env.Emu.ConfirmTransfer(env.ProjectID, "stack"); err != nil {
							t.Fatal(err)
						}
					},
					RefreshState: true,
					Check:        transferAttrs("user", true),
				}}
			},
		},
		{
			name: "neon_auth_sdk_keys not sent again", suffix: pathSuffix("/projects/auth/keys"), applied: true,
			setup: func(t *testing.T, env *accEnv) { withIntegrationOf(t, env, "stack") },
			config: func(env *accEnv) string {
				return fmt.Sprintf(`
resource "neon_auth_sdk_keys" "test" {
  project_id = %q
}
`, env.ProjectID)
			},
			refused: func(*accEnv) *regexp.Regexp {
				return matchInOrder("Unable to Create Auth SDK Keys", "A key pair may have been minted that no one has seen", "Run apply again")
			},
			sends: 1,
			holds: func(*accEnv) []statecheck.StateCheck {
				return []statecheck.StateCheck{statecheck.ExpectKnownValue(sdkKeysAddr, tfjsonpath.New("secret_server_key"), knownvalue.NotNull())}
			},
		},
		{
			name: "neon_auth_user not applied, not sent again", modes: modes, suffix: func(mode string) string { return userCreateSuffix[mode] },
			config:  func(env *accEnv) string { return userConfig(env.ProjectID, email, "") },
			refused: func(env *accEnv) *regexp.Regexp { return lostUserGuidance(env, email) },
			sends:   1,
			holds: func(env *accEnv) []statecheck.StateCheck {
				return []statecheck.StateCheck{expectUserRow{env, email, ""}}
			},
		},
		{
			name: "neon_auth_user applied, not sent again", modes: modes, suffix: func(mode string) string { return userCreateSuffix[mode] }, applied: true,
			config:    func(env *accEnv) string { return userConfig(env.ProjectID, email, nameLine("Seed")) },
			refused:   func(env *accEnv) *regexp.Regexp { return lostUserGuidance(env, email) },
			sends:     1,
			then:      lostUserAdopted(email),
			destroyed: checkUsersAndIntegrationsGone,
		},
	} {
		t.Run(row.name, func(t *testing.T) {
			if row.modes == nil {
				row.lostIn(t, authAPIProject)
				return
			}
			for _, mode := range row.modes {
				t.Run(mode, func(t *testing.T) { row.lostIn(t, mode) })
			}
		})
	}
}

// lostIn runs the row's scenario in one API family.
func (row lostCreate) lostIn(t *testing.T, mode string) {
	var posts atomic.Int32
	env := newAccEnvWith(t, loseFirstResponse(row.suffix(mode), row.applied, &posts))
	env.Mode = mode
	if row.setup != nil {
		row.setup(t, env)
	}
	cfg := env.config(row.config(env))
	sent := func(want int32) statecheck.StateCheck {
		return apiCheck(func() error {
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
			resource.TestStep{PreConfig: expectPosts(t, &posts, row.sends), Config: cfg,
				ConfigStateChecks: append(row.holds(env), sent(row.sends+1))})
	default:
		steps = append(steps, resource.TestStep{Config: cfg, ExpectError: row.refused(env)})
	}
	if row.then != nil {
		steps = append(steps, row.then(t, env, cfg, &posts)...)
	}
	tc := env.testCase(steps...)
	if row.destroyed != nil {
		tc.CheckDestroy = row.destroyed(env)
	}
	resource.ParallelTest(t, tc)
}

// lostUserAdopted follows a user create whose answer was lost after it was
// applied: the next apply finds the email taken, exactly one user exists,
// and the fix the error describes (import, then apply) adopts it.
func lostUserAdopted(email string) func(t *testing.T, env *accEnv, cfg string, posts *atomic.Int32) []resource.TestStep {
	return func(t *testing.T, env *accEnv, cfg string, posts *atomic.Int32) []resource.TestStep {
		return []resource.TestStep{
			{
				PreConfig: expectPosts(t, posts, 1),
				Config:    cfg,
				ExpectError: matchInOrder("A user with this email already exists",
					"SELECT id FROM <schema_name>.users_sync WHERE email = '"+email+"'",
					"terraform import", env.ProjectID+"/"+env.branch()+"/<user_id>"),
			},
			{
				PreConfig: func() {
					expectPosts(t, posts, 2)()
					if rows := env.Emu.UsersSync(env.ProjectID); len(rows) != 1 || rows[0].Email != email {
						t.Fatalf("users_sync = %+v, want the one user of the lost response", rows)
					}
				},
				Config:             cfg,
				ResourceName:       userAddr,
				ImportState:        true,
				ImportStatePersist: true,
				ImportStateIdFunc: func(*terraform.State) (string, error) {
					return env.ProjectID + "/" + env.Emu.UsersSync(env.ProjectID)[0].ID, nil
				},
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectUserRow{env, email, "Seed"}},
			},
		}
	}
}
