package provider

import (
	"context"
	"fmt"
	"slices"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// migrationConfig is a whole Neon Auth setup written for the project-level
// API: every resource type, nothing that names a mode or a branch.
const migrationConfig = `
resource "neon_auth_integration" "test" {
  project_id = %q
}

resource "neon_auth_oauth_provider" "google" {
  project_id    = neon_auth_integration.test.project_id
  provider_id   = "google"
  client_id     = "google-client"
  client_secret = "google-secret"
}

resource "neon_auth_domain" "app" {
  project_id = neon_auth_integration.test.project_id
  domain     = "https://app.example.com"
}

resource "neon_auth_email_server" "test" {
  project_id   = neon_auth_integration.test.project_id
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = "smtp-secret"
  sender_email = "noreply@example.com"
  sender_name  = "Example"
}

resource "neon_auth_user" "seed" {
  project_id = neon_auth_integration.test.project_id
  email      = "seed@example.com"
}

resource "neon_auth_sdk_keys" "test" {
  project_id = neon_auth_integration.test.project_id
}

resource "neon_auth_ownership_transfer" "test" {
  project_id = neon_auth_integration.test.project_id
}
`

// noReplacement fails a plan that destroys or replaces anything.
type noReplacement struct{}

func (noReplacement) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if slices.Contains(rc.Change.Actions, tfjson.ActionDelete) {
			resp.Error = fmt.Errorf("%s is planned for %v; switching the API family must replace nothing", rc.Address, rc.Change.Actions)
			return
		}
	}
}

// A configuration applied through the project-level endpoints, switched to
// auth_api = "branch" with nothing else changed, plans no destroy and no
// replacement, applies, and then plans empty: both families see one Neon
// Auth per branch, and the provider records what the branch API needs.
func TestAccMigration_projectToBranchReplacesNothing(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	body := fmt.Sprintf(migrationConfig, env.ProjectID)
	tc := env.TestCase(
		resource.TestStep{Config: env.ProviderBlock(`auth_api = "project"`) + body},
		resource.TestStep{
			Config:           env.ProviderBlock(`auth_api = "branch"`) + body,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{noReplacement{}}},
			Check: func(*terraform.State) error {
				// In-process, the emulator also shows that the apply went
				// through the branch-scoped endpoints: the switch was
				// exercised.
				if env.Emu != nil && env.RouteCount("GET /projects/{project_id}/branches/{branch_id}/auth") == 0 {
					return fmt.Errorf("no request reached the branch-scoped endpoints; the switch was not exercised")
				}
				return nil
			},
		},
		resource.TestStep{Config: env.ProviderBlock(`auth_api = "branch"`) + body, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
	)
	tc.CheckDestroy = func(*terraform.State) error {
		if it := env.Integration(); it != nil {
			return fmt.Errorf("destroy left the integration %+v", it)
		}
		return nil
	}
	resource.ParallelTest(t, tc)
}
