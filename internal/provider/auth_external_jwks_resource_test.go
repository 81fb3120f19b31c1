package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/officialneontest"
)

const jwksAddr = "neon_auth_external_jwks.test"

// microsoftJWKS is another identity provider's published key set.
const microsoftJWKS = "https://login.microsoftonline.com/common/discovery/v2.0/keys"

// expectJWKS checks the JWKS URLs the project trusts for the test's branch
// (in project mode, the test's own project: for every branch), in any order.
func expectJWKS(e *acctest.Env, want ...string) acctest.APICheck {
	return func() error {
		all, err := e.Client().ListJWKS(context.Background(), e.ProjectID)
		if err != nil {
			return err
		}
		var got []string
		for _, j := range all {
			if e.Mode == authAPIProject || apiclient.Deref(j.BranchID) == e.BranchID {
				got = append(got, j.JWKSURL)
			}
		}
		slices.Sort(got)
		if want = slices.Sorted(slices.Values(want)); !slices.Equal(got, want) {
			return fmt.Errorf("the project trusts the JWKS %q, want %q", got, want)
		}
		return nil
	}
}

// The life of an external JWKS, in both API families (the same endpoints
// serve both): added for the test's branch in branch mode and for every
// branch of the test's own project in project mode, imported, replaced by
// another URL, removed behind Terraform's back and added again, destroyed.
func TestAccAuthExternalJWKS_lifecycle(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		branch := ""
		if env.Mode == authAPIBranch {
			branch = fmt.Sprintf("branch_id = %q", env.BranchID)
		}
		cfg := func(url, name string) string {
			return env.Config(fmt.Sprintf(`
resource "neon_auth_external_jwks" "test" {
  project_id    = %q
  %s
  jwks_url      = %q
  provider_name = %q
  jwt_audience  = "app"
}
`, env.ProjectID, branch, url, name))
		}
		// The test's own JWKS: its branch's in branch mode (the suite's
		// project is shared), every one of its project in project mode.
		ours := func(j apiclient.JWKS) bool {
			return env.Mode == authAPIProject || apiclient.Deref(j.BranchID) == env.BranchID
		}
		tc := env.TestCase(
			resource.TestStep{
				Config:           cfg(googleJWKS, "Google"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(jwksAddr, plancheck.ResourceActionCreate)}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(jwksAddr, tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile("^"+env.ProjectID+"/.+"))),
					statecheck.ExpectKnownValue(jwksAddr, tfjsonpath.New("jwt_audience"), knownvalue.StringExact("app")),
					// Not configured: the API's default roles.
					statecheck.ExpectKnownValue(jwksAddr, tfjsonpath.New("role_names"), knownvalue.ListSizeExact(3)),
					expectJWKS(env, googleJWKS),
				},
			},
			resource.TestStep{ResourceName: jwksAddr, ImportState: true, ImportStateVerify: true},
			resource.TestStep{
				// Nothing changes in place: another URL replaces it.
				Config:            cfg(microsoftJWKS, "Microsoft"),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(jwksAddr, plancheck.ResourceActionDestroyBeforeCreate)}},
				ConfigStateChecks: []statecheck.StateCheck{expectJWKS(env, microsoftJWKS)},
			},
			resource.TestStep{
				// Drift: removed behind Terraform's back, it is added again.
				PreConfig: func() {
					all, err := env.Client().ListJWKS(context.Background(), env.ProjectID)
					env.Must(err)
					for _, j := range all {
						if j.JWKSURL == microsoftJWKS && ours(j) {
							env.Must(env.Client().DeleteJWKS(context.Background(), env.ProjectID, j.ID))
						}
					}
				},
				Config:            cfg(microsoftJWKS, "Microsoft"),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(jwksAddr, plancheck.ResourceActionCreate)}},
				ConfigStateChecks: []statecheck.StateCheck{expectJWKS(env, microsoftJWKS)},
			},
		)
		tc.CheckDestroy = func(*terraform.State) error { return expectJWKS(env)() }
		resource.ParallelTest(t, tc)
	})
}

