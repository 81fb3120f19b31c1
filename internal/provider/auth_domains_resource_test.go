package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
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

const domainsAddr = "neon_auth_domains.test"

// The whole whitelist, owned by Terraform, in both API families: creating it
// takes over the list found, removing what is not configured; an origin
// slipped in outside Terraform shows in the plan and is removed; other
// spellings of the same origins change nothing; and destroy restores the
// list the create found.
func TestAccAuthDomains_lifecycle(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		env.EnableAuth()
		add := func(domains ...string) {
			for _, d := range domains {
				_, err := env.Client().AddDomain(context.Background(), env.Scope(),
					apiclient.AddDomainRequest{Domain: d, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(env.AuthProvider())})
				env.Must(err)
			}
		}
		add("https://old-1.example.com", "https://old-2.example.com", "https://app.example.com")
		const app, admin, docs = "https://app.example.com", "https://admin.example.com", "https://docs.example.com"
		cfg := func(first, second string) string {
			return env.Config(env.Resource("neon_auth_domains", "test", fmt.Sprintf("domains = [%q, %q]", first, second)))
		}
		updates := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(domainsAddr, plancheck.ResourceActionUpdate)}}
		tc := env.TestCase(
			resource.TestStep{
				Config:           cfg(app, admin),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(domainsAddr, plancheck.ResourceActionCreate)}},
				ConfigStateChecks: []statecheck.StateCheck{
					env.ExpectDomains(app, admin),
					statecheck.ExpectKnownValue(domainsAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.BranchID)),
					statecheck.ExpectKnownValue(domainsAddr, tfjsonpath.New("auth_provider"), knownvalue.StringExact(env.AuthProvider())),
				},
			},
			resource.TestStep{ResourceName: domainsAddr, ImportState: true, ImportStateVerify: true},
			resource.TestStep{
				// Another spelling of the same origins is no change.
				Config:           cfg("HTTPS://App.Example.com/", admin),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			resource.TestStep{
				Config:            cfg(app, docs),
				ConfigPlanChecks:  updates,
				ConfigStateChecks: []statecheck.StateCheck{env.ExpectDomains(app, docs)},
			},
			resource.TestStep{
				// An origin slipped into the whitelist outside Terraform is a
				// planned change, and apply removes it.
				PreConfig:        func() { add("https://evil.example.net") },
				Config:           cfg(app, docs),
				ConfigPlanChecks: updates,
				ConfigStateChecks: []statecheck.StateCheck{
					env.ExpectDomains(app, docs),
					statecheck.ExpectKnownValue(domainsAddr, tfjsonpath.New("domains"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(app), knownvalue.StringExact(docs)})),
				},
			},
		)
		// Destroy restores the list the create found, whatever put it there:
		// the domains this configuration added go, those it removed come back.
		tc.CheckDestroy = env.Destroyed(acctest.AuthKept, env.ExpectDomains("https://old-1.example.com", "https://old-2.example.com", app))
		resource.ParallelTest(t, tc)
	})
}

// What neon_auth_domains removes goes in one request, in both API families:
// the domains that were there before it, those a change drops, and one
// slipped in outside Terraform.
func TestAccAuthDomains_removesInOneRequest(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			env := acctest.NewEmulatorEnv(t, "it counts requests", nil)
			env.Mode = mode
			env.EnableAuth()
			add := func(domains ...string) {
				for _, d := range domains {
					_, err := env.Client().AddDomain(context.Background(), env.Scope(),
						apiclient.AddDomainRequest{Domain: d, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(env.AuthProvider())})
					env.Must(err)
				}
			}
			add("https://old-1.example.com", "https://old-2.example.com", "https://app.example.com")
			step := func(slippedIn []string, domains ...string) resource.TestStep {
				return resource.TestStep{
					PreConfig: func() { add(slippedIn...); env.Emu.ResetStats() },
					Config:    env.Config(env.Resource("neon_auth_domains", "test", fmt.Sprintf("domains = [%q, %q]", domains[0], domains[1]))),
					ConfigStateChecks: []statecheck.StateCheck{env.ExpectDomains(domains...), acctest.APICheck(func() error {
						if n := env.RouteCount("DELETE /auth/domains"); n != 1 {
							return fmt.Errorf("%d DELETE …/auth/domains requests, want 1", n)
						}
						return nil
					})},
				}
			}
			resource.ParallelTest(t, env.TestCase(
				step(nil, "https://app.example.com", "https://admin.example.com"), // both old domains in one request
				step(nil, "https://app.example.com", "https://docs.example.com"),
				step([]string{"https://evil.example.net"}, "https://app.example.com", "https://docs.example.com"),
			))
		})
	}
}

