package provider

import (
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

const domainAddr = "neon_auth_domain.test"

func domainConfig(projectID, domain string) string {
	return fmt.Sprintf(`
resource "neon_auth_domain" "test" {
  project_id = %[1]q
  domain     = %[2]q
}
`, projectID, domain)
}

// expectEmuDomains checks the emulator's whitelist (canonical forms).
func expectEmuDomains(env *accEnv, want ...string) statecheck.StateCheck {
	return stateCheckFunc(func() error {
		var got []string
		for _, d := range env.Emu.Domains(env.ProjectID) {
			got = append(got, d.Domain)
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("emulator whitelist = %q, want %q", got, want)
		}
		return nil
	})
}

// goneIntegrationKept checks after destroy that the emulator holds none of
// what left lists (the things the configuration managed) and still holds the
// one integration the test made outside Terraform.
func goneIntegrationKept[T any](env *accEnv, what string, left func() []T) func(*terraform.State) error {
	return func(*terraform.State) error {
		if n := len(env.Emu.Integrations(env.ProjectID)); n != 1 {
			return fmt.Errorf("the integration must outlive the %s; emulator has %d integrations", what, n)
		}
		if l := left(); len(l) != 0 {
			return fmt.Errorf("destroy left %s on the emulator: %v", what, l)
		}
		return nil
	}
}

// domainsGoneIntegrationKept: no domain is left and the integration is.
func domainsGoneIntegrationKept(env *accEnv) func(*terraform.State) error {
	return goneIntegrationKept(env, "domains", func() []emulator.Domain { return env.Emu.Domains(env.ProjectID) })
}

// The life of a whitelisted domain, in both API families: create, import,
// replacement by another domain, drift (removed behind Terraform's back, then
// the whole integration re-created) repaired, destroy.
func TestAccAuthDomain_lifecycle(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		withIntegration(t, env)
		const first, second = "https://app.example.com", "http://localhost:3000"
		tc := env.testCase(
			resource.TestStep{
				Config:           env.config(domainConfig(env.ProjectID, first)),
				ConfigPlanChecks: expectPlannedAction(domainAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					expectValue(domainAddr, "id", stringExact(env.ProjectID+"/"+env.branch()+"/"+first)),
					expectValue(domainAddr, "domain", stringExact(first)),
					expectValue(domainAddr, "auth_provider", stringExact(env.authProvider())),
					expectValue(domainAddr, "branch_id", stringExact(env.branch())),
					expectEmuDomains(env, first),
				},
			},
			// Everything of a domain can be read back: nothing is ignored.
			resource.TestStep{ResourceName: domainAddr, ImportState: true, ImportStateVerify: true},
			resource.TestStep{ResourceName: domainAddr, ImportState: true, ImportStateVerify: true,
				ImportStateId: env.ProjectID + "/" + env.branch() + "/" + first},
			resource.TestStep{
				// The API has no update: another domain replaces this one.
				Config:            env.config(domainConfig(env.ProjectID, second)),
				ConfigPlanChecks:  expectPlannedAction(domainAddr, plancheck.ResourceActionDestroyBeforeCreate),
				ConfigStateChecks: []statecheck.StateCheck{expectValue(domainAddr, "id", stringExact(env.ProjectID+"/"+env.branch()+"/"+second)), expectEmuDomains(env, second)},
			},
			resource.TestStep{
				// Drift: removed from the whitelist behind Terraform's back.
				PreConfig: func() {
					if err := env.Emu.RemoveDomain(env.ProjectID, second); err != nil {
						t.Fatal(err)
					}
				},
				Config:            env.config(domainConfig(env.ProjectID, second)),
				ConfigPlanChecks:  expectPlannedAction(domainAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{expectEmuDomains(env, second)},
			},
			resource.TestStep{
				// Drift: the whole integration (and the whitelist with it) is
				// deleted and re-created behind Terraform's back: the domain is
				// planned for creation, not reported as an error.
				PreConfig:         func() { recreateIntegration(t, env) },
				Config:            env.config(domainConfig(env.ProjectID, second)),
				ConfigPlanChecks:  expectPlannedAction(domainAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{expectEmuDomains(env, second)},
			},
		)
		tc.CheckDestroy = domainsGoneIntegrationKept(env)
		resource.ParallelTest(t, tc)
	})
}

// Domains compare in canonical form: a configuration that writes the domain
// with upper case and a trailing slash has no perpetual diff, and neither
// has an import by an id that writes it differently again.
func TestAccAuthDomain_canonicalForm(t *testing.T) {
	env := newAccEnv(t)
	withIntegration(t, env)
	const written, canonical = "https://App.Example.COM/", "https://app.example.com"
	cfg := env.config(domainConfig(env.ProjectID, written))
	tc := env.testCase(
		resource.TestStep{
			// The framework checks that the plan after this apply is empty.
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				// The configured spelling stays in state; the id is canonical.
				expectValue(domainAddr, "domain", stringExact(written)),
				expectValue(domainAddr, "id", stringExact(env.ProjectID+"/"+env.branch()+"/"+canonical)),
				expectEmuDomains(env, canonical),
			},
		},
		resource.TestStep{
			// Writing it another equivalent way changes nothing.
			Config:           env.config(domainConfig(env.ProjectID, "HTTPS://app.example.com")),
			ConfigPlanChecks: noChanges(),
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
				if want := env.ProjectID + "/" + env.branch() + "/" + canonical; len(states) != 1 || states[0].ID != want || states[0].Attributes["domain"] != canonical {
					return fmt.Errorf("imported %v, want one instance with id %s and domain %s", states, want, canonical)
				}
				return nil
			},
		},
	)
	tc.CheckDestroy = domainsGoneIntegrationKept(env)
	resource.ParallelTest(t, tc)
}

