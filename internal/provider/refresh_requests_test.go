package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/template"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// How many requests a refresh costs: the API requests of a no-change plan
// (with refresh) of configurations that hold every resource type, counted
// per (branch, read endpoint) by a handler in front of the emulator.

// requestLog records the method and path of every API request while on.
type requestLog struct {
	mu   sync.Mutex
	on   bool
	seen []string // "GET /projects/…"
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		if l.on {
			l.seen = append(l.seen, r.Method+" "+strings.TrimPrefix(r.URL.Path, "/api/v2"))
		}
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// during records the requests that run sends.
func (l *requestLog) during(run func()) []string {
	l.mu.Lock()
	l.on, l.seen = true, nil
	l.mu.Unlock()
	run()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on = false
	return slices.Clone(l.seen)
}

var (
	branchAuthPath  = regexp.MustCompile(`^(GET|POST|PATCH|PUT|DELETE) /projects/([^/]+)/branches/([^/]+)/auth(/.*)?$`)
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

// everyType renders a template of testdata/every_resource_type.tf.tmpl:
// "better_auth" (every resource type and data source on a Better Auth
// branch), "stack" (a Stack Auth production branch with the SDK keys and
// the ownership transfer) or "stack_email_server".
func everyType(t *testing.T, name string, data everyTypeData) string {
	t.Helper()
	tmpl, err := template.ParseFiles("testdata/every_resource_type.tf.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tmpl.ExecuteTemplate(&b, name, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

type everyTypeData struct {
	Name, ProjectID, BranchID string
	Domains                   bool
}

// noChangePlanRequests applies body and returns the requests of the no-change
// plan that follows, grouped by scope; the plan must be empty.
func noChangePlanRequests(t *testing.T, env *accEnv, log *requestLog, body string) map[string]map[string]int {
	t.Helper()
	cli := newCLIDir(t, New("test")(), nil)
	cli.write("main.tf", requiredProviders+env.providerBlock()+body)
	cli.must(0, "init")
	cli.must(0, "apply", "-auto-approve", "-input=false")
	reqs := log.during(func() { cli.must(0, "plan", "-detailed-exitcode", "-input=false") })
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
			add(m[2]+"/"+m[3], m[1]+" …/auth"+m[4])
		} else if m := projectAuthPath.FindStringSubmatch(r); m != nil {
			add(m[2], m[1]+" …/auth"+m[3])
		} else {
			add("other", r)
		}
	}
	return out
}

// branchReads are the reads of a branch in branch mode: the integration, the
// domains, the plugins bundle, and each setting the bundle does not carry,
// at its own path (today the webhooks: four in all).
func branchReads() []string {
	reads := []string{"GET …/auth", "GET …/auth/domains", "GET …/auth/plugins"}
	for _, set := range betterauth.Settings {
		if !set.Bundled {
			reads = append(reads, "GET …/auth/"+set.Path)
		}
	}
	return reads
}

// A branch refreshes in 4 requests, with no request per resource: every
// resource type and the data sources that read the same things, on the
// production and a preview branch of one project (Better Auth) and on the
// production branch of another (Stack Auth, with the SDK keys and the
// ownership transfer that exist only there), refresh with one GET of
// …/auth, …/auth/domains and …/auth/plugins each per branch, plus
// …/auth/webhooks where neon_auth_webhooks is configured (the bundle does
// not carry the webhooks). The plan is empty, and nothing else is read.
func TestAccRefresh_branchReadsFourEndpoints(t *testing.T) {
	var log requestLog
	env := newEmulatorEnv(t, "it counts the requests of a refresh", log.wrap)
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
	stack := everyTypeData{Name: "stack", ProjectID: stackProject}
	body := everyType(t, "better_auth", everyTypeData{Name: "prod", ProjectID: env.ProjectID}) +
		everyType(t, "better_auth", everyTypeData{Name: "preview", ProjectID: env.ProjectID, BranchID: preview, Domains: true}) +
		everyType(t, "stack", stack) + everyType(t, "stack_email_server", stack)
	counted := noChangePlanRequests(t, env, &log, body)

	expectReads(t, counted, env.ProjectID+"/"+env.BranchID, "Better Auth, production branch", branchReads()...)
	expectReads(t, counted, env.ProjectID+"/"+preview, "Better Auth, preview branch", branchReads()...)
	expectReads(t, counted, stackProject+"/"+stackBranchID, "Stack Auth, production branch",
		"GET …/auth", "GET …/auth/domains", "GET …/auth/plugins")
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
	env := newEmulatorEnv(t, "it counts the requests of a refresh", log.wrap)
	env.Mode = authAPIProject
	second := env.Emu.ProjectIDs()[1]
	two := everyTypeData{Name: "two", ProjectID: second}
	counted := noChangePlanRequests(t, env, &log, everyType(t, "stack", everyTypeData{Name: "one", ProjectID: env.ProjectID})+
		everyType(t, "stack", two)+everyType(t, "stack_email_server", two))

	projectReads := []string{"GET …/auth/integrations", "GET …/auth/domains", "GET …/auth/oauth_providers"}
	expectReads(t, counted, env.ProjectID, "project without an email server", projectReads...)
	expectReads(t, counted, second, "project with an email server", append(projectReads, "GET …/auth/email_server")...)
	if len(counted) != 2 {
		t.Errorf("requests outside the two projects: %v", counted)
	}
}

// A write is seen by every read that follows it in the same run, although
// the bundle was read (and shared) just before. In one apply, one after the
// other: the data sources "before" read the branch's bundle; the email
// server changes from shared to standard, and a data source reads it; an
// OAuth provider is added, and a data source lists it; allow_localhost is
// switched on, and the integration reads it back. Each read sees the write
// before it.
func TestAccRefresh_writeThenReadSeesTheWrite(t *testing.T) {
	env := newEmulatorEnv(t, "it counts the requests of a refresh", nil)
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
	resource.ParallelTest(t, env.testCase(
		resource.TestStep{Config: env.config(step1)},
		resource.TestStep{
			PreConfig: func() { env.Emu.ResetStats() },
			Config:    env.config(step2),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(emailBefore, tfjsonpath.New("type"), knownvalue.StringExact("shared")),
				statecheck.ExpectKnownValue(oauthBefore, tfjsonpath.New("providers"), providers()),
				statecheck.ExpectKnownValue(emailAfter, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
				statecheck.ExpectKnownValue(emailAfter, tfjsonpath.New("host"), knownvalue.StringExact("smtp.example.com")),
				statecheck.ExpectKnownValue(oauthAfter, tfjsonpath.New("providers"), providers("github")),
				statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("allow_localhost"), knownvalue.Bool(true)),
				// Each read came from the bundle, none from the parts' own
				// endpoints: the sharing is what is under test.
				apiCheck(func() error {
					for _, own := range []string{"/email_provider", "/oauth_providers", "/allow_localhost"} {
						if n := env.routeCount("GET /auth" + own); n != 0 {
							return fmt.Errorf("%d GET …/auth%s, want the bundle read instead", n, own)
						}
					}
					return nil
				}),
			},
		},
	))
}

// Every part of a branch's Better Auth configuration, read at once, costs
// one GET …/auth/plugins. An answer without the parts (every member is
// optional in the reference) makes each part read from its own endpoint,
// which says the same; the plugins that have no endpoint of their own are
// then an error that says so.
func TestUnitBundle_everyPartFromOneReadOrItsOwnEndpoint(t *testing.T) {
	var empty atomic.Bool
	var emptied atomic.Int32 // empty answers given
	env := newEmulatorEnv(t, "it counts the requests of a read", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if empty.Load() && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/auth/plugins") {
				emptied.Add(1)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte("{}"))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	env.Mode = authAPIBranch
	env.enableAuth()
	ctx, c, s := context.Background(), env.client(), env.scope()
	seedSettings(t, env, env.BranchID)
	if _, err := c.UpdateEmailServer(ctx, s, apiclient.SharedEmailServer()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "github"}); err != nil {
		t.Fatal(err)
	}

	env.Emu.ResetStats()
	bundled := bundledParts(neonauth.New(env.client(), neonauth.Options{Family: apiclient.FamilyBranch, ReadMaxAge: neonauth.DefaultReadMaxAge}), s)
	if n := env.Emu.Stats().Total; n != 1 || env.routeCount("GET /auth/plugins") != 1 {
		t.Errorf("%d requests %v, want one GET …/auth/plugins", n, env.Emu.Stats().Requests)
	}
	for part, v := range bundled {
		if strings.HasPrefix(v, "error") {
			t.Errorf("%s from the bundle: %s", part, v)
		}
	}
	held := emulatorSettingsJSON(t, env)
	for _, set := range betterauth.Settings {
		if set.Bundled && bundled[set.Name] != held[set.Name] {
			t.Errorf("%s from the bundle = %s, the emulator holds %s", set.Name, bundled[set.Name], held[set.Name])
		}
	}

	empty.Store(true)
	env.Emu.ResetStats()
	own := bundledParts(neonauth.New(env.client(), neonauth.Options{Family: apiclient.FamilyBranch, ReadMaxAge: neonauth.DefaultReadMaxAge}), s)
	if n := emptied.Load(); n != 1 {
		t.Errorf("%d GET …/auth/plugins, want 1", n)
	}
	endpoints := map[string]string{"email_provider": "email_provider", "oauth_providers": "oauth_providers", "allow_localhost": "allow_localhost"}
	for _, set := range betterauth.Settings {
		switch {
		case set.Bundled && set.Read:
			endpoints[set.Name] = set.Path
		case set.Bundled:
			if want := "error: " + neonauth.ErrPluginNotReported.Error(); own[set.Name] != want {
				t.Errorf("%s missing from the bundle = %s, want %q", set.Name, own[set.Name], want)
			}
		}
	}
	for part, ep := range endpoints {
		if n := env.routeCount("GET /auth/" + ep); n != 1 {
			t.Errorf("%d GET …/auth/%s, want 1", n, ep)
		}
		if own[part] != bundled[part] {
			t.Errorf("%s: the bundle says %s, its own endpoint %s", part, bundled[part], own[part])
		}
	}
}