// A whitelist created with the Neon Auth that the same apply enables adds
// its domains without waiting for its list, in both API families: the list
// (read to find what else the whitelist holds) is held at the server until
// every add has arrived, and the apply still sends one list and one add per
// domain.
func TestAccAuthDomains_aNewWhitelistAddsWithoutWaitingForItsList(t *testing.T) {
	domains := []string{"https://app.example.com", "https://admin.example.com", "https://docs.example.com"}
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			var adds atomic.Int32
			arrived := make(chan struct{})
			var heldTooLong atomic.Bool
			env := acctest.NewEmulatorEnv(t, "it holds requests at the server and counts them", func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if strings.HasSuffix(r.URL.Path, "/auth/domains") {
						switch r.Method {
						case http.MethodPost:
							if adds.Add(1) == int32(len(domains)) {
								close(arrived)
							}
						case http.MethodGet:
							select {
							case <-arrived:
							case <-time.After(10 * time.Second):
								heldTooLong.Store(true)
							}
						}
					}
					next.ServeHTTP(w, r)
				})
			})
			env.Mode = mode
			quoted := make([]string, len(domains))
			for i, d := range domains {
				quoted[i] = fmt.Sprintf("%q", d)
			}
			// The production branch, which the integration names by leaving
			// branch_id out: the plan knows the whitelist's branch only once
			// the integration is applied, so the one list read is the
			// create's.
			config := env.Config(fmt.Sprintf(`
resource "neon_auth_integration" "this" {
  project_id = %q
}

resource "neon_auth_domains" "test" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  domains    = [%s]
}
`, env.ProjectID, strings.Join(quoted, ", ")))
			resource.ParallelTest(t, env.TestCase(resource.TestStep{
				PreConfig: env.Emu.ResetStats,
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{acctest.APICheck(func() error {
					if heldTooLong.Load() {
						return fmt.Errorf("the whitelist's list was answered before its %d adds had arrived: the adds waited for it", len(domains))
					}
					if lists, posts := env.RouteCount("GET /auth/domains"), env.RouteCount("POST /auth/domains"); lists != 1 || posts != len(domains) {
						return fmt.Errorf("%d lists and %d adds, want 1 and %d", lists, posts, len(domains))
					}
					return nil
				}), env.ExpectDomains(domains...)},
			}))
		})
	}
}

