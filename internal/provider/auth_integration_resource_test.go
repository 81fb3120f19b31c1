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
func expectIntegrations(env *accEnv, want int) stateCheckFunc {
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
			has(integrationAddr, "id", str(env.ProjectID+"/"+env.branch()+"/"+env.authProvider())),
			has(integrationAddr, "auth_provider", str(env.authProvider())),
			has(integrationAddr, "branch_id", str(branch)),
			has(integrationAddr, "database_name", str("neondb")),
			has(integrationAddr, "db_name", str("neondb")),
			has(integrationAddr, "owned_by", str("neon")),
			has(integrationAddr, "jwks_url", knownvalue.StringRegexp(regexp.MustCompile(`^https://.+jwks`))),
			has(integrationAddr, "created_at", aTime),
			stateCheckFunc(func() error {
				its := env.Emu.Integrations(env.ProjectID)
				if len(its) != 1 || its[0].BranchID != branch || its[0].AuthProvider != env.authProvider() {
					return fmt.Errorf("emulator integrations = %+v, want one %s integration on branch %s", its, env.authProvider(), branch)
				}
				return nil
			}),
		}
		if env.Mode == authAPIProject {
			// Stack Auth hands out SDK keys, once, in the create response.
			created = append(created, has(integrationAddr, "pub_client_key", anything), has(integrationAddr, "secret_server_key", anything),
				has(integrationAddr, "schema_name", str("neon_auth")), has(integrationAddr, "table_name", str("users_sync")))
			created = append(created, sensitive(integrationAddr, "pub_client_key", "secret_server_key")...)
		} else {
			// Better Auth has no SDK keys: clients use base_url and the JWKS.
			created = append(created, has(integrationAddr, "base_url", anything), has(integrationAddr, "allow_localhost", knownvalue.NotNull()))
			created = append(created, nulls(integrationAddr, "pub_client_key", "secret_server_key")...)
		}
		// The API returns keys, schema and table only when the integration
		// is created, and never lists the role: after an import they are
		// unknown to Terraform.
		ignore := []string{"pub_client_key", "secret_server_key", "schema_name", "table_name", "role_name"}
		update := "  delete_data_on_destroy = true"
		updated := []statecheck.StateCheck{has(integrationAddr, "delete_data_on_destroy", knownvalue.Bool(true)), expectIntegrations(env, 1)}
		if env.Mode == authAPIBranch {
			update += "\n  name = \"Acme Sign-in\"\n  allow_localhost = false"
			updated = append(updated, has(integrationAddr, "name", str("Acme Sign-in")), has(integrationAddr, "allow_localhost", knownvalue.Bool(false)),
				stateCheckFunc(func() error {
					a, _ := env.Emu.BranchAuth(env.ProjectID, branch)
					if a.Name != "Acme Sign-in" || a.AllowLocalhost {
						return fmt.Errorf("emulator name %q, allow_localhost %v; want the configured ones", a.Name, a.AllowLocalhost)
					}
					return nil
				}))
		}
		tc := env.testCase(
			resource.TestStep{Config: cfg, ConfigPlanChecks: plans(integrationAddr, plancheck.ResourceActionCreate), ConfigStateChecks: created},
			resource.TestStep{ResourceName: integrationAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: ignore},
			resource.TestStep{ResourceName: integrationAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: ignore,
				ImportStateId: env.ProjectID},
			resource.TestStep{ResourceName: integrationAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: ignore,
				ImportStateId: env.ProjectID + "/" + branch},
			resource.TestStep{
				// In place: the same integration, with its settings sent.
				Config:            env.config(integrationConfig(env.ProjectID, update)),
				ConfigPlanChecks:  plans(integrationAddr, plancheck.ResourceActionUpdate),
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
				ConfigPlanChecks:  plans(integrationAddr, plancheck.ResourceActionCreate),
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
	cfg := env.config(integrationConfig(env.ProjectID, fmt.Sprintf("  branch_id = %q\n  auth_provider = \"stack\"", preview)))
	tc := env.testCase(
		resource.TestStep{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				has(integrationAddr, "branch_id", str(preview)),
				has(integrationAddr, "pub_client_key", anything),
				expectIntegrations(env, 0),
				stateCheckFunc(func() error {
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
			ConfigStateChecks: []statecheck.StateCheck{has(integrationAddr, "branch_id", str(main))},
		},
		resource.TestStep{
			// Removing branch_id from the configuration keeps the stored one.
			Config:           env.config(integrationConfig(env.ProjectID, "")),
			ConfigPlanChecks: noChanges(),
		},
	))
}

// A second integration on the same branch is refused by the API with 409;
// the error tells the user how to import the existing one.
func TestAccAuthIntegration_conflictSuggestsImport(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		withIntegration(t, env)
		resource.ParallelTest(t, env.testCase(resource.TestStep{
			Config: env.config(integrationConfig(env.ProjectID, "")),
			ExpectError: matchInOrder("already has Neon Auth", "terraform import",
				fmt.Sprintf("%s/%s", env.ProjectID, env.branch())),
		}))
	})
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
