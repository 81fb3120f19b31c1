package provider

import (
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"text/template"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// How many requests a refresh costs: the API requests of a no-change plan
// (with refresh) of configurations that hold every resource type, counted
// per (branch, read endpoint) by a handler in front of the emulator.

// requestLog records the method and path of every API request.
type requestLog struct {
	mu   sync.Mutex
	seen []string // "GET /projects/…"
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Method+" "+strings.TrimPrefix(r.URL.Path, "/api/v2"))
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

var (
	branchAuthPath  = regexp.MustCompile(`^(GET|POST|PATCH|PUT|DELETE) /projects/([^/]+)/branches/([^/]+)/((?:auth|data-api)(?:/.*)?)$`)
	projectAuthPath = regexp.MustCompile(`^(GET|POST|PATCH|PUT|DELETE) /projects/([^/]+)/auth(/.*)?$`)
)

// expectReads checks that a scope's refresh read exactly the endpoints
// want, each once, and reports what it did read.
func expectReads(t *testing.T, counted map[string]map[string]int, scope, name string, want ...string) {
	t.Helper()
	got := counted[scope]
	total := 0
	var lines []string
	for ep, n := range got {
		total += n
		lines = append(lines, fmt.Sprintf("%s ×%d", ep, n))
	}
	sort.Strings(lines)
	t.Logf("%s (%s): %d requests: %s", name, scope, total, strings.Join(lines, ", "))
	wanted := map[string]int{}
	for _, ep := range want {
		wanted[ep] = 1
	}
	if total != len(want) || !maps.Equal(got, wanted) {
		t.Errorf("%s (%s) refreshed with %d requests (%s), want %d: %s, each once", name, scope, total,
			strings.Join(lines, ", "), len(want), strings.Join(want, ", "))
	}
}

// everyType is a configuration of testdata/every_resource_type.tf.tmpl:
// Template "better_auth" (every resource type and data source on a Better
// Auth branch), "stack" (a Stack Auth production branch with the SDK keys
// and the ownership transfer) or "stack_email_server".
type everyType struct {
	Template, Name, ProjectID, BranchID string
	Domains                             bool
	// ProjectMode: the project-level endpoints, which lack the types only
	// the branch-scoped API has.
	ProjectMode bool
}

// updateTestdata rewrites what the tests generate into testdata instead of
// failing when it is out of date.
var updateTestdata = flag.Bool("update", false, "rewrite the generated part of testdata/every_resource_type.tf.tmpl")

// The list-backed types of testdata/every_resource_type.tf.tmpl come from
// their rows of acctest.ListedCases: the templates "listed_better_auth"
// (each row's Declared objects, the types with a whole-list type only
// without .Domains) and "listed_stack" (its first one, on the production
// branch; a branch-only type's not in .ProjectMode) are generated, between the file's markers; -update rewrites them.
func TestUnitEveryResourceTypeDeclaresEveryListedType(t *testing.T) {
	const file, begin, end = "testdata/every_resource_type.tf.tmpl",
		"{{- /* Generated from acctest.ListedCases: go test ./internal/provider -run TestUnitEveryResourceTypeDeclaresEveryListedType -update */ -}}\n",
		"{{- /* End of what acctest.ListedCases generates. */ -}}\n"
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated part between %q and %q", file, begin, end)
	}
	var ba, stack strings.Builder
	for _, c := range acctest.ListedCases {
		if c.Whole != "" {
			ba.WriteString("{{if not .Domains}}")
		}
		for _, o := range c.Declared {
			ba.WriteString(hclBlock(c.TypeName, "{{.Name}}_"+acctest.ResourceName(o.Key), append([]string{
				"project_id = neon_auth_integration.{{.Name}}.project_id", "branch_id = neon_auth_integration.{{.Name}}.branch_id"}, c.Args(o)...)))
		}
		if c.Whole != "" {
			ba.WriteString("{{end}}")
		}
		block := hclBlock(c.TypeName, "{{.Name}}", append([]string{"project_id = neon_auth_integration.{{.Name}}.project_id"}, c.Args(c.Declared[0])...))
		if c.BranchOnly {
			block = "{{if not .ProjectMode}}" + block + "{{end}}"
		}
		stack.WriteString(block)
	}
	generated := begin + "{{define \"listed_better_auth\"}}" + ba.String() + "{{end}}\n\n{{define \"listed_stack\"}}" + stack.String() + "{{end}}\n" + end
	if text[i:j+len(end)] == generated {
		return
	}
	if !*updateTestdata {
		t.Fatalf("the generated part of %s is not what acctest.ListedCases gives: run go test ./internal/provider -run %s -update", file, t.Name())
	}
	if err := os.WriteFile(file, []byte(text[:i]+generated+text[j+len(end):]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hclBlock is a resource block with its arguments' equals signs aligned, as
// terraform fmt writes them.
func hclBlock(typeName, name string, args []string) string {
	width := 0
	for _, a := range args {
		width = max(width, len(strings.TrimSpace(strings.SplitN(a, "=", 2)[0])))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nresource %q %q {\n", typeName, name)
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		fmt.Fprintf(&b, "  %-*s = %s\n", width, strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return b.String() + "}\n"
}

// noChangePlanRequests applies the configurations and returns the requests
// of the no-change plan that follows, grouped by scope; the plan must be
// empty.
func noChangePlanRequests(t *testing.T, env *acctest.Env, log *requestLog, configs ...everyType) map[string]map[string]int {
	t.Helper()
	tmpl, err := template.ParseFiles("testdata/every_resource_type.tf.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	for _, c := range configs {
		if err := tmpl.ExecuteTemplate(&body, c.Template, c); err != nil {
			t.Fatal(err)
		}
	}
	cli := env.CLI(nil, nil)
	cli.Write("main.tf", acctest.RequiredProviders+env.ProviderBlock()+body.String())
	cli.Must(0, "init")
	cli.Must(0, "apply", "-auto-approve", "-input=false")
	log.mu.Lock()
	log.seen = nil
	log.mu.Unlock()
	cli.Must(0, "plan", "-detailed-exitcode", "-input=false")
	log.mu.Lock()
	reqs := slices.Clone(log.seen)
	log.mu.Unlock()
	t.Logf("refresh plan: %d requests", len(reqs))
	// By the Neon Auth each reaches: "<project>/<branch>" for the
	// branch-scoped endpoints, "<project>" for the project-level ones,
	// "other" for anything else; each maps "METHOD …/auth<suffix>" to a
	// count.
	out := map[string]map[string]int{}
	add := func(scope, endpoint string) {
		if out[scope] == nil {
			out[scope] = map[string]int{}
		}
		out[scope][endpoint]++
	}
	for _, r := range reqs {
		if m := branchAuthPath.FindStringSubmatch(r); m != nil {
			add(m[2]+"/"+m[3], m[1]+" …/"+m[4])
		} else if m := projectAuthPath.FindStringSubmatch(r); m != nil {
			add(m[2], m[1]+" …/auth"+m[3])
		} else {
			add("other", r)
		}
	}
	return out
}

// A branch refreshes in 4 requests of Neon Auth, and one for the Data API of
// its database, with no request per resource: every resource type and the
// data sources that read the same things, on the production and a preview
// branch of one project (Better Auth, with the Data API) and on the
// production branch of another (Stack Auth, with the SDK keys and the
// ownership transfer that exist only there), refresh with one GET of
// …/auth, …/auth/domains and …/auth/plugins each per branch, plus
// …/auth/webhooks where neon_auth_webhooks is configured (the bundle does
// not carry the webhooks) and …/data-api/neondb where the Data API is. The
// plan is empty, and nothing else is read.
func TestAccRefresh_branchReadsEachEndpointOnce(t *testing.T) {
	var log requestLog
	env := acctest.NewEmulatorEnv(t, "it counts the requests of a refresh", log.wrap)
	env.Mode = authAPIBranch
	preview, err := env.Emu.AddBranch(env.ProjectID, "preview")
	if err != nil {
		t.Fatal(err)
	}
	stackProject := env.Emu.ProjectIDs()[1]
	stackBranchID, err := env.Emu.DefaultBranchID(stackProject)
	if err != nil {
		t.Fatal(err)
	}
	counted := noChangePlanRequests(t, env, &log,
		everyType{Template: "better_auth", Name: "prod", ProjectID: env.ProjectID},
		everyType{Template: "better_auth", Name: "preview", ProjectID: env.ProjectID, BranchID: preview, Domains: true},
		everyType{Template: "stack", Name: "stack", ProjectID: stackProject},
		everyType{Template: "stack_email_server", Name: "stack", ProjectID: stackProject})

	// The reads of a branch in branch mode: the integration, the plugins
	// bundle, each list-backed type's list that the bundle does not carry
	// (today the domains), and each setting the bundle does not carry, at
	// its own path (today the webhooks: four in all).
	stackReads := []string{"GET …/auth", "GET …/auth/plugins"}
	for _, c := range acctest.ListedIn(authAPIBranch) {
		if !c.Bundled {
			stackReads = append(stackReads, "GET …/auth/"+c.Path)
		}
	}
	branchReads := slices.Clone(stackReads)
	for _, set := range betterauth.Settings {
		if !set.Bundled {
			branchReads = append(branchReads, "GET …/auth/"+set.Path)
		}
	}
	branchReads = append(branchReads, "GET …/data-api/neondb")
	expectReads(t, counted, env.ProjectID+"/"+env.BranchID, "Better Auth, production branch", branchReads...)
	expectReads(t, counted, env.ProjectID+"/"+preview, "Better Auth, preview branch", branchReads...)
	expectReads(t, counted, stackProject+"/"+stackBranchID, "Stack Auth, production branch", stackReads...)
	for scope, eps := range counted {
		if !strings.Contains(scope, "/") {
			t.Errorf("requests outside the branches: %s %v", scope, eps)
		}
	}
}

// Project mode (the deprecated project-level endpoints) has no bundle: a
// project refreshes with GET …/auth/integrations, …/auth/domains and
// …/auth/oauth_providers, whatever the number of resources, plus
// …/auth/email_server where neon_auth_email_server is configured.
func TestAccRefresh_projectModeReadsThreeEndpoints(t *testing.T) {
	var log requestLog
	env := acctest.NewEmulatorEnv(t, "it counts the requests of a refresh", log.wrap)
	env.Mode = authAPIProject
	second := env.Emu.ProjectIDs()[1]
	counted := noChangePlanRequests(t, env, &log,
		everyType{Template: "stack", Name: "one", ProjectID: env.ProjectID, ProjectMode: true},
		everyType{Template: "stack", Name: "two", ProjectID: second, ProjectMode: true},
		everyType{Template: "stack_email_server", Name: "two", ProjectID: second, ProjectMode: true})

	// The integrations, and each list-backed type's list (today the
	// domains and the OAuth providers).
	projectReads := []string{"GET …/auth/integrations"}
	for _, c := range acctest.ListedIn(authAPIProject) {
		projectReads = append(projectReads, "GET …/auth/"+c.Path)
	}
	expectReads(t, counted, env.ProjectID, "project without an email server", projectReads...)
	expectReads(t, counted, second, "project with an email server", append(projectReads, "GET …/auth/email_server")...)
	if len(counted) != 2 {
		t.Errorf("requests outside the two projects: %v", counted)
	}
}

// A write is seen by every read that follows it in the same run, although
// the bundle was read (and shared) just before: the write takes its part out
// of the bundle held, and the next reader of that part reads its own
// endpoint; an OAuth provider added is put into the bundle held, as the add
// answered it, and the next reader is served it. In one apply, one after
// the other: the data sources "before"
// read the branch's bundle; the email server changes from shared to
// standard, and a data source reads it; an OAuth provider is added, and a
// data source lists it; allow_localhost is switched on, and the integration
// reads it back. Each read sees the write before it.
func TestAccRefresh_writeThenReadSeesTheWrite(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "it counts the requests of a refresh", nil)
	env.Mode = authAPIBranch
	const (
		emailBefore = "data.neon_auth_email_server.before"
		emailAfter  = "data.neon_auth_email_server.after"
		oauthBefore = "data.neon_auth_oauth_providers.before"
		oauthAfter  = "data.neon_auth_oauth_providers.after"
	)
	step1 := fmt.Sprintf(`
resource "neon_auth_integration" "test" {
  project_id      = %[1]q
  allow_localhost = false
}

resource "neon_auth_domain" "a" {
  project_id = neon_auth_integration.test.project_id
  domain     = "https://a.example.com"
}

resource "neon_auth_email_server" "smtp" {
  project_id = neon_auth_integration.test.project_id
  type       = "shared"
}
`, env.ProjectID)
	// The domain b is created first; the data sources "before" wait for it,
	// so they are read during the apply, and the writes wait for them.
	step2 := fmt.Sprintf(`
resource "neon_auth_domain" "a" {
  project_id = %[1]q
  domain     = "https://a.example.com"
}

resource "neon_auth_domain" "b" {
  project_id = %[1]q
  domain     = "https://b.example.com"
}

data "neon_auth_oauth_providers" "before" {
  project_id = %[1]q
  depends_on = [neon_auth_domain.b]
}

data "neon_auth_email_server" "before" {
  project_id = %[1]q
  depends_on = [neon_auth_domain.b]
}

resource "neon_auth_email_server" "smtp" {
  project_id   = %[1]q
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = "smtp-password"
  sender_email = "noreply@example.com"
  sender_name  = "Example"
  depends_on   = [data.neon_auth_oauth_providers.before, data.neon_auth_email_server.before]
}

data "neon_auth_email_server" "after" {
  project_id = %[1]q
  depends_on = [neon_auth_email_server.smtp]
}

resource "neon_auth_oauth_provider" "github" {
  project_id  = %[1]q
  provider_id = "github"
  depends_on  = [data.neon_auth_email_server.after]
}

data "neon_auth_oauth_providers" "after" {
  project_id = %[1]q
  depends_on = [neon_auth_oauth_provider.github]
}

resource "neon_auth_integration" "test" {
  project_id      = %[1]q
  allow_localhost = true
  depends_on      = [data.neon_auth_oauth_providers.after]
}
`, env.ProjectID)
	providers := func(ids ...string) knownvalue.Check {
		var items []knownvalue.Check
		for _, id := range ids {
			items = append(items, knownvalue.ObjectExact(map[string]knownvalue.Check{"id": knownvalue.StringExact(id), "type": knownvalue.StringExact("shared")}))
		}
		return knownvalue.ListExact(items)
	}
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{Config: env.Config(step1)},
		resource.TestStep{
			PreConfig: func() { env.Emu.ResetStats() },
			Config:    env.Config(step2),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(emailBefore, tfjsonpath.New("type"), knownvalue.StringExact("shared")),
				statecheck.ExpectKnownValue(oauthBefore, tfjsonpath.New("providers"), providers()),
				statecheck.ExpectKnownValue(emailAfter, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
				statecheck.ExpectKnownValue(emailAfter, tfjsonpath.New("host"), knownvalue.StringExact("smtp.example.com")),
				statecheck.ExpectKnownValue(oauthAfter, tfjsonpath.New("providers"), providers("github")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("allow_localhost"), knownvalue.Bool(true)),
				// Each read came from the bundle, none from the parts' own
				// endpoints: the sharing is what is under test.
				// The bundle is read once by the plan and once by the apply
				// (each its own provider process); a read after a write of
				// a part reads that part's own endpoint, once, but for the
				// OAuth providers, which the add's answer amended; the
				// bundle held serves the rest.
				acctest.APICheck(func() error {
					if n := env.RouteCount("GET /auth/plugins"); n > 2 {
						return fmt.Errorf("%d GET …/auth/plugins, want one by the plan and one by the apply", n)
					}
					for own, want := range map[string]int{"/email_provider": 1, "/oauth_providers": 0, "/allow_localhost": 1} {
						if n := env.RouteCount("GET /auth" + own); n != want {
							return fmt.Errorf("%d GET …/auth%s, want %d after its write", n, own, want)
						}
					}
					return nil
				}),
			},
		},
	))
}

// refreshRequests is a step that refreshes the state alone and checks the
// requests of that one refresh, by route (see acctest.Env.RouteCount), on
// the in-process emulator: its Check runs after `terraform refresh` and
// before the step's follow-up plan. what names what is refreshed, for the
// error.
func refreshRequests(env *acctest.Env, what string, want map[string]int) resource.TestStep {
	return resource.TestStep{
		PreConfig:    env.Emu.ResetStats,
		RefreshState: true,
		Check: func(*terraform.State) error {
			for _, route := range slices.Sorted(maps.Keys(want)) {
				if n := env.RouteCount(route); n != want[route] {
					return fmt.Errorf("refreshing %s made %d %s requests, want %d", what, n, route, want[route])
				}
			}
			return nil
		},
	}
}