// A JWKS the project already trusts (a person added it) is refused with the
// import command, and left alone.
func TestAccAuthExternalJWKS_existingIsRefused(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	existing, err := env.Client().AddJWKS(context.Background(), env.ProjectID, apiclient.AddJWKSRequest{JWKSURL: googleJWKS,
		ProviderName: "Google", BranchID: apiclient.Ptr(env.BranchID)})
	env.Must(err)
	t.Cleanup(func() { _ = env.Client().DeleteJWKS(context.Background(), env.ProjectID, existing.ID) })
	cfg := env.Config(fmt.Sprintf(`
resource "neon_auth_external_jwks" "test" {
  project_id    = %q
  branch_id     = %q
  jwks_url      = %q
  provider_name = "Google"
  role_names    = ["authenticated"]
}
`, env.ProjectID, env.BranchID, googleJWKS))
	resource.ParallelTest(t, env.TestCase(resource.TestStep{
		Config: cfg,
		ExpectError: acctest.MatchInOrder("the project already trusts it", "terraform import neon_auth_external_jwks.<name>",
			env.ProjectID+"/"+existing.ID),
	}))
	env.Must(expectJWKS(env, googleJWKS)())
}

// The reference's deprecation of role_names and skip_role_creation shows as
// a warning on each, at plan; the JWKS is added with them all the same.
func TestAccAuthExternalJWKS_deprecatedArgumentsWarn(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	cli := env.CLI(nil, nil)
	cli.Write("main.tf", acctest.RequiredProviders+env.ProviderBlock()+fmt.Sprintf(`
resource "neon_auth_external_jwks" "test" {
  project_id         = %q
  branch_id          = %q
  jwks_url           = %q
  provider_name      = "Google"
  role_names         = ["authenticated", "anonymous"]
  skip_role_creation = true
}
`, env.ProjectID, env.BranchID, googleJWKS))
	cli.Must(0, "init")
	var validated struct {
		Diagnostics []struct {
			Severity, Summary, Detail string
			Snippet                   struct{ Code string }
		}
	}
	if err := json.Unmarshal([]byte(cli.Must(0, "validate", "-json")), &validated); err != nil {
		t.Fatal(err)
	}
	for _, attr := range []string{"role_names", "skip_role_creation"} {
		if !slices.ContainsFunc(validated.Diagnostics, func(d struct {
			Severity, Summary, Detail string
			Snippet                   struct{ Code string }
		}) bool {
			return d.Severity == "warning" && strings.Contains(d.Snippet.Code, attr) && strings.Contains(d.Detail, "only for Neon RLS")
		}) {
			t.Errorf("no warning that %s is deprecated: %+v", attr, validated.Diagnostics)
		}
	}
	cli.Must(0, "apply", "-auto-approve", "-input=false")
	env.Must(expectJWKS(env, googleJWKS)())
	cli.Must(0, "destroy", "-auto-approve", "-input=false")
	env.Must(expectJWKS(env)())
}

// A configuration with both providers, as the official-provider guide sets
// them up: the official provider's neon_jwks_url (a stand-in here) under the
// local name neon, and this provider's neon_auth_external_jwks under
// neonauth, each adding a JWKS to one project. Neither type is taken for the
// other: both are added, the plan after apply is empty, and destroy removes
// both.
func TestAccAuthExternalJWKS_besideTheOfficialJWKSURL(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	double := &officialneontest.Double{BaseURL: env.BaseURL, Key: env.Key}
	cli := env.CLI(nil, map[string]tfprotov6.ProviderServer{"neondatabase/neon": double.Server()})
	ours := strings.Replace(env.ProviderBlock(), `provider "neon" {`, `provider "neonauth" {`, 1)
	cli.Write("main.tf", `
terraform {
  required_providers {
    neon = {
      source = "neondatabase/neon"
    }
    neonauth = {
      source = "neon-auth/neon"
    }
  }
}

provider "neon" {}
`+ours+fmt.Sprintf(`
resource "neon_jwks_url" "microsoft" {
  project_id    = %[1]q
  jwks_url      = %[2]q
  provider_name = "Microsoft"
  role_names    = ["authenticated"]
}

resource "neon_auth_external_jwks" "google" {
  provider      = neonauth
  project_id    = %[1]q
  jwks_url      = %[3]q
  provider_name = "Google"
}
`, env.ProjectID, microsoftJWKS, googleJWKS))
	cli.Must(0, "init", "-input=false")
	cli.Must(0, "apply", "-auto-approve", "-input=false")
	env.Must(expectJWKS(env, googleJWKS, microsoftJWKS)())
	cli.Must(0, "plan", "-detailed-exitcode", "-input=false")
	cli.Must(0, "destroy", "-auto-approve", "-input=false")
	env.Must(expectJWKS(env)())
}
