package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

const domainsAddr = "neon_auth_domains.test"

func domainsConfig(projectID string, domains ...string) string {
	return fmt.Sprintf(`
resource "neon_auth_domains" "test" {
  project_id = %q
  domains    = [%s]
}
`, projectID, `"`+strings.Join(domains, `", "`)+`"`)
}

// expectDeletes checks how many DELETE …/auth/domains requests were sent
// since the last reset.
func expectDeletes(env *accEnv, want int) apiCheck {
	return func() error {
		if n := env.routeCount(env.authRoute("DELETE", "/domains")); n != want {
			return fmt.Errorf("%d DELETE …/auth/domains requests, want %d", n, want)
		}
		return nil
	}
}

// The whole whitelist, owned by Terraform, in both API families: creating it
// removes what was there and is not configured (in one batch), an origin
// slipped in outside Terraform shows in the plan and is removed, other
// spellings of the same origins change nothing, and destroy removes what it
// holds.
func TestAccAuthDomains_lifecycle(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		withIntegration(t, env)
		for _, d := range []string{"https://old-1.example.com", "https://old-2.example.com", "https://app.example.com"} {
			if err := env.Emu.AddDomain(env.ProjectID, d); err != nil {
				t.Fatal(err)
			}
		}
		const app, admin, docs = "https://app.example.com", "https://admin.example.com", "https://docs.example.com"
		tc := env.testCase(
			resource.TestStep{
				PreConfig:        env.Emu.ResetStats,
				Config:           env.config(domainsConfig(env.ProjectID, app, admin)),
				ConfigPlanChecks: expectPlannedAction(domainsAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					expectEmuDomains(env, app, admin),
					expectDeletes(env, 1), // both old domains in one request
					expectValue(domainsAddr, "id", stringExact(env.ProjectID+"/"+env.branch())),
					expectValue(domainsAddr, "auth_provider", stringExact(env.authProvider())),
				},
			},
			resource.TestStep{ResourceName: domainsAddr, ImportState: true, ImportStateVerify: true},
			resource.TestStep{
				// Another spelling of the same origins is no change.
				Config:           env.config(domainsConfig(env.ProjectID, "HTTPS://App.Example.com/", admin)),
				ConfigPlanChecks: noChanges(),
			},
			resource.TestStep{
				PreConfig:         env.Emu.ResetStats,
				Config:            env.config(domainsConfig(env.ProjectID, app, docs)),
				ConfigPlanChecks:  expectPlannedAction(domainsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{expectEmuDomains(env, app, docs), expectDeletes(env, 1)},
			},
			resource.TestStep{
				// An origin slipped into the whitelist outside Terraform is a
				// planned change, and apply removes it.
				PreConfig: func() {
					if err := env.Emu.AddDomain(env.ProjectID, "https://evil.example.net"); err != nil {
						t.Fatal(err)
					}
					env.Emu.ResetStats()
				},
				Config:           env.config(domainsConfig(env.ProjectID, app, docs)),
				ConfigPlanChecks: expectPlannedAction(domainsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					expectEmuDomains(env, app, docs), expectDeletes(env, 1),
					expectValue(domainsAddr, "domains", knownvalue.SetExact([]knownvalue.Check{stringExact(app), stringExact(docs)})),
				},
			},
		)
		tc.CheckDestroy = domainsGoneIntegrationKept(env)
		resource.ParallelTest(t, tc)
	})
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
