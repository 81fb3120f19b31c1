package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// The whitelist as the API lists it, in both API families.
func TestAccAuthDomainsDataSource(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		env.EnableAuthWithSecrets()
		const ds = "data.neon_auth_domains.audit"
		resource.ParallelTest(t, env.TestCase(resource.TestStep{
			Config: env.Config(fmt.Sprintf(`
data "neon_auth_domains" "audit" {
  project_id = %q
  branch_id  = %q
}
`, env.ProjectID, env.BranchID)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("domains"), knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
					"domain": knownvalue.StringExact("https://app.example.com"), "auth_provider": knownvalue.StringExact(env.AuthProvider()),
				})})),
			},
		}))
	})
}
