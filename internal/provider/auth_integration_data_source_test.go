package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// noAuditSecret fails when a data source's state holds a secret of the setup.
func noAuditSecret(addr string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		r, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		for k, v := range r.Primary.Attributes {
			if strings.Contains(v, "audit-oauth-secret") || strings.Contains(v, "audit-smtp-secret") || strings.Contains(v, "ssk_") {
				return fmt.Errorf("%s exposes a secret in %s", addr, k)
			}
		}
		return nil
	}
}

// One branch's integration, field for field, in both API families; no
// secret of the branch's Neon Auth (SDK keys, an OAuth client secret, an
// SMTP password) shows in it.
func TestAccAuthIntegrationDataSource(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		const ds = "data.neon_auth_integration.audit"
		after := "depends_on = [neon_auth_integration.test]"
		resource.ParallelTest(t, env.TestCase(resource.TestStep{
			Config: env.Config(env.Resource("neon_auth_integration", "test") +
				env.Resource("neon_auth_oauth_provider", "google", `provider_id = "google"`, `client_id = "audit-client"`,
					`client_secret = "audit-oauth-secret"`, after) +
				env.Resource("neon_auth_email_server", "test", `type = "standard"`, `host = "smtp.example.com"`, "port = 587",
					`username = "mailer"`, `password = "audit-smtp-secret"`, `sender_email = "noreply@example.com"`, `sender_name = "Example"`, after) +
				fmt.Sprintf(`
data "neon_auth_integration" "audit" {
  project_id = %[1]q
  branch_id  = %[2]q
  depends_on = [neon_auth_oauth_provider.google, neon_auth_email_server.test]
}
`, env.ProjectID, env.BranchID)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("auth_provider"), knownvalue.StringExact(env.AuthProvider())),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("branch_id"), knownvalue.StringExact(env.BranchID)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("db_name"), knownvalue.StringExact("neondb")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("owned_by"), knownvalue.StringExact("neon")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("jwks_url"), anything),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("transfer_status"), knownvalue.Null()),
				statecheck.CompareValuePairs(ds, tfjsonpath.New("auth_provider_project_id"),
					integrationAddr, tfjsonpath.New("auth_provider_project_id"), compare.ValuesSame()),
			},
			Check: noAuditSecret(ds),
		}))
	})
}
