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

// The data source lists what the emulator holds, field for field, in both
// API families; a branch without Neon Auth lists nothing.
func TestAccAuthIntegrationsDataSource(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
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
		same := func(attr string) statecheck.StateCheck {
			return statecheck.CompareValuePairs(ds, item.AtMapKey(attr), integrationAddr, tfjsonpath.New(attr), compare.ValuesSame())
		}
		resource.ParallelTest(t, env.testCase(resource.TestStep{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue(ds, "integrations", knownvalue.ListSizeExact(1)),
				expectValue(ds, "branch_id", stringExact(env.branch())),
				expectValue("data.neon_auth_integrations.empty", "integrations", knownvalue.ListExact([]knownvalue.Check{})),
				same("auth_provider_project_id"), same("branch_id"), same("created_at"), same("jwks_url"), same("db_name"),
				same("base_url"), same("name"), same("owned_by"), same("auth_provider"),
				statecheck.ExpectKnownValue(ds, item.AtMapKey("auth_provider"), stringExact(env.authProvider())),
				statecheck.ExpectKnownValue(ds, item.AtMapKey("transfer_status"), knownvalue.Null()),
				apiCheck(func() error {
					its := env.Emu.Integrations(env.ProjectID)
					if len(its) != 1 || its[0].DBName != "neondb" || its[0].OwnedBy != "neon" {
						return fmt.Errorf("emulator integrations differ from the data source: %+v", its)
					}
					return nil
				}),
			},
		}))
	})
}