// Moving a whitelist between neon_auth_domains and a neon_auth_domain per
// entry in one apply keeps every domain, in either direction. The server
// holds each whitelist delete until the new resources' creates have looked
// at the whitelist (or 5 s have passed): the order in which a create found
// its domain still listed and the old resource's destroy, restoring the
// list it found, then removed it. The whitelist holds what the
// configuration declares, the next plan is empty, and destroy leaves the
// domains the new resources found on the branch, as their plan said.
func TestAccAuthDomains_movedBetweenTheTwoHoldersInOneApply(t *testing.T) {
	const kept = "https://kept.example.com" // on the branch before either: the list takes it over
	domains := []string{kept}
	for i := range 8 {
		domains = append(domains, fmt.Sprintf("https://app%d.example.com", i))
	}
	quoted := make([]string, len(domains))
	for i, d := range domains {
		quoted[i] = fmt.Sprintf("%q", d)
	}
	for _, toEach := range []bool{true, false} {
		t.Run(map[bool]string{true: "list_to_each", false: "each_to_list"}[toEach], func(t *testing.T) {
			var looked atomic.Int32
			creates := make(chan struct{})
			env := acctest.NewEmulatorEnv(t, "it holds requests at the server", func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if !strings.HasSuffix(r.URL.Path, "/auth/domains") {
						next.ServeHTTP(w, r)
						return
					}
					if r.Method == http.MethodDelete {
						select {
						case <-creates:
						case <-time.After(5 * time.Second):
						}
					}
					next.ServeHTTP(w, r)
					// The new creates have looked: each neon_auth_domain's
					// add, or the neon_auth_domains' list.
					if toEach && r.Method == http.MethodPost || !toEach && r.Method == http.MethodGet {
						if looked.Add(1) == int32(map[bool]int{true: len(domains), false: 1}[toEach]) {
							close(creates)
						}
					}
				})
			})
			env.Mode = authAPIBranch
			env.EnableAuth()
			_, err := env.Client().AddDomain(context.Background(), env.Scope(),
				apiclient.AddDomainRequest{Domain: kept, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(env.AuthProvider())})
			env.Must(err)
			list := env.Config(env.Resource("neon_auth_domains", "all", "domains = ["+strings.Join(quoted, ", ")+"]"))
			each := env.Config(fmt.Sprintf(`
resource "neon_auth_domain" "each" {
  for_each   = toset([%s])
  project_id = %q
  branch_id  = %q
  domain     = each.value
}
`, strings.Join(quoted, ", "), env.ProjectID, env.BranchID))
			from, to := list, each
			if !toEach {
				from, to = each, list
			}
			resource.ParallelTest(t, env.TestCase(
				resource.TestStep{Config: from, PreConfig: func() { looked.Store(-1 << 20) }},
				resource.TestStep{
					Config:            to,
					PreConfig:         func() { looked.Store(0) },
					ConfigStateChecks: []statecheck.StateCheck{env.ExpectDomains(domains...)},
				},
				resource.TestStep{Config: to, PlanOnly: true},
				resource.TestStep{Config: env.Config(""), Check: func(*terraform.State) error { return env.ExpectDomains(domains...)() }},
			))
		})
	}
}

// Adds that fail do not hide each other: an apply whose adds are refused for
// one domain names that domain, keeps the domains added beside it, and the
// next apply adds the one refused.
func TestAccAuthDomains_aRefusedAddIsNamedAndTheOthersStay(t *testing.T) {
	const refused = "https://refused.example.com"
	var refusing atomic.Bool
	refusing.Store(true)
	env := acctest.NewEmulatorEnv(t, "it rewrites the API's answers", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if refusing.Load() && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/auth/domains") {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if strings.Contains(string(body), refused) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					_, _ = w.Write([]byte(`{"code":"","message":"domain not allowed","request_id":"refused-domain"}`))
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	})
	env.Mode = authAPIBranch
	env.EnableAuth()
	const app, admin = "https://app.example.com", "https://admin.example.com"
	config := env.Config(env.Resource("neon_auth_domains", "test", fmt.Sprintf("domains = [%q, %q, %q]", app, refused, admin)))
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{
			Config:      config,
			ExpectError: regexp.MustCompile(`(?s)Adding the domain https://refused\.example\.com to the whitelist.*HTTP\s+400:\s+domain\s+not\s+allowed`),
		},
		resource.TestStep{
			PreConfig: func() {
				env.Must(env.ExpectDomains(app, admin)())
				refusing.Store(false)
			},
			Config:            config,
			ConfigStateChecks: []statecheck.StateCheck{env.ExpectDomains(app, refused, admin)},
		},
	))
}

// neon_auth_domains and neon_auth_domain on the same branch would undo each
// other: planning the second of them warns, whichever comes first; other
// branches and a lone type do not.
func TestUnitWhitelistClaims(t *testing.T) {
	d := &providerData{}
	p, main, preview := types.StringValue("p"), types.StringNull(), types.StringValue("br-preview")
	var diags diag.Diagnostics
	d.claimWhitelist("neon_auth_domain", p, main, &diags)
	d.claimWhitelist("neon_auth_domain", p, main, &diags)
	d.claimWhitelist("neon_auth_domains", p, preview, &diags)
	if len(diags) != 0 {
		t.Fatalf("one type per branch warned: %v", diags)
	}
	d.claimWhitelist("neon_auth_domains", p, main, &diags)
	if diags.WarningsCount() != 1 || diags.HasError() {
		t.Fatalf("diagnostics = %v, want one warning", diags)
	}
	if w := diags[0].Detail(); !strings.Contains(w, "both neon_auth_domains and neon_auth_domain for project p (branch production)") ||
		!strings.Contains(w, "removes every domain it does not list") {
		t.Errorf("the warning does not say what happens and where: %q", w)
	}
}
