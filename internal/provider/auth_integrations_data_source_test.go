package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The data source lists what the emulator holds, field for field.
func TestAccAuthIntegrationsDataSource(t *testing.T) {
	env := newAccEnv(t)
	empty := env.Emu.ProjectIDs()[1]
	cfg := env.config(fmt.Sprintf(`
resource "neon_auth_integration" "test" {
  project_id = %[1]q
}

data "neon_auth_integrations" "test" {
  project_id = neon_auth_integration.test.project_id
}

data "neon_auth_integrations" "empty" {
  project_id = %[2]q
}
`, env.ProjectID, empty))
	const ds = "data.neon_auth_integrations.test"
	item := tfjsonpath.New("integrations").AtSliceIndex(0)
	resource.ParallelTest(t, env.testCase(resource.TestStep{
		Config: cfg,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(ds, tfjsonpath.New("integrations"), knownvalue.ListSizeExact(1)),
			statecheck.ExpectKnownValue("data.neon_auth_integrations.empty", tfjsonpath.New("integrations"), knownvalue.ListExact([]knownvalue.Check{})),
			statecheck.CompareValuePairs(ds, item.AtMapKey("auth_provider_project_id"), integrationAddr, tfjsonpath.New("auth_provider_project_id"), compare.ValuesSame()),
			statecheck.CompareValuePairs(ds, item.AtMapKey("branch_id"), integrationAddr, tfjsonpath.New("branch_id"), compare.ValuesSame()),
			statecheck.CompareValuePairs(ds, item.AtMapKey("created_at"), integrationAddr, tfjsonpath.New("created_at"), compare.ValuesSame()),
			statecheck.CompareValuePairs(ds, item.AtMapKey("jwks_url"), integrationAddr, tfjsonpath.New("jwks_url"), compare.ValuesSame()),
			statecheck.ExpectKnownValue(ds, item, knownvalue.ObjectExact(map[string]knownvalue.Check{
				"auth_provider":            knownvalue.StringExact("stack"),
				"auth_provider_project_id": knownvalue.NotNull(),
				"branch_id":                knownvalue.NotNull(),
				"db_name":                  knownvalue.StringExact("neondb"),
				"created_at":               knownvalue.NotNull(),
				"owned_by":                 knownvalue.StringExact("neon"),
				"jwks_url":                 knownvalue.NotNull(),
			})),
			stateCheckFunc(func() error {
				its := env.Emu.Integrations(env.ProjectID)
				if len(its) != 1 || its[0].DBName != "neondb" || its[0].OwnedBy != "neon" {
					return fmt.Errorf("emulator integrations differ from the data source: %d", len(its))
				}
				return nil
			}),
		},
	}))
}
