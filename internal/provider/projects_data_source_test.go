package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// All 25 seeded projects come back although the API pages them.
func TestAccProjectsDataSource_followsEveryPage(t *testing.T) {
	env := newAccEnv(t, func(o *emulator.Options) { o.SeedProjects = 25 })
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
	resource.ParallelTest(t, env.testCase(resource.TestStep{
		Config: env.config(`
data "neon_projects" "all" {}
`),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.neon_projects.all", tfjsonpath.New("projects"), knownvalue.ListExact(checks)),
		},
	}))
}

// The client pages with the emulator's default page size of 10 when asked to:
// 25 projects are three pages, each project once.
func TestUnitListProjectsPagesOfTen(t *testing.T) {
	env := newAccEnv(t, func(o *emulator.Options) { o.SeedProjects = 25 })
	env.Emu.ResetStats()
	projects, err := env.client().ListProjects(t.Context(), apiclientListOptions(10))
	if err != nil {
		t.Fatal(err)
	}
	if len(projects) != 25 {
		t.Fatalf("got %d projects, want 25", len(projects))
	}
	seen := map[string]bool{}
	for _, p := range projects {
		if seen[p.ID] {
			t.Errorf("project %s listed twice", p.ID)
		}
		seen[p.ID] = true
	}
	if n := env.routeCount("GET /projects"); n < 3 {
		t.Errorf("%d GET /projects requests, want at least 3 pages", n)
	}
}

// A project-scoped key sees only its project.
func TestAccProjectsDataSource_scopedKey(t *testing.T) {
	env := newAccEnv(t, func(o *emulator.Options) { o.SeedProjects = 3 })
	own := env.Emu.ProjectIDs()[2]
	key, err := env.Emu.CreateKey(emulator.KeyProject, own)
	if err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, env.testCase(resource.TestStep{
		Config: env.providerBlockWithKey(key) + `
data "neon_projects" "mine" {}
`,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.neon_projects.mine", tfjsonpath.New("projects"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectPartial(map[string]knownvalue.Check{"id": knownvalue.StringExact(own)}),
			})),
		},
	}))
}
