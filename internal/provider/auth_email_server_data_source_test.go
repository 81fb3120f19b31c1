package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// The email server's settings, in both API families; never the password.
func TestAccAuthEmailServerDataSource(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		const ds = "data.neon_auth_email_server.audit"
		resource.ParallelTest(t, env.testCase(resource.TestStep{
			Config: env.config(auditSetup(env.ProjectID) + auditData("neon_auth_email_server")),
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue(ds, "type", stringExact("standard")), expectValue(ds, "host", stringExact("smtp.example.com")),
				expectValue(ds, "port", knownvalue.Int64Exact(587)), expectValue(ds, "sender_name", stringExact("Example")),
			},
			Check: noAuditSecret(ds),
		}))
	})
}