// Wildcard hosts and native apps' own schemes, as Neon accepts them: planned
// and applied, stored canonical, no diff after, destroyed; in both families.
func TestAccAuthDomain_wildcardAndNativeAppSchemes(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		withIntegration(t, env)
		cfg := env.config(domainConfig(env.ProjectID, "https://*.Preview.example.com/") + `
resource "neon_auth_domain" "app" {
  project_id = ` + fmt.Sprintf("%q", env.ProjectID) + `
  domain     = "myapp://callback"
}
`)
		tc := env.testCase(
			resource.TestStep{Config: cfg, ConfigStateChecks: []statecheck.StateCheck{
				stateCheckFunc(func() error {
					var got []string
					for _, d := range env.Emu.Domains(env.ProjectID) {
						got = append(got, d.Domain)
					}
					slices.Sort(got)
					if want := []string{"https://*.preview.example.com", "myapp://callback"}; !slices.Equal(got, want) {
						return fmt.Errorf("emulator whitelist = %q, want %q", got, want)
					}
					return nil
				}),
			}},
			resource.TestStep{Config: cfg, ConfigPlanChecks: noChanges()},
		)
		tc.CheckDestroy = domainsGoneIntegrationKept(env)
		resource.ParallelTest(t, tc)
	})
}

// An add whose response was lost and whose read-back lagged: the re-send's
// 409 is the provider's own write, adopted. Without a lost write a 409 is
// refused with the import hint (TestAccConflictSuggestsImport/neon_auth_domain).
func TestAccAuthDomain_lostAddAnsweredConflictIsAdopted(t *testing.T) {
	var posts atomic.Int32
	env := newAccEnvWith(t, loseThenLag("/auth/domains", http.StatusOK, `{"domains":[]}`, &posts))
	env.Mode = authAPIBranch
	withIntegration(t, env)
	tc := env.testCase(resource.TestStep{
		Config: env.config(domainConfig(env.ProjectID, "https://app.example.com")),
		ConfigStateChecks: []statecheck.StateCheck{
			expectEmuDomains(env, "https://app.example.com"),
			stateCheckFunc(func() error {
				if n := env.Emu.Stats().Requests["POST /projects/{project_id}/branches/{branch_id}/auth/domains"][409]; n != 1 || posts.Load() != 2 {
					return fmt.Errorf("%d adds, %d answered 409: want the lost one and a re-send answered 409", posts.Load(), n)
				}
				return nil
			}),
		},
	})
	tc.CheckDestroy = domainsGoneIntegrationKept(env)
	resource.ParallelTest(t, tc)
}
