package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// The data source lists the branch's integration as the API shows it,
// field for field, in both API families; a branch without Neon Auth lists
// nothing.
func TestAccAuthIntegrationsDataSource(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		const ds = "data.neon_auth_integrations.test"
		item := tfjsonpath.New("integrations").AtSliceIndex(0)
		same := func(attr string) statecheck.StateCheck {
			return statecheck.CompareValuePairs(ds, item.AtMapKey(attr), integrationAddr, tfjsonpath.New(attr), compare.ValuesSame())
		}
		resource.ParallelTest(t, env.TestCase(
			resource.TestStep{
				// Before Neon Auth is enabled.
				Config: env.Config(fmt.Sprintf(`
data "neon_auth_integrations" "test" {
  project_id = %[1]q
  branch_id  = %[2]q
}
`, env.ProjectID, env.BranchID)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("integrations"), knownvalue.ListExact([]knownvalue.Check{})),
				},
			},
			resource.TestStep{
				Config: env.Config(env.Resource("neon_auth_integration", "test") + `
data "neon_auth_integrations" "test" {
  project_id = neon_auth_integration.test.project_id
  branch_id  = neon_auth_integration.test.branch_id
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("integrations"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("branch_id"), knownvalue.StringExact(env.BranchID)),
					same("auth_provider_project_id"), same("branch_id"), same("created_at"), same("jwks_url"), same("db_name"),
					same("base_url"), same("name"), same("owned_by"), same("auth_provider"),
					statecheck.ExpectKnownValue(ds, item.AtMapKey("auth_provider"), knownvalue.StringExact(env.AuthProvider())),
					statecheck.ExpectKnownValue(ds, item.AtMapKey("db_name"), knownvalue.StringExact("neondb")),
					statecheck.ExpectKnownValue(ds, item.AtMapKey("owned_by"), knownvalue.StringExact("neon")),
					statecheck.ExpectKnownValue(ds, item.AtMapKey("transfer_status"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ds, item.AtMapKey("auth_provider_project_id"), knownvalue.StringFunc(func(got string) error {
						if it := env.Integration(); it == nil || it.AuthProviderProjectID != got {
							return fmt.Errorf("the data source lists auth_provider_project_id %q; the API lists %+v", got, it)
						}
						return nil
					})),
				},
			},
		))
	})
}