// emulatorSettingsJSON is every setting the emulator holds for the
// production branch, by name, as JSON with its keys in order.
func emulatorSettingsJSON(t *testing.T, env *accEnv) map[string]string {
	t.Helper()
	a, _ := env.Emu.BranchAuth(env.ProjectID, env.BranchID)
	raw, err := json.Marshal(a.Settings)
	if err != nil {
		t.Fatal(err)
	}
	var parts map[string]map[string]any
	if err := json.Unmarshal(raw, &parts); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, v := range parts {
		text, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(text)
	}
	return out
}

// bundledParts reads every part of the bundle through d, all at once, and
// gives each as JSON (or "error: …").
func bundledParts(d *neonauth.Service, scope apiclient.Scope) map[string]string {
	ctx, s := context.Background(), neonauth.Scope{Scope: scope}
	reads := map[string]func() (any, error){
		"email_provider":  func() (any, error) { return d.EmailServer(ctx, s) },
		"oauth_providers": func() (any, error) { return d.OAuthProviders(ctx, s) },
		"allow_localhost": func() (any, error) { return d.AllowLocalhost(ctx, s) },
	}
	for _, set := range betterauth.Settings {
		if set.Bundled {
			reads[set.Name] = func() (any, error) { return neonauth.ReadSetting[map[string]any](ctx, d, s, set) }
		}
	}
	out := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, read := range reads {
		wg.Go(func() {
			v, err := read()
			text, jerr := json.Marshal(v)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				out[name] = "error: " + err.Error()
			case jerr != nil:
				out[name] = "error: " + jerr.Error()
			default:
				out[name] = string(text)
			}
		})
	}
	wg.Wait()
	return out
}

// refreshRequests is a step that refreshes the state alone and checks the
// requests of that one refresh, by route (see routeCount), on the in-process
// emulator: its Check runs after `terraform refresh` and before the step's
// follow-up plan. what names what is refreshed, for the error.
func refreshRequests(env *accEnv, what string, want map[string]int) resource.TestStep {
	return resource.TestStep{
		PreConfig:    env.Emu.ResetStats,
		RefreshState: true,
		Check: func(*terraform.State) error {
			for _, route := range slices.Sorted(maps.Keys(want)) {
				if n := env.routeCount(route); n != want[route] {
					return fmt.Errorf("refreshing %s made %d %s requests, want %d", what, n, route, want[route])
				}
			}
			return nil
		},
	}
}
