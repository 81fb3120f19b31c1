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

// The email server's settings, in both API families; never the password.
func TestAccAuthEmailServerDataSource(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		env.EnableAuthWithSecrets()
		const ds = "data.neon_auth_email_server.audit"
		resource.ParallelTest(t, env.TestCase(resource.TestStep{
			Config: env.Config(fmt.Sprintf(`
data "neon_auth_email_server" "audit" {
  project_id = %q
  branch_id  = %q
}
`, env.ProjectID, env.BranchID)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("host"), knownvalue.StringExact("smtp.example.com")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("port"), knownvalue.Int64Exact(587)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("sender_name"), knownvalue.StringExact("Example")),
			},
			Check: noAuditSecret(ds),
		}))
	})
}
