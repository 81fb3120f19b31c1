package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const sdkKeysAddr = "neon_auth_sdk_keys.test"

func sdkKeysConfig(projectID, trigger string) string {
	return fmt.Sprintf(`
resource "neon_auth_integration" "test" {
  project_id    = %[1]q
  auth_provider = "stack"
}

resource "neon_auth_sdk_keys" "test" {
  project_id = neon_auth_integration.test.project_id
  rotation_triggers = {
    rotated = %[2]q
  }
}
`, projectID, trigger)
}

// Minted keys differ from the integration's; a trigger change mints a new
// pair; the keys are sensitive; the integration going away drops them.
func TestAccAuthSDKKeys_lifecycle(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		secretDiffers := statecheck.CompareValuePairs(
			integrationAddr, tfjsonpath.New("secret_server_key"),
			sdkKeysAddr, tfjsonpath.New("secret_server_key"), compare.ValuesDiffer())
		pubDiffers := statecheck.CompareValuePairs(
			integrationAddr, tfjsonpath.New("pub_client_key"),
			sdkKeysAddr, tfjsonpath.New("pub_client_key"), compare.ValuesDiffer())
		// Across steps the secret must change exactly when the trigger does.
		rotation := statecheck.CompareValue(compare.ValuesDiffer())

		resource.ParallelTest(t, env.testCase(
			resource.TestStep{
				Config: env.config(sdkKeysConfig(env.ProjectID, "2026-11")),
				ConfigStateChecks: []statecheck.StateCheck{
					secretDiffers, pubDiffers,
					rotation.AddStateValue(sdkKeysAddr, tfjsonpath.New("secret_server_key")),
					statecheck.ExpectSensitiveValue(sdkKeysAddr, tfjsonpath.New("pub_client_key")),
					statecheck.ExpectSensitiveValue(sdkKeysAddr, tfjsonpath.New("secret_server_key")),
					statecheck.CompareValuePairs(integrationAddr, tfjsonpath.New("auth_provider_project_id"),
						sdkKeysAddr, tfjsonpath.New("auth_provider_project_id"), compare.ValuesSame()),
				},
				Check: func(s *terraform.State) error {
					// The emulator's latest minted pair is the one in state.
					its := env.Emu.Integrations(env.ProjectID)
					if len(its) != 1 {
						return fmt.Errorf("emulator has %d integrations", len(its))
					}
					if s.RootModule().Resources[sdkKeysAddr].Primary.Attributes["secret_server_key"] != its[0].SecretServerKey {
						return fmt.Errorf("state does not hold the pair the emulator minted last")
					}
					return nil
				},
			},
			resource.TestStep{
				Config:           env.config(sdkKeysConfig(env.ProjectID, "2026-12")),
				ConfigPlanChecks: expectActionKeepingIntegration(sdkKeysAddr, plancheck.ResourceActionDestroyBeforeCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					rotation.AddStateValue(sdkKeysAddr, tfjsonpath.New("secret_server_key")),
					secretDiffers,
				},
			},
			resource.TestStep{
				// Drift: the integration is deleted outside Terraform. Both the
				// integration and its keys are planned anew.
				PreConfig: func() {
					if err := env.Emu.DeleteIntegration(env.ProjectID, "stack"); err != nil {
						t.Fatal(err)
					}
				},
				Config: env.config(sdkKeysConfig(env.ProjectID, "2026-12")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction(sdkKeysAddr, plancheck.ResourceActionCreate),
				}},
			},
			resource.TestStep{
				// Drift: the integration is re-created outside Terraform. The
				// old keys are of the old managed project and are replaced.
				PreConfig: func() {
					if err := env.Emu.DeleteIntegration(env.ProjectID, "stack"); err != nil {
						t.Fatal(err)
					}
					withIntegrationOf(t, env, "stack")
				},
				Config: env.config(sdkKeysConfig(env.ProjectID, "2026-12")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(sdkKeysAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.CompareValuePairs(integrationAddr, tfjsonpath.New("auth_provider_project_id"),
						sdkKeysAddr, tfjsonpath.New("auth_provider_project_id"), compare.ValuesSame()),
				},
			},
		))
	})
}
