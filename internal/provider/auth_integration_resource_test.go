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

// The life of an integration with defaults: create on the production
// branch, import, drift (deleted behind Terraform's back) and destroy.
func TestAccAuthIntegration_lifecycle(t *testing.T) {
	env := newAccEnv(t)
	defaultBranch, err := env.Emu.DefaultBranchID(env.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	cfg := env.config(integrationConfig(env.ProjectID, ""))

	tc := env.testCase(
		resource.TestStep{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectUnknownValue(integrationAddr, tfjsonpath.New("branch_id")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/stack")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("auth_provider"), knownvalue.StringExact("stack")),
				// The resolved branch is the project's default branch.
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("branch_id"), knownvalue.StringExact(defaultBranch)),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("database_name"), knownvalue.StringExact("neondb")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("role_name"), knownvalue.StringExact("neondb_owner")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("schema_name"), knownvalue.StringExact("neon_auth")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("table_name"), knownvalue.StringExact("users_sync")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("owned_by"), knownvalue.StringExact("neon")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("pub_client_key"), knownvalue.StringRegexp(regexp.MustCompile(`.+`))),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("secret_server_key"), knownvalue.StringRegexp(regexp.MustCompile(`.+`))),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("jwks_url"), knownvalue.StringRegexp(regexp.MustCompile(`^https://.+jwks`))),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("created_at"), knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT`))),
				expectSensitive{integrationAddr, []string{"pub_client_key", "secret_server_key"}},
				stateCheckFunc(func() error {
					its := env.Emu.Integrations(env.ProjectID)
					if len(its) != 1 || its[0].BranchID != defaultBranch {
						return fmt.Errorf("emulator integrations = %+v, want one on branch %s", len(its), defaultBranch)
					}
					return nil
				}),
			},
		},
		resource.TestStep{
			ResourceName:      integrationAddr,
			ImportState:       true,
			ImportStateVerify: true,
			// The API returns keys, schema and table only in the create
			// response, and does not list the role: after an import they
			// are unknown to Terraform.
			ImportStateVerifyIgnore: []string{"pub_client_key", "secret_server_key", "schema_name", "table_name", "role_name"},
		},
		resource.TestStep{
			// The import id may omit the provider.
			ResourceName:            integrationAddr,
			ImportState:             true,
			ImportStateId:           env.ProjectID,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"pub_client_key", "secret_server_key", "schema_name", "table_name", "role_name"},
		},
		resource.TestStep{
			// The one argument that changes in place: nothing is sent to the
			// API until destroy, and the integration is the same one.
			Config: env.config(integrationConfig(env.ProjectID, "  delete_data_on_destroy = true")),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("delete_data_on_destroy"), knownvalue.Bool(true)),
				stateCheckFunc(func() error {
					if n := len(env.Emu.Integrations(env.ProjectID)); n != 1 {
						return fmt.Errorf("%d integrations on the emulator after an in-place update, want 1", n)
					}
					return nil
				}),
			},
		},
		resource.TestStep{
			// Drift: the integration is deleted outside Terraform. The plan
			// creates it again, and apply repairs it.
			PreConfig: func() {
				if err := env.Emu.DeleteIntegration(env.ProjectID, "stack"); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{stateCheckFunc(func() error {
				if n := len(env.Emu.Integrations(env.ProjectID)); n != 1 {
					return fmt.Errorf("after repairing drift the emulator has %d integrations, want 1", n)
				}
				return nil
			})},
		},
	)
	tc.CheckDestroy = func(*terraform.State) error {
		if n := len(env.Emu.Integrations(env.ProjectID)); n != 0 {
			return fmt.Errorf("destroy left %d integration(s) on the emulator", n)
		}
		return nil
	}
	resource.ParallelTest(t, tc)
}

// An explicit branch is used as given. The API accepts only the production
// branch (the spec: "branch_id … production branch"), so naming another one
// is an API error that names the branch; naming the default one explicitly
// is the same integration as omitting it.
func TestAccAuthIntegration_explicitBranch(t *testing.T) {
	env := newAccEnv(t)
	staging, err := env.Emu.AddBranch(env.ProjectID, "staging")
	if err != nil {
		t.Fatal(err)
	}
	main, _ := env.Emu.DefaultBranchID(env.ProjectID)
	resource.ParallelTest(t, env.testCase(
		resource.TestStep{
			Config:      env.config(integrationConfig(env.ProjectID, fmt.Sprintf("  branch_id = %q", staging))),
			ExpectError: mustMatch("branch_id: branch " + staging),
		},
		resource.TestStep{
			Config: env.config(integrationConfig(env.ProjectID, fmt.Sprintf("  branch_id = %q", main))),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("branch_id"), knownvalue.StringExact(main)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("branch_id"), knownvalue.StringExact(main)),
			},
		},
		resource.TestStep{
			// Removing branch_id from the configuration keeps the stored one.
			Config: env.config(integrationConfig(env.ProjectID, "")),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
		},
		resource.TestStep{
			// Naming another branch than the stored one replaces the
			// integration (here the API then refuses the non-production
			// branch, and the old integration is already gone: Terraform's
			// replace order for a required input).
			Config: env.config(integrationConfig(env.ProjectID, fmt.Sprintf("  branch_id = %q", staging))),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ExpectError: mustMatch("is not the default (production) branch"),
		},
	))
}

// A second integration for the same project is refused by the API with 409;
// the error tells the user how to import the existing one.
func TestAccAuthIntegration_conflictSuggestsImport(t *testing.T) {
	env := newAccEnv(t)
	resource.ParallelTest(t, env.testCase(
		resource.TestStep{
			PreConfig: func() {
				branch, _ := env.Emu.DefaultBranchID(env.ProjectID)
				if _, err := createIntegrationOutOfBand(env, branch); err != nil {
					t.Fatal(err)
				}
			},
			Config:      env.config(integrationConfig(env.ProjectID, "")),
			ExpectError: regexp.MustCompile(`(?s)already has an active stack integration.*terraform import.*` + regexp.QuoteMeta(env.ProjectID+"/stack")),
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
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check: func(s *terraform.State) error {
				if got := s.RootModule().Resources[integrationAddr].Primary.Attributes["auth_provider_project_id"]; got != idBefore {
					return fmt.Errorf("auth_provider_project_id changed from %q to %q", idBefore, got)
				}
				return nil
			},
		},
	))
}

// A project-scoped key for another project gets a 404; that is not proof the
// integration is gone, so the state is kept and the error names the cause.
func TestAccAuthIntegration_scopedKeyOnAnotherProjectKeepsState(t *testing.T) {
	env := newAccEnv(t)
	otherProject := env.Emu.ProjectIDs()[1]
	scoped, err := env.Emu.CreateKey("project", otherProject)
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
		resource.TestStep{
			Config:           env.config(body),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
	))
}
