package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

const dataAPIAddr = "neon_auth_data_api.test"

// googleJWKS is an identity provider's published key set, which Neon can
// fetch when a test runs against it: the external provider of the tests.
const googleJWKS = "https://www.googleapis.com/oauth2/v3/certs"

// expectDataAPI checks the Data API of neondb on the test's branch: none
// when want is nil, else one whose settings pass want.
func expectDataAPI(e *acctest.Env, want func(apiclient.DataAPISettings) error) acctest.APICheck {
	return func() error {
		got := e.DataAPIOf(e.BranchID, "neondb")
		switch {
		case got == nil && want == nil:
			return nil
		case got == nil:
			return fmt.Errorf("branch %s has no Data API on neondb", e.BranchID)
		case want == nil:
			return fmt.Errorf("branch %s still has a Data API on neondb (%s)", e.BranchID, got.URL)
		}
		return want(apiclient.Deref(got.Settings))
	}
}

// maxRows checks the Data API's row limit.
func maxRows(n int) func(apiclient.DataAPISettings) error {
	return func(s apiclient.DataAPISettings) error {
		if got := apiclient.Deref(s.DBMaxRows); got != n {
			return fmt.Errorf("the Data API's db_max_rows is %d, want %d", got, n)
		}
		return nil
	}
}

