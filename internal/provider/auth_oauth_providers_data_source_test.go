package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The OAuth providers with their types, in both API families; never a client
// secret.
func TestAccAuthOAuthProvidersDataSource(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		env.enableAuthWithSecrets()
		const ds = "data.neon_auth_oauth_providers.audit"
		resource.ParallelTest(t, env.testCase(resource.TestStep{
			Config: env.config(fmt.Sprintf(`
data "neon_auth_oauth_providers" "audit" {
  project_id = %q
  branch_id  = %q
}
`, env.ProjectID, env.BranchID)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("providers"), knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
					"id": knownvalue.StringExact("google"), "type": knownvalue.StringExact("standard"),
				})})),
			},
			Check: noAuditSecret(ds),
		}))
	})
}
