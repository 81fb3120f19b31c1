package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// The OAuth providers with their types, in both API families; never a client
// secret.
func TestAccAuthOAuthProvidersDataSource(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		const ds = "data.neon_auth_oauth_providers.audit"
		resource.ParallelTest(t, env.testCase(resource.TestStep{
			Config: env.config(auditSetup(env.ProjectID) + auditData("neon_auth_oauth_providers")),
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue(ds, "providers", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
					"id": stringExact("google"), "type": stringExact("standard"),
				})})),
			},
			Check: noAuditSecret(ds),
		}))
	})
}
