package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// The shared reads and batched deletes of internal/neonauth, seen through
// the provider (their own tests are in that package).

const listDomainsRoute = "GET /projects/{project_id}/auth/domains"

// Domains created in the apply that enables their branch's Neon Auth read no
// whitelist first: it came with the integration, after the plan, so the
// look for domains already there (which the plan makes when it knows the
// branch) would only stand in front of their adds, in both API families.
func TestAccAuthDomain_createdWithItsIntegrationReadNoWhitelist(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			env := acctest.NewEmulatorEnv(t, "it counts the requests of an apply", nil)
			env.Mode = mode
			cfg := env.Config(fmt.Sprintf(`
resource "neon_auth_integration" "test" {
  project_id = %q
}

resource "neon_auth_domain" "d" {
  count      = 10
  project_id = neon_auth_integration.test.project_id
  branch_id  = neon_auth_integration.test.branch_id
  domain     = "https://app${count.index}.example.com"
}
`, env.ProjectID))
			resource.ParallelTest(t, env.TestCase(resource.TestStep{
				PreConfig: env.Emu.ResetStats,
				Config:    cfg,
				ConfigStateChecks: []statecheck.StateCheck{acctest.APICheck(func() error {
					if lists, adds := env.RouteCount("GET /auth/domains"), env.RouteCount("POST /auth/domains"); lists != 0 || adds != 10 {
						return fmt.Errorf("the apply sent %d whitelist reads and %d adds, want 0 and 10", lists, adds)
					}
					return nil
				})},
			}))
		})
	}
}

// Through the real CLI: refreshing 50 domains of one project costs exactly
// one list request, and removing them sends their deletes in batches (one
// DELETE with many domains), not one request per domain.
func TestAccAuthDomain_fiftyDomainsOneListRequest(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "it counts the requests the shared reads send", nil)
	integration := fmt.Sprintf(`
resource "neon_auth_integration" "test" {
  project_id = %[1]q
}
`, env.ProjectID)
	cfg := env.Config(integration + `
resource "neon_auth_domain" "many" {
  count      = 50
  project_id = neon_auth_integration.test.project_id
  domain     = "https://app${count.index}.example.com"
}
`)
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{Config: cfg},
		refreshRequests(env, "the integration and 50 domains", map[string]int{
			listDomainsRoute: 1, "GET /projects/{project_id}/auth/integrations": 1,
		}),
		resource.TestStep{
			PreConfig: env.Emu.ResetStats,
			Config:    env.Config(integration),
			Check: func(*terraform.State) error {
				if n := len(env.Emu.Domains(env.ProjectID)); n != 0 {
					return fmt.Errorf("%d domains left on the emulator, want 0", n)
				}
				// Terraform deletes 10 at a time (-parallelism): about 5
				// requests; 12 allows for waves that split.
				deletes := env.RouteCount("DELETE /projects/{project_id}/auth/domains")
				t.Logf("50 domains removed with %d DELETE requests", deletes)
				if deletes < 1 || deletes > 12 {
					return fmt.Errorf("removing 50 domains sent %d DELETE requests, want 1 to 12 (batched)", deletes)
				}
				return nil
			},
		},
	))
}
