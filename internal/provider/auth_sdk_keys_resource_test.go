package provider

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

const sdkKeysAddr = "neon_auth_sdk_keys.test"

// Minted keys differ from the integration's; a trigger change mints a new
// pair; the keys are sensitive; the integration going away drops them. SDK
// keys exist only for Stack Auth on a production branch: in both API
// families, on the production branch of a project of the test's own.
func TestAccAuthSDKKeys_lifecycle(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			env := acctest.NewProjectEnv(t)
			env.Mode = mode
			cfg := func(trigger string) string {
				return env.Config(env.Resource("neon_auth_integration", "test", `auth_provider = "stack"`) +
					env.Resource("neon_auth_sdk_keys", "test", "rotation_triggers = { rotated = "+strconv.Quote(trigger)+" }",
						"depends_on = [neon_auth_integration.test]"))
			}
			secretDiffers := statecheck.CompareValuePairs(
				integrationAddr, tfjsonpath.New("secret_server_key"),
				sdkKeysAddr, tfjsonpath.New("secret_server_key"), compare.ValuesDiffer())
			pubDiffers := statecheck.CompareValuePairs(
				integrationAddr, tfjsonpath.New("pub_client_key"),
				sdkKeysAddr, tfjsonpath.New("pub_client_key"), compare.ValuesDiffer())
			sameProject := statecheck.CompareValuePairs(integrationAddr, tfjsonpath.New("auth_provider_project_id"),
				sdkKeysAddr, tfjsonpath.New("auth_provider_project_id"), compare.ValuesSame())
			// Across steps the secret must change exactly when the trigger does.
			rotation := statecheck.CompareValue(compare.ValuesDiffer())

			resource.ParallelTest(t, env.TestCase(
				resource.TestStep{
					Config: cfg("2026-11"),
					ConfigStateChecks: []statecheck.StateCheck{
						secretDiffers, pubDiffers, sameProject,
						rotation.AddStateValue(sdkKeysAddr, tfjsonpath.New("secret_server_key")),
						statecheck.ExpectSensitiveValue(sdkKeysAddr, tfjsonpath.New("pub_client_key")),
						statecheck.ExpectSensitiveValue(sdkKeysAddr, tfjsonpath.New("secret_server_key")),
					},
				},
				resource.TestStep{
					Config: cfg("2026-12"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(sdkKeysAddr, plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionNoop),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						rotation.AddStateValue(sdkKeysAddr, tfjsonpath.New("secret_server_key")),
						secretDiffers,
					},
				},
				resource.TestStep{
					// Drift: the integration is deleted outside Terraform. Both the
					// integration and its keys are planned anew.
					PreConfig: func() {
						env.Must(env.Client().DeleteIntegration(context.Background(), env.Scope(), "stack", false))
					},
					Config: cfg("2026-12"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
						plancheck.ExpectResourceAction(sdkKeysAddr, plancheck.ResourceActionCreate),
					}},
				},
				resource.TestStep{
					// Drift: the integration is re-created outside Terraform. The
					// old keys are of the old managed project and are replaced.
					PreConfig: env.RecreateAuth,
					Config:    cfg("2026-12"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(sdkKeysAddr, plancheck.ResourceActionCreate),
					}},
					ConfigStateChecks: []statecheck.StateCheck{sameProject},
				},
			))
		})
	}
}

// The pair in state is the one the API minted last, the pair that works:
// the emulator shows it; the API never lists keys.
func TestAccAuthSDKKeys_stateHoldsTheLatestPair(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			env := acctest.NewEmulatorEnv(t, "no endpoint lists SDK keys: only the emulator shows which pair it minted last", nil)
			env.Mode = mode
			resource.ParallelTest(t, env.TestCase(resource.TestStep{
				Config: env.Config(env.Resource("neon_auth_integration", "test", `auth_provider = "stack"`) +
					env.Resource("neon_auth_sdk_keys", "test", "depends_on = [neon_auth_integration.test]")),
				Check: func(s *terraform.State) error {
					its := env.Emu.Integrations(env.ProjectID)
					if len(its) != 1 {
						return fmt.Errorf("emulator has %d integrations", len(its))
					}
					if s.RootModule().Resources[sdkKeysAddr].Primary.Attributes["secret_server_key"] != its[0].SecretServerKey {
						return fmt.Errorf("state does not hold the pair the emulator minted last")
					}
					return nil
				},
			}))
		})
	}
}
