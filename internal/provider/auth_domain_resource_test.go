package provider

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

const domainAddr = "neon_auth_domain.test"

// The life of a whitelisted domain, in both API families: create, import,
// replacement by another domain, drift (removed behind Terraform's back, then
// the whole integration re-created) repaired, destroy.
func TestAccAuthDomain_lifecycle(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		env.EnableAuth()
		const first, second = "https://app.example.com", "http://localhost:3000"
		cfg := func(domain string) string {
			return env.Config(env.Resource("neon_auth_domain", "test", "domain = "+strconv.Quote(domain)))
		}
		id := func(domain string) knownvalue.Check {
			return knownvalue.StringExact(env.ProjectID + "/" + env.BranchID + "/" + domain)
		}
		tc := env.TestCase(
			resource.TestStep{
				Config:           cfg(first),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(domainAddr, plancheck.ResourceActionCreate)}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(domainAddr, tfjsonpath.New("id"), id(first)),
					statecheck.ExpectKnownValue(domainAddr, tfjsonpath.New("domain"), knownvalue.StringExact(first)),
					statecheck.ExpectKnownValue(domainAddr, tfjsonpath.New("auth_provider"), knownvalue.StringExact(env.AuthProvider())),
					statecheck.ExpectKnownValue(domainAddr, tfjsonpath.New("branch_id"), knownvalue.StringExact(env.BranchID)),
					env.ExpectDomains(first),
				},
			},
			// Everything of a domain can be read back: nothing is ignored.
			resource.TestStep{ResourceName: domainAddr, ImportState: true, ImportStateVerify: true},
			resource.TestStep{
				// The API has no update: another domain replaces this one.
				Config:            cfg(second),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(domainAddr, plancheck.ResourceActionDestroyBeforeCreate)}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(domainAddr, tfjsonpath.New("id"), id(second)), env.ExpectDomains(second)},
			},
			resource.TestStep{
				// Drift: removed from the whitelist behind Terraform's back.
				PreConfig: func() {
					env.Must(env.Client().DeleteDomains(context.Background(), env.Scope(), env.AuthProvider(), []string{second}))
				},
				Config:            cfg(second),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(domainAddr, plancheck.ResourceActionCreate)}},
				ConfigStateChecks: []statecheck.StateCheck{env.ExpectDomains(second)},
			},
			resource.TestStep{
				// Drift: the whole integration is deleted and re-created
				// behind Terraform's back. Whether its whitelist survives is
				// open (Neon's docs say disabling keeps the data); the
				// emulator keeps nothing, and the domain is planned for
				// creation, not reported as an error. A server that kept it
				// plans nothing.
				PreConfig:         env.RecreateAuth,
				Config:            cfg(second),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{actionIn(env, domainAddr, plancheck.ResourceActionCreate, plancheck.ResourceActionNoop)}},
				ConfigStateChecks: []statecheck.StateCheck{env.ExpectDomains(second)},
			},
		)
		tc.CheckDestroy = env.Destroyed(acctest.AuthKept, env.ExpectDomains())
		resource.ParallelTest(t, tc)
	})
}

// A trusted domain already whitelisted — here on the production branch,
// which inherits nothing, in both API families — is taken over by the
// configuration that declares it (in another spelling), whatever put it
// there: it has nothing of its own to overwrite. Destroy leaves it, since
// this configuration did not add it. With inherited_auth = "refuse" it is
// refused with the import command instead.
func TestAccAuthDomain_foundIsTakenOverOnAnyBranch(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		env.EnableAuth()
		_, err := env.Client().AddDomain(context.Background(), env.Scope(), apiclient.AddDomainRequest{Domain: "https://app.example.com",
			AuthProvider: neonapi.NeonAuthSupportedAuthProvider(env.AuthProvider())})
		env.Must(err)
		body := env.Resource("neon_auth_domain", "test", `domain = "https://APP.example.com/"`)
		tc := env.TestCase(
			resource.TestStep{
				Config: env.ProviderBlock(`inherited_auth = "refuse"`) + body,
				ExpectError: acctest.MatchInOrder("already whitelisted", `inherited_auth is "refuse"`,
					"terraform import neon_auth_domain.<name> "+env.ProjectID+"/"+env.BranchID+"/https://app.example.com"),
			},
			resource.TestStep{
				Config: env.Config(body),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(domainAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.BranchID+"/https://app.example.com")),
					env.ExpectDomains("https://app.example.com"),
				},
			},
			resource.TestStep{Config: env.Config(body), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		)
		tc.CheckDestroy = env.Destroyed(acctest.AuthKept, env.ExpectDomains("https://app.example.com"))
		resource.ParallelTest(t, tc)
	})
}

