package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const (
	transferAddr  = "neon_auth_ownership_transfer.test"
	routeTransfer = "POST /projects/auth/transfer_ownership"
)

// transferConfig is a Stack Auth integration and a transfer request for it
// (the only kind with a managed project to transfer, in both API families);
// the request takes its project_id from the integration so Terraform orders
// them.
func transferConfig(projectID string) string {
	return stackIntegrationConfig(projectID) + `
resource "neon_auth_ownership_transfer" "test" {
  project_id = neon_auth_integration.test.project_id
}
`
}

// transferState checks the transfer's outputs and the integration's owner.
func transferState(ownedBy string, transferred bool) []statecheck.StateCheck {
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("owned_by"), knownvalue.StringExact(ownedBy)),
		statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("transferred"), knownvalue.Bool(transferred)),
		statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("owned_by"), knownvalue.StringExact(ownedBy)),
	}
}

// transferAttrs is transferState for steps that take only Check functions
// (refresh-only steps).
func transferAttrs(ownedBy string, transferred bool) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr(transferAddr, "owned_by", ownedBy),
		resource.TestCheckResourceAttr(transferAddr, "transferred", fmt.Sprint(transferred)),
		resource.TestCheckResourceAttr(integrationAddr, "owned_by", ownedBy),
	)
}

// The transfer: request the link, confirm it outside Terraform (the
// emulator's control surface stands in for the browser), and the next
// refresh shows the new owner with no planned change. The integration keeps
// working, and destroying the request only forgets it.
func TestAccAuthOwnershipTransfer_lifecycle(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		cfg := env.config(transferConfig(env.ProjectID))

		tc := env.testCase(
			resource.TestStep{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(transferAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: append(transferState("neon", false),
					statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.branch()+"/stack")),
					statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("auth_provider"), knownvalue.StringExact("stack")),
					statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("url"), knownvalue.StringRegexp(regexp.MustCompile(`^https://\S+code=\S+`))),
					statecheck.ExpectSensitiveValue(transferAddr, tfjsonpath.New("url")),
				),
			},
			resource.TestStep{
				// Confirmed in the browser: a refresh observes it, and the plan
				// is empty: owned_by and transferred are outputs updated by Read.
				PreConfig: func() {
					if err := env.Emu.ConfirmTransfer(env.ProjectID, "stack"); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: transferState("user", true),
			},
			resource.TestStep{
				// A refresh alone keeps it so, and no new link was requested.
				RefreshState: true,
				RefreshPlanChecks: resource.RefreshPlanChecks{PostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(transferAttrs("user", true), func(*terraform.State) error {
					if n := env.routeCount(routeTransfer); n != 1 {
						return fmt.Errorf("%d transfer requests, want 1", n)
					}
					return nil
				}),
			},
			resource.TestStep{
				// The integration is still fully readable after the transfer.
				ResourceName:            integrationAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"pub_client_key", "secret_server_key", "schema_name", "table_name", "role_name"},
			},
			resource.TestStep{
				// Destroying the request only forgets it: the integration stays,
				// and so does the confirmed transfer.
				Config:           env.config(integrationConfig(env.ProjectID, "")),
				ConfigPlanChecks: expectActionKeepingIntegration(transferAddr, plancheck.ResourceActionDestroy),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("owned_by"), knownvalue.StringExact("user")),
					apiCheck(func() error {
						its := env.Emu.Integrations(env.ProjectID)
						if len(its) != 1 || its[0].OwnedBy != "user" {
							return fmt.Errorf("after destroying the request the integrations are %+v, want one owned by the user", its)
						}
						return nil
					}),
				},
			},
		)
		tc.CheckDestroy = func(*terraform.State) error { return expectIntegrations(env, 0)() }
		resource.ParallelTest(t, tc)
	})
}

// The request lives under the integration: when the integration is deleted,
// or deleted and created again, behind Terraform's back, the request leaves
// the state and the next apply requests a new link.
func TestAccAuthOwnershipTransfer_integrationDrift(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		cfg := env.config(transferConfig(env.ProjectID))
		resource.ParallelTest(t, env.testCase(
			resource.TestStep{Config: cfg},
			resource.TestStep{
				PreConfig: func() {
					if err := env.Emu.DeleteIntegration(env.ProjectID, "stack"); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction(transferAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: transferState("neon", false),
			},
			resource.TestStep{
				PreConfig: func() {
					if err := env.Emu.DisableBranchAuth(env.ProjectID, env.branch()); err != nil {
						t.Fatal(err)
					}
					withIntegrationOf(t, env, "stack")
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(transferAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: append(transferState("neon", false), apiCheck(func() error {
					if n := env.routeCount(routeTransfer); n != 3 {
						return fmt.Errorf("%d transfer requests, want 3 (one per integration)", n)
					}
					return nil
				})),
			},
		))
	})
}

// Without an integration the API answers 404; the error says to create one
// first (and is not mistaken for a project the key cannot see).
func TestAccAuthOwnershipTransfer_withoutIntegration(t *testing.T) {
	env := newAccEnv(t)
	resource.ParallelTest(t, env.testCase(
		resource.TestStep{
			Config: env.config(fmt.Sprintf(`
resource "neon_auth_ownership_transfer" "test" {
  project_id = %q
}
`, env.ProjectID)),
			ExpectError: matchInOrder("has no Neon Auth integration", "Create a neon_auth_integration first"),
		},
	))
}
