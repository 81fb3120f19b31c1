package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// consoleSetup is Neon Auth made on a branch of the test's project outside
// Terraform, through the API as the console or Neon's CLI would: the
// integration, the objects each list-backed type's row says a person made
// (two domains, one spelled otherwise than the API stores it, and the
// google OAuth provider) and the shared email server; in branch mode
// also the settings each settings resource type's create step writes. And
// what puts it to work: the Data API of the branch's neondb (with an
// external identity provider, which any Neon Auth allows) and a JWKS the
// project trusts for the branch.
func consoleSetup(env *acctest.Env, branchID string) {
	env.T().Helper()
	on := *env
	on.BranchID = branchID
	ctx, c, s := context.Background(), env.Client(), on.Scope()
	_, err := c.CreateIntegration(ctx, s, apiclient.CreateIntegrationRequest{AuthProvider: env.AuthProvider()})
	env.Must(err)
	for _, lc := range acctest.ListedIn(env.Mode) {
		for _, o := range lc.Found {
			if err := lc.Make(c, s, o); err != nil {
				env.T().Fatalf("making the %s %s: %v", lc.TypeName, o.Key, err)
			}
		}
	}
	// A new Better Auth branch has no email provider until one is saved
	// (GET answers 404); the console saves Neon's shared one.
	_, err = c.UpdateEmailServer(ctx, s, apiclient.SharedEmailServer())
	env.Must(err)
	if env.Mode == authAPIBranch {
		for _, c := range acctest.SettingsCases {
			if err := c.API.Patch(env, branchID, c.OnCreate); err != nil {
				env.T().Fatalf("seeding %s: %v", c.TypeName, err)
			}
		}
	}
	_, err = c.CreateDataAPI(ctx, apiclient.DataAPIRef{ProjectID: env.ProjectID, BranchID: branchID, DatabaseName: "neondb"},
		apiclient.CreateDataAPIRequest{AuthProvider: apiclient.DataAPIAuthProvider(apiclient.DataAPIAuthExternal), JWKSURL: apiclient.Ptr(googleJWKS),
			ProviderName: apiclient.Ptr("Google"), Settings: &apiclient.DataAPISettings{DBMaxRows: apiclient.Ptr(100)}})
	env.Must(err)
	_, err = c.AddJWKS(ctx, env.ProjectID, apiclient.AddJWKSRequest{JWKSURL: microsoftJWKS, ProviderName: "Microsoft", BranchID: apiclient.Ptr(branchID)})
	env.Must(err)
}

// listBlock is a list block of a .tfquery.hcl file over the project; args
// are more arguments of the block, one per string.
func listBlock(typeName, name, projectID string, args ...string) string {
	more := ""
	for _, a := range args {
		more += "  " + a + "\n"
	}
	return fmt.Sprintf(`
list %q %q {
  provider = neon
%s  config {
    project_id = %q
  }
}
`, typeName, name, more, projectID)
}