// The life of a Data API, in both API families — the Neon Auth of the
// branch in branch mode, an external identity provider in project mode:
// create with settings (the others shown as the API reports them), import,
// settings changed in place, drift of a setting and of the whole Data API
// repaired, a create-time option replacing it, destroy.
func TestAccAuthDataAPI_lifecycle(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		provider, auth := apiclient.DataAPIAuthNeonAuth, []string{`auth_provider = "neon_auth"`}
		if env.Mode == authAPIProject {
			provider = apiclient.DataAPIAuthExternal
			auth = []string{`auth_provider = "external"`, fmt.Sprintf("jwks_url = %q", googleJWKS), `provider_name = "Google"`}
		} else {
			env.EnableAuth()
		}
		auth = append(auth, "add_default_grants = true")
		cfg := func(extra ...string) string {
			args := append(append([]string{`database_name = "neondb"`}, auth...), extra...)
			return env.Config(env.Resource("neon_auth_data_api", "test", args...))
		}
		attr := func(path ...string) tfjsonpath.Path {
			p := tfjsonpath.New(path[0])
			for _, k := range path[1:] {
				p = p.AtMapKey(k)
			}
			return p
		}
		tc := env.TestCase(
			resource.TestStep{
				Config: cfg(`settings = {
    db_max_rows = 100
    db_schemas  = ["public", "api"]
  }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(dataAPIAddr, attr("id"), knownvalue.StringExact(env.ProjectID+"/"+env.BranchID+"/neondb")),
					statecheck.ExpectKnownValue(dataAPIAddr, attr("status"), dataAPIStatus(env)),
					statecheck.ExpectKnownValue(dataAPIAddr, attr("url"), knownvalue.StringRegexp(regexp.MustCompile(`^https://.+/neondb/rest/v1$`))),
					statecheck.ExpectKnownValue(dataAPIAddr, attr("settings", "db_max_rows"), knownvalue.Int64Exact(100)),
					// What the configuration leaves out is shown as the API reports it.
					statecheck.ExpectKnownValue(dataAPIAddr, attr("settings", "db_anon_role"), knownvalue.StringExact("anonymous")),
					statecheck.ExpectKnownValue(dataAPIAddr, attr("settings", "jwt_role_claim_key"), knownvalue.StringExact(".role")),
					expectDataAPI(env, maxRows(100)),
					acctest.APICheck(func() error {
						// What the API never returns reached it: only the
						// in-process emulator shows it.
						if env.Emu == nil {
							return nil
						}
						if got, ok := env.Emu.DataAPI(env.ProjectID, env.BranchID, "neondb"); !ok || got.AuthProvider != provider || !got.DefaultGrants || !got.AuthSchema {
							return fmt.Errorf("the emulator holds %+v, want auth provider %s, default grants and the auth schema", got, provider)
						}
						return nil
					}),
				},
			},
			// The API never returns the create-time arguments: an import
			// cannot know them.
			resource.TestStep{ResourceName: dataAPIAddr, ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"auth_provider", "jwks_url", "provider_name", "add_default_grants"}},
			resource.TestStep{
				Config: cfg(`settings = {
    db_max_rows  = 500
    db_schemas   = ["public", "api"]
    openapi_mode = "ignore-privileges"
  }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(dataAPIAddr, plancheck.ResourceActionUpdate)}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(dataAPIAddr, attr("settings", "openapi_mode"), knownvalue.StringExact("ignore-privileges")),
					expectDataAPI(env, maxRows(500)),
				},
			},
			resource.TestStep{
				// Drift: a setting changed behind Terraform's back is set back.
				PreConfig: func() {
					env.Must(env.Client().UpdateDataAPI(context.Background(), apiclient.DataAPIRef{ProjectID: env.ProjectID,
						BranchID: env.BranchID, DatabaseName: "neondb"}, apiclient.DataAPISettings{DBMaxRows: apiclient.Ptr(1)}))
				},
				Config: cfg(`settings = {
    db_max_rows  = 500
    db_schemas   = ["public", "api"]
    openapi_mode = "ignore-privileges"
  }`),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(dataAPIAddr, plancheck.ResourceActionUpdate)}},
				ConfigStateChecks: []statecheck.StateCheck{expectDataAPI(env, maxRows(500))},
			},
			resource.TestStep{
				// Drift: deleted behind Terraform's back, it is created again.
				PreConfig: func() {
					env.Must(env.Client().DeleteDataAPI(context.Background(), apiclient.DataAPIRef{ProjectID: env.ProjectID,
						BranchID: env.BranchID, DatabaseName: "neondb"}))
				},
				Config: cfg(`settings = {
    db_max_rows = 500
  }`),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(dataAPIAddr, plancheck.ResourceActionCreate)}},
				ConfigStateChecks: []statecheck.StateCheck{expectDataAPI(env, maxRows(500))},
			},
			resource.TestStep{
				// A create-time option cannot change: the Data API is replaced.
				Config: cfg(`jwt_audience = "app"`, `settings = {
    db_max_rows = 500
  }`),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(dataAPIAddr, plancheck.ResourceActionDestroyBeforeCreate)}},
				ConfigStateChecks: []statecheck.StateCheck{expectDataAPI(env, maxRows(500))},
			},
		)
		tc.CheckDestroy = env.Destroyed(env.Mode == authAPIBranch, expectDataAPI(env, nil))
		resource.ParallelTest(t, tc)
	})
}

// A Data API with Neon Auth on a branch without it: apply says to add a
// neon_auth_integration and how to order the two, and the configuration
// that does so works on its first apply and destroys both.
func TestAccAuthDataAPI_neonAuthNeedsTheIntegration(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	alone := env.Config(env.Resource("neon_auth_data_api", "test", `database_name = "neondb"`, `auth_provider = "neon_auth"`))
	ordered := env.Config(env.Resource("neon_auth_integration", "this") + `
resource "neon_auth_data_api" "test" {
  project_id    = neon_auth_integration.this.project_id
  branch_id     = neon_auth_integration.this.branch_id
  database_name = "neondb"
  auth_provider = "neon_auth"
}
`)
	tc := env.TestCase(
		resource.TestStep{Config: alone, ExpectError: acctest.MatchInOrder("Neon Auth not enabled on the branch", "Add a neon_auth_integration",
			"branch_id = neon_auth_integration.<name>.branch_id", "enables Neon Auth before it creates the Data API")},
		resource.TestStep{Config: ordered, ConfigStateChecks: []statecheck.StateCheck{expectDataAPI(env, func(apiclient.DataAPISettings) error { return nil })}},
	)
	tc.CheckDestroy = env.Destroyed(acctest.AuthGone, expectDataAPI(env, nil))
	resource.ParallelTest(t, tc)
}
