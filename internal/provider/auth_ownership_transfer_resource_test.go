package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

const (
	transferAddr  = "neon_auth_ownership_transfer.test"
	routeTransfer = "POST /projects/auth/transfer_ownership"
)

// transferState checks the transfer's outputs and the integration's owner.
func transferState(ownedBy string, transferred bool) []statecheck.StateCheck {
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("owned_by"), knownvalue.StringExact(ownedBy)),
		statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("transferred"), knownvalue.Bool(transferred)),
		statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("owned_by"), knownvalue.StringExact(ownedBy)),
	}
}

// integrationImports imports the integration beside a transfer request and
// finds it fully readable.
var integrationImports = resource.TestStep{
	ResourceName:            integrationAddr,
	ImportState:             true,
	ImportStateVerify:       true,
	ImportStateVerifyIgnore: integrationCreateOnly,
}

// requestForgotten destroys the transfer request alone (the configuration
// keeps only the integration): the integration stays, owned by owner.
func requestForgotten(env *acctest.Env, integration, owner string) resource.TestStep {
	return resource.TestStep{
		Config: env.Config(integration),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(transferAddr, plancheck.ResourceActionDestroy),
			plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionNoop),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("owned_by"), knownvalue.StringExact(owner)),
			acctest.APICheck(func() error {
				if it := env.Integration(); it == nil || string(it.OwnedBy) != owner {
					return fmt.Errorf("after destroying the request the integration is %+v, want one owned by %s", it, owner)
				}
				return nil
			}),
		},
	}
}

// The transfer request, in both API families, on the production branch of
// a project of the test's own (only a Stack Auth integration there has a
// managed project to transfer): the link is requested and is sensitive;
// until confirmed, applying again changes nothing and requests no new link;
// the integration stays readable, and destroying the request only forgets
// it.
func TestAccAuthOwnershipTransfer_lifecycle(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			env := acctest.NewProjectEnv(t)
			env.Mode = mode
			integration := env.Resource("neon_auth_integration", "test", `auth_provider = "stack"`)
			cfg := env.Config(integration + env.Resource("neon_auth_ownership_transfer", "test", "depends_on = [neon_auth_integration.test]"))
			sameLink := statecheck.CompareValue(compare.ValuesSame())
			tc := env.TestCase(
				resource.TestStep{
					Config: cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(transferAddr, plancheck.ResourceActionCreate),
					}},
					ConfigStateChecks: append(transferState("neon", false),
						statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.BranchID+"/stack")),
						statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("auth_provider"), knownvalue.StringExact("stack")),
						statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("url"), knownvalue.StringRegexp(regexp.MustCompile(`^https://\S+`))),
						statecheck.ExpectSensitiveValue(transferAddr, tfjsonpath.New("url")),
						sameLink.AddStateValue(transferAddr, tfjsonpath.New("url")),
					),
				},
				resource.TestStep{
					// Not confirmed yet: nothing to change, and the link is the
					// one requested.
					Config:            cfg,
					ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					ConfigStateChecks: append(transferState("neon", false), sameLink.AddStateValue(transferAddr, tfjsonpath.New("url"))),
				},
				// The integration is fully readable with a transfer requested,
				// and destroying the request only forgets it.
				integrationImports,
				requestForgotten(env, integration, "neon"),
			)
			tc.CheckDestroy = env.Destroyed(acctest.AuthGone)
			resource.ParallelTest(t, tc)
		})
	}
}

// A confirmed transfer (a person confirms it at Stack Auth, in a browser;
// the emulator's control surface stands in): the next refresh shows the new
// owner with no planned change, a refresh alone keeps it so and requests no
// new link, the integration keeps working, and destroying the request leaves
// the transfer done.
func TestAccAuthOwnershipTransfer_confirmed(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			env := acctest.NewEmulatorEnv(t, "a person confirms a transfer at Stack Auth; only the emulator's control surface does it in a test", nil)
			env.Mode = mode
			integration := env.Resource("neon_auth_integration", "test", `auth_provider = "stack"`)
			cfg := env.Config(integration + env.Resource("neon_auth_ownership_transfer", "test", "depends_on = [neon_auth_integration.test]"))
			tc := env.TestCase(
				resource.TestStep{Config: cfg, ConfigStateChecks: append(transferState("neon", false),
					// The emulator's link has the form of Stack Auth's.
					statecheck.ExpectKnownValue(transferAddr, tfjsonpath.New("url"), knownvalue.StringRegexp(regexp.MustCompile(`^https://\S+code=\S+`))))},
				resource.TestStep{
					// owned_by and transferred are outputs updated by Read.
					PreConfig:         func() { env.Must(env.Emu.ConfirmTransfer(env.ProjectID, "stack")) },
					Config:            cfg,
					ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					ConfigStateChecks: transferState("user", true),
				},
				resource.TestStep{
					RefreshState:      true,
					RefreshPlanChecks: resource.RefreshPlanChecks{PostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr(transferAddr, "owned_by", "user"),
						resource.TestCheckResourceAttr(transferAddr, "transferred", "true"),
						resource.TestCheckResourceAttr(integrationAddr, "owned_by", "user"), func(*terraform.State) error {
							if n := env.RouteCount(routeTransfer); n != 1 {
								return fmt.Errorf("%d transfer requests, want 1", n)
							}
							return nil
						}),
				},
				integrationImports,
				requestForgotten(env, integration, "user"),
			)
			tc.CheckDestroy = env.Destroyed(acctest.AuthGone)
			resource.ParallelTest(t, tc)
		})
	}
}

// The request lives under the integration: when the integration is deleted,
// or deleted and created again, behind Terraform's back, the request leaves
// the state and the next apply requests a new link.
func TestAccAuthOwnershipTransfer_integrationDrift(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			env := acctest.NewProjectEnv(t)
			env.Mode = mode
			cfg := env.Config(env.Resource("neon_auth_integration", "test", `auth_provider = "stack"`) +
				env.Resource("neon_auth_ownership_transfer", "test", "depends_on = [neon_auth_integration.test]"))
			newLink := statecheck.CompareValue(compare.ValuesDiffer())
			resource.ParallelTest(t, env.TestCase(
				resource.TestStep{Config: cfg, ConfigStateChecks: []statecheck.StateCheck{newLink.AddStateValue(transferAddr, tfjsonpath.New("url"))}},
				resource.TestStep{
					PreConfig: func() {
						env.Must(env.Client().DeleteIntegration(context.Background(), env.Scope(), "stack", false))
					},
					Config: cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
						plancheck.ExpectResourceAction(transferAddr, plancheck.ResourceActionCreate),
					}},
					ConfigStateChecks: append(transferState("neon", false), newLink.AddStateValue(transferAddr, tfjsonpath.New("url"))),
				},
				resource.TestStep{
					PreConfig: env.RecreateAuth,
					Config:    cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(transferAddr, plancheck.ResourceActionCreate),
					}},
					ConfigStateChecks: append(transferState("neon", false), newLink.AddStateValue(transferAddr, tfjsonpath.New("url"))),
				},
			))
		})
	}
}

// Without an integration the API answers 404; the error says to create one
// first (and is not mistaken for a project the key cannot see).
func TestAccAuthOwnershipTransfer_withoutIntegration(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	// The transfer is the project-level API's, on the production branch,
	// which has no Neon Auth.
	production := *env
	production.BranchID = ""
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{
			Config:      env.ProviderBlock(`auth_api = "project"`) + production.Resource("neon_auth_ownership_transfer", "test"),
			ExpectError: acctest.MatchInOrder("has no Neon Auth integration", "Create a neon_auth_integration first"),
		},
	))
}