// `terraform query` finds what the console made, on every branch with Neon
// Auth in branch mode: identities with the branch, canonical keys (domains),
// display names a person recognises, and the resources' own values.
func TestAccQuery_findsWhatExists(t *testing.T) {
	// Every branch of the project is the test's own.
	env := acctest.NewProjectEnv(t)
	env.Mode = authAPIBranch
	prod := env.BranchID
	preview := acctest.NewBranch(t, env.Client(), env.ProjectID, prod, "preview")
	consoleSetup(env, prod)
	consoleSetup(env, preview)
	// The provider block is the configuration's (step 1).
	query := listBlock("neon_auth_integration", "all", env.ProjectID) +
		listBlock("neon_auth_data_api", "all", env.ProjectID, "include_resource = true") +
		listBlock("neon_auth_external_jwks", "all", env.ProjectID)
	scope := func(branch string, extra ...string) map[string]knownvalue.Check {
		m := map[string]knownvalue.Check{"project_id": knownvalue.StringExact(env.ProjectID), "branch_id": knownvalue.StringExact(branch)}
		for i := 0; i < len(extra); i += 2 {
			m[extra[i]] = knownvalue.StringExact(extra[i+1])
		}
		return m
	}
	// Every list-backed type: each object consoleSetup made, on both
	// branches, named by its canonical key, shown with its branch.
	var checks []querycheck.QueryResultCheck
	for _, c := range acctest.ListedCases {
		query += listBlock(c.TypeName, "all", env.ProjectID)
		checks = append(checks, querycheck.ExpectLength(c.TypeName+".all", 2*len(c.Found)))
		for _, o := range c.Found {
			key := c.Key(o.Key)
			checks = append(checks, querycheck.ExpectIdentity(c.TypeName+".all", scope(prod, c.KeyAttribute, key)),
				querycheck.ExpectIdentity(c.TypeName+".all", scope(preview, c.KeyAttribute, key)),
				querycheck.ExpectResourceDisplayName(c.TypeName+".all", queryfilter.ByResourceIdentity(scope(preview, c.KeyAttribute, key)),
					knownvalue.StringExact(key+" (preview)")))
		}
	}
	// Every settings resource type, with its values: one per branch, and
	// production's are what consoleSetup wrote.
	for _, c := range acctest.SettingsCases {
		query += listBlock(c.TypeName, "all", env.ProjectID, "include_resource = true")
		var values []querycheck.KnownValueCheck
		for attr, v := range c.Created {
			values = append(values, querycheck.KnownValueCheck{Path: tfjsonpath.New(attr), KnownValue: v})
		}
		checks = append(checks, querycheck.ExpectLength(c.TypeName+".all", 2),
			querycheck.ExpectResourceKnownValues(c.TypeName+".all", queryfilter.ByResourceIdentity(scope(prod)), values))
	}
	tc := env.TestCase(
		resource.TestStep{Config: env.Config("")},
		resource.TestStep{
			Query:  true,
			Config: query,
			QueryResultChecks: append([]querycheck.QueryResultCheck{
				querycheck.ExpectLength("neon_auth_integration.all", 2),
				querycheck.ExpectIdentity("neon_auth_integration.all", scope(prod, "auth_provider", "better_auth")),
				querycheck.ExpectIdentity("neon_auth_integration.all", scope(preview, "auth_provider", "better_auth")),
				querycheck.ExpectLength("neon_auth_data_api.all", 2),
				querycheck.ExpectResourceDisplayName("neon_auth_data_api.all",
					queryfilter.ByResourceIdentity(scope(preview, "database_name", "neondb")), knownvalue.StringExact("neondb (preview)")),
				querycheck.ExpectResourceKnownValues("neon_auth_data_api.all", queryfilter.ByResourceIdentity(scope(prod, "database_name", "neondb")),
					[]querycheck.KnownValueCheck{{Path: tfjsonpath.New("settings").AtMapKey("db_max_rows"), KnownValue: knownvalue.Int64Exact(100)}}),
				querycheck.ExpectLength("neon_auth_external_jwks.all", 2),
			}, checks...),
		},
	)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.ListResources)
	resource.Test(t, tc)
}

// In project mode settings (and the list-backed types only the
// branch-scoped API has) have no endpoint: listing any of them says so,
// naming the type.
func TestAccQuery_settingsNeedBranchMode(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	env.EnableAuth()
	steps := []resource.TestStep{{Config: env.ProviderBlock(`auth_api = "project"`)}}
	types := []string{}
	for _, c := range acctest.SettingsCases {
		types = append(types, c.TypeName)
	}
	for _, c := range acctest.ListedCases {
		if c.BranchOnly {
			types = append(types, c.TypeName)
		}
	}
	for _, typeName := range types {
		steps = append(steps, resource.TestStep{
			Query:       true,
			Config:      listBlock(typeName, "all", env.ProjectID),
			ExpectError: acctest.MatchInOrder("`" + typeName + "` is only offered by Neon's branch-scoped"),
		})
	}
	tc := env.TestCase(steps...)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.ListResources)
	resource.Test(t, tc)
}