// Domains compare in canonical form: a configuration that writes the domain
// with upper case and a trailing slash has no perpetual diff, and neither
// has an import by an id that writes it differently again, even one that
// leaves the branch to the default, the production branch.
func TestAccAuthDomain_canonicalForm(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	env.EnableAuth()
	const written, canonical = "https://App.Example.COM/", "https://app.example.com"
	cfg := env.Config(env.Resource("neon_auth_domain", "test", "domain = "+strconv.Quote(written)))
	tc := env.TestCase(
		resource.TestStep{
			// The framework checks that the plan after this apply is empty.
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				// The configured spelling stays in state; the id is canonical.
				statecheck.ExpectKnownValue(domainAddr, tfjsonpath.New("domain"), knownvalue.StringExact(written)),
				statecheck.ExpectKnownValue(domainAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.BranchID+"/"+canonical)),
				env.ExpectDomains(canonical),
			},
		},
		resource.TestStep{
			// Writing it another equivalent way changes nothing.
			Config:           env.Config(env.Resource("neon_auth_domain", "test", `domain = "HTTPS://app.example.com"`)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
		resource.TestStep{
			// Import block with an id in yet another spelling: the plan is a
			// no-op import (the harness fails on any change).
			Config:          cfg,
			ResourceName:    domainAddr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithID,
			ImportStateId:   env.ProjectID + "/HTTPS://APP.example.com/",
		},
		resource.TestStep{
			// terraform import with that id stores the canonical domain.
			Config:        cfg,
			ResourceName:  domainAddr,
			ImportState:   true,
			ImportStateId: env.ProjectID + "/HTTPS://APP.example.com/",
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				// The id names the branch that the import id left to the default.
				if want := env.ProjectID + "/" + env.BranchID + "/" + canonical; len(states) != 1 || states[0].ID != want || states[0].Attributes["domain"] != canonical {
					return fmt.Errorf("imported %v, want one instance with id %s and domain %s", states, want, canonical)
				}
				return nil
			},
		},
	)
	tc.CheckDestroy = env.Destroyed(acctest.AuthKept, env.ExpectDomains())
	resource.ParallelTest(t, tc)
}

// Wildcard hosts and native apps' own schemes, as Neon accepts them: planned
// and applied, stored canonical, no diff after, destroyed; in both families.
func TestAccAuthDomain_wildcardAndNativeAppSchemes(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		env.EnableAuth()
		cfg := env.Config(env.Resource("neon_auth_domain", "test", `domain = "https://*.Preview.example.com/"`) +
			env.Resource("neon_auth_domain", "app", `domain = "myapp://callback"`))
		tc := env.TestCase(
			resource.TestStep{Config: cfg, ConfigStateChecks: []statecheck.StateCheck{
				env.ExpectDomains("https://*.preview.example.com", "myapp://callback"),
			}},
			resource.TestStep{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		)
		tc.CheckDestroy = env.Destroyed(acctest.AuthKept, env.ExpectDomains())
		resource.ParallelTest(t, tc)
	})
}

// An add whose response was lost and whose read-back lagged: the re-send's
// 409 is the provider's own write, recovered. Without a lost write a 409 is
// refused with the import hint (TestAccConflictSuggestsImport/neon_auth_domain).
func TestAccAuthDomain_lostAddAnsweredConflictIsRecovered(t *testing.T) {
	var posts atomic.Int32
	env := acctest.NewEmulatorEnv(t, "it loses an answer and makes a read lag", loseThenLag("/auth/domains", http.StatusOK, `{"domains":[]}`, &posts))
	env.Mode = authAPIBranch
	env.EnableAuth()
	tc := env.TestCase(resource.TestStep{
		Config: env.Config(env.Resource("neon_auth_domain", "test", `domain = "https://app.example.com"`)),
		ConfigStateChecks: []statecheck.StateCheck{
			env.ExpectDomains("https://app.example.com"),
			acctest.APICheck(func() error {
				if n := env.RouteCount("POST /auth/domains", http.StatusConflict); n != 1 || posts.Load() != 2 {
					return fmt.Errorf("%d adds, %d answered 409: want the lost one and a re-send answered 409", posts.Load(), n)
				}
				return nil
			}),
		},
	})
	tc.CheckDestroy = env.Destroyed(acctest.AuthKept, env.ExpectDomains())
	resource.ParallelTest(t, tc)
}
