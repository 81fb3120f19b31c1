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

// The OAuth providers with their types, in both API families; never a client
// secret.
func TestAccAuthOAuthProvidersDataSource(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		env.EnableAuthWithSecrets()
		const ds = "data.neon_auth_oauth_providers.audit"
		resource.ParallelTest(t, env.TestCase(resource.TestStep{
			Config: env.Config(fmt.Sprintf(`
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