// The whole import flow through the CLI, in both API families: Neon Auth
// made outside Terraform (in branch mode on two branches), `terraform query
// -generate-config-out` writes import and resource blocks for everything
// found, the generated file applies as it is (everything imported, nothing
// created or destroyed), the next plan is empty, and the provider wrote
// nothing.
func TestAccQuery_generateConfigAndImport(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			// Every branch of the project is the test's own.
			env := acctest.NewProjectEnv(t)
			env.Mode = mode
			counted, sent := env.Counted()
			cli := env.CLI(counted, nil)
			if why := acctest.Lacks(t, acctest.ListResources); why != "" {
				t.Skip(why)
			}
			types := []string{"neon_auth_integration", "neon_auth_email_server", "neon_auth_data_api", "neon_auth_external_jwks"}
			want := 1 + 1 + 1 + 1 // on the production branch
			for _, c := range acctest.ListedIn(mode) {
				types = append(types, c.TypeName)
				want += len(c.Found)
			}
			if mode == authAPIBranch {
				consoleSetup(env, env.ChildBranch("preview"))
				for _, c := range acctest.SettingsCases {
					types = append(types, c.TypeName)
				}
				want = 2 * (want + len(acctest.SettingsCases)) // and on the preview branch
			}
			consoleSetup(env, env.BranchID)
			var query strings.Builder
			for _, typ := range types {
				query.WriteString(listBlock(typ, "all", env.ProjectID))
			}
			cli.Write("main.tf", acctest.RequiredProviders+env.ProviderBlock())
			cli.Write("search.tfquery.hcl", query.String())
			cli.Must(0, "init")
			out := cli.Must(0, "query", "-generate-config-out=generated.tf")
			generated := cli.Read("generated.tf")
			if n := strings.Count(generated, "import {"); n != want {
				t.Fatalf("generated.tf has %d import blocks, want %d:\n%s\nquery output:\n%s", n, want, generated, out)
			}
			plan := cli.Must(0, "plan", "-out=import.tfplan", "-input=false")
			if w := fmt.Sprintf("%d to import, 0 to add, 0 to change, 0 to destroy", want); !strings.Contains(plan, w) {
				t.Fatalf("the plan of the generated configuration is not %q:\n%s\ngenerated.tf:\n%s", w, plan, generated)
			}
			cli.Must(0, "apply", "import.tfplan")
			if code, out := cli.Run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
				t.Fatalf("the plan after importing exited %d, want 0 (no changes):\n%s\ngenerated.tf:\n%s", code, out, generated)
			}
			if n := sent.Writes.Load(); n != 0 {
				t.Errorf("query, import and the empty plans sent %d writes to the API, want none", n)
			}
		})
	}
}

// A project with hundreds of domains is listed with one request per list
// endpoint, as a refresh reads them: every result is read from the shared
// list.
func TestAccQuery_oneRequestPerList(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "it counts the requests per route, as the emulator records them", nil)
	cli := env.CLI(nil, nil)
	if why := acctest.Lacks(t, acctest.ListResources); why != "" {
		t.Skip(why)
	}
	env.EnableAuth()
	const n = 300
	for i := range n {
		env.Must(env.Emu.AddDomain(env.ProjectID, fmt.Sprintf("https://app%03d.example.com", i)))
	}
	cli.Write("main.tf", acctest.RequiredProviders+env.ProviderBlock())
	// Terraform shows 100 results unless the list block asks for more.
	cli.Write("search.tfquery.hcl", listBlock("neon_auth_domain", "all", env.ProjectID, "limit = 1000"))
	cli.Must(0, "init")
	env.Emu.ResetStats()
	out := cli.Must(0, "query", "-no-color")
	if got := strings.Count(out, "https://app") / 2; got != n { // in the identity and in the display name
		t.Errorf("the query shows %d domains, want %d:\n%s", got, n, out)
	}
	if got := env.RouteCount("GET /auth/domains"); got != 1 {
		t.Errorf("%d GET …/auth/domains requests for %d domains, want 1", got, n)
	}
}
