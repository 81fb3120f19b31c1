package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
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

// perScope groups requests by the Neon Auth they reach: "<project>/<branch>"
// for the branch-scoped endpoints, "<project>" for the project-level ones,
// "other" for anything else; each scope maps "METHOD …/auth<suffix>" to a
// count.
func perScope(reqs []string) map[string]map[string]int {
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
	if total != len(want) || !mapsEqual(got, wanted) {
		t.Errorf("%s (%s) refreshed with %d requests (%s), want %d: %s, each once", name, scope, total,
			strings.Join(lines, ", "), len(want), strings.Join(want, ", "))
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// betterAuthBranch is every resource type a Better Auth branch can hold, on
// the branch branchRef (an HCL expression or a quoted id; "" for the
// production branch) of the project, named by suffix, and the data sources
// that read the same endpoints. domains chooses neon_auth_domains (the whole
// whitelist) over neon_auth_domain, which must not manage the same list.
func betterAuthBranch(suffix, projectID, branchID string, domains bool) string {
	branch := ""
	if branchID != "" {
		branch = fmt.Sprintf("\n  branch_id  = %q", branchID)
	}
	on := fmt.Sprintf("project_id = neon_auth_integration.%[1]s.project_id\n  branch_id  = neon_auth_integration.%[1]s.branch_id", suffix)
	whitelist := fmt.Sprintf(`
resource "neon_auth_domain" "%[1]s" {
  for_each   = toset(["https://app.example.com", "https://admin.example.com"])
  %[2]s
  domain     = each.value
}
`, suffix, on)
	if domains {
		whitelist = fmt.Sprintf(`
resource "neon_auth_domains" "%[1]s" {
  %[2]s
  domains    = ["https://app.example.com", "https://admin.example.com"]
}
`, suffix, on)
	}
	return fmt.Sprintf(`
resource "neon_auth_integration" "%[1]s" {
  project_id      = %[2]q%[3]s
  auth_provider   = "better_auth"
  name            = "Refresh %[1]s"
  allow_localhost = true
}

resource "neon_auth_email_and_password" "%[1]s" {
  %[4]s
  enabled                    = true
  email_verification_method  = "otp"
  require_email_verification = true
}

resource "neon_auth_organization_plugin" "%[1]s" {
  %[4]s
  enabled            = true
  organization_limit = 5
  creator_role       = "owner"
}

resource "neon_auth_magic_link_plugin" "%[1]s" {
  %[4]s
  enabled    = true
  expires_in = 15
}

resource "neon_auth_phone_number_plugin" "%[1]s" {
  %[4]s
  enabled        = true
  otp_expires_in = 120
}

resource "neon_auth_webhooks" "%[1]s" {
  %[4]s
  enabled        = true
  webhook_url    = "https://hooks.example.com/%[1]s"
  enabled_events = ["user.created", "send.otp"]
}

resource "neon_auth_oauth_provider" "%[1]s_github" {
  %[4]s
  provider_id = "github"
}

resource "neon_auth_oauth_provider" "%[1]s_google" {
  %[4]s
  provider_id   = "google"
  client_id     = "client-%[1]s"
  client_secret = "secret-%[1]s"
}

resource "neon_auth_email_server" "%[1]s" {
  %[4]s
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = "smtp-password"
  sender_email = "noreply@example.com"
  sender_name  = "Example"
}

resource "neon_auth_user" "%[1]s" {
  %[4]s
  email = "%[1]s@example.com"
}
%[5]s
data "neon_auth_integration" "%[1]s" {
  %[4]s
}

data "neon_auth_domains" "%[1]s" {
  %[4]s
}

data "neon_auth_oauth_providers" "%[1]s" {
  %[4]s
  depends_on = [neon_auth_oauth_provider.%[1]s_github, neon_auth_oauth_provider.%[1]s_google]
}

data "neon_auth_email_server" "%[1]s" {
  %[4]s
  depends_on = [neon_auth_email_server.%[1]s]
}
`, suffix, projectID, branch, on, whitelist)
}

// stackBranch is every resource type of a Stack Auth integration on the
// production branch of the project: the SDK keys and the ownership transfer
// exist only there (no Better Auth settings: those configure Better Auth).
func stackBranch(suffix, projectID string) string {
	return fmt.Sprintf(`
resource "neon_auth_integration" "%[1]s" {
  project_id    = %[2]q
  auth_provider = "stack"
}

resource "neon_auth_sdk_keys" "%[1]s" {
  project_id        = neon_auth_integration.%[1]s.project_id
  rotation_triggers = { rotated = "2026-11" }
}

resource "neon_auth_ownership_transfer" "%[1]s" {
  project_id = neon_auth_integration.%[1]s.project_id
}

resource "neon_auth_user" "%[1]s" {
  project_id = neon_auth_integration.%[1]s.project_id
  email      = "%[1]s@example.com"
}

resource "neon_auth_oauth_provider" "%[1]s" {
  project_id  = neon_auth_integration.%[1]s.project_id
  provider_id = "github"
}

resource "neon_auth_domain" "%[1]s" {
  project_id = neon_auth_integration.%[1]s.project_id
  domain     = "https://stack.example.com"
}
`, suffix, projectID)
}

// stackEmailServer is a standard email server on the integration suffix.
func stackEmailServer(suffix string) string {
	return fmt.Sprintf(`
resource "neon_auth_email_server" "%[1]s" {
  project_id   = neon_auth_integration.%[1]s.project_id
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = "smtp-password"
  sender_email = "noreply@example.com"
  sender_name  = "Example"
}
`, suffix)
}

// refreshRequests applies body and returns the requests of the no-change
// plan that follows, grouped by scope; the plan must be empty.
func refreshRequests(t *testing.T, env *accEnv, log *requestLog, body string) map[string]map[string]int {
	t.Helper()
	cli := newCLIDir(t)
	cli.write("main.tf", requiredProviders+env.providerBlock()+body)
	cli.must(0, "init")
	cli.must(0, "apply", "-auto-approve", "-input=false")
	reqs := log.during(func() { cli.must(0, "plan", "-detailed-exitcode", "-input=false") })
	t.Logf("refresh plan: %d requests", len(reqs))
	return perScope(reqs)
}

// The four reads of a branch in branch mode.
var branchReads = []string{"GET …/auth", "GET …/auth/domains", "GET …/auth/plugins", "GET …/auth/webhooks"}

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
	env := newAccEnvWith(t, log.wrap)
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
	body := betterAuthBranch("prod", env.ProjectID, "", false) +
		betterAuthBranch("preview", env.ProjectID, preview, true) +
		stackBranch("stack", stackProject) + stackEmailServer("stack")
	counted := refreshRequests(t, env, &log, body)

	expectReads(t, counted, env.ProjectID+"/"+env.branch(), "Better Auth, production branch", branchReads...)
	expectReads(t, counted, env.ProjectID+"/"+preview, "Better Auth, preview branch", branchReads...)
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
	env := newAccEnvWith(t, log.wrap)
	env.Mode = authAPIProject
	second := env.Emu.ProjectIDs()[1]
	counted := refreshRequests(t, env, &log, stackBranch("one", env.ProjectID)+stackBranch("two", second)+stackEmailServer("two"))

	projectReads := []string{"GET …/auth/integrations", "GET …/auth/domains", "GET …/auth/oauth_providers"}
	expectReads(t, counted, env.ProjectID, "project without an email server", projectReads...)
	expectReads(t, counted, second, "project with an email server", append(projectReads, "GET …/auth/email_server")...)
	if len(counted) != 2 {
		t.Errorf("requests outside the two projects: %v", counted)
	}
}
