package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// The whitelist as the API lists it, in both API families.
func TestAccAuthDomainsDataSource(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		const ds = "data.neon_auth_domains.audit"
		resource.ParallelTest(t, env.testCase(resource.TestStep{
			Config: env.config(auditSetup(env.ProjectID) + auditData("neon_auth_domains")),
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue(ds, "domains", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
					"domain": stringExact("https://app.example.com"), "auth_provider": stringExact(env.authProvider()),
				})})),
			},
		}))
	})
}
