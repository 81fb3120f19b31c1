package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// Every project the key can see, one per page, every page followed: on an
// account that holds others' projects too, the test's project is among
// them, with its name.
func TestAccProjectsDataSource_listsTheTestsProject(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	// Projects are made in NEON_TEST_ORG_ID when it is set.
	orgID, org := "", ""
	if orgID = env.OrgID(); orgID != "" {
		org = fmt.Sprintf("org_id = %q", orgID)
	}
	found, err := env.Client().ListProjects(context.Background(), apiclient.ListProjectsOptions{Search: env.ProjectID, OrgID: orgID})
	env.Must(err)
	name := ""
	for _, p := range found.Projects {
		if p.ID == env.ProjectID {
			name = p.Name
		}
	}
	if name == "" {
		t.Fatalf("searching the projects for %s found %d others, not it", env.ProjectID, len(found.Projects))
	}
	resource.ParallelTest(t, env.TestCase(resource.TestStep{
		Config: env.Config(fmt.Sprintf(`
data "neon_projects" "all" {
  page_size = 1
  %s
}
`, org)),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.neon_projects.all", tfjsonpath.New("projects"), knownvalue.SetPartial([]knownvalue.Check{
				knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"id":         knownvalue.StringExact(env.ProjectID),
					"name":       knownvalue.StringExact(name),
					"pg_version": knownvalue.NotNull(),
					"created_at": knownvalue.NotNull(),
				}),
			})),
		},
	}))
}

// All 25 seeded projects come back with a page size of 10: three pages,
// each project once, in the API's order.
func TestAccProjectsDataSource_followsEveryPage(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "it seeds 25 projects, the account's only ones, and counts the requests of one read", nil,
		func(o *emulator.Options) { o.SeedProjects = 25 })
	ids := env.Emu.ProjectIDs()
	checks := make([]knownvalue.Check, 0, len(ids))
	for _, id := range ids {
		checks = append(checks, knownvalue.ObjectPartial(map[string]knownvalue.Check{
			"id":          knownvalue.StringExact(id),
			"platform_id": knownvalue.StringExact("aws"),
			"pg_version":  knownvalue.NotNull(),
			"locked":      knownvalue.Bool(false),
			"created_at":  knownvalue.NotNull(),
			"proxy_host":  knownvalue.NotNull(),
		}))
	}
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{
			Config: env.Config(`
data "neon_projects" "all" {
  page_size = 10
}
`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.neon_projects.all", tfjsonpath.New("projects"), knownvalue.ListExact(checks)),
			},
		},
		// One read: pages of 10, 10, 5, then the empty end.
		refreshRequests(env, "the projects", map[string]int{"GET /projects": 4}),
	))
}

// A project-scoped key, made through the API, sees only its project.
func TestAccProjectsDataSource_scopedKey(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	own := env.ProjectID
	key := env.NewProjectKey(own)
	resource.ParallelTest(t, env.TestCase(resource.TestStep{
		Config: env.ProviderBlock(fmt.Sprintf("api_key = %q", key.Token)) + `
data "neon_projects" "mine" {}
`,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.neon_projects.mine", tfjsonpath.New("projects"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.StringExact(own)}),
			})),
		},
	}))
}
