package acctest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The acceptance test environment: one test's place on the API under test
// (see target.go), the provider served in-process to the real Terraform
// CLI, and the configurations it runs.

// The provider's auth_api values: the API family a configuration uses.
const (
	ModeProject = "project"
	ModeBranch  = "branch"
)

// Env is one test's place on the API: a branch (or a project) of its
// own, so that tests run in parallel without sharing anything.
type Env struct {
	t *testing.T
	// Emu is the in-process emulator; nil on a remote target, where the
	// tests that need it skip (NewEmulatorEnv).
	Emu       *emulator.Emulator
	BaseURL   string
	Key       string
	ProjectID string
	// BranchID is the branch the test works on: a branch of its own in
	// branch mode, the production branch of a project of its own in
	// project mode. Configurations name it.
	BranchID string
	// Mode is the provider's auth_api, always written into the provider
	// block.
	Mode string
	// remote is the remote target; nil in-process.
	remote *remoteTarget
	// validator checks the traffic of a remote target on the client's side
	// (in-process it checks it on the emulator's).
	validator *apispec.Validator
}

// T is the test the env belongs to.
func (e *Env) T() *testing.T { return e.t }

// NewBranchEnv is a branch of the test's own, in branch mode, made through
// the API from the production branch of a project whose production branch
// has no Neon Auth: an emulator's project in-process, the suite's project
// remotely.
func NewBranchEnv(t *testing.T) *Env {
	t.Helper()
	e := newTargetEnv(t)
	e.Mode = ModeBranch
	name := "test-" + strings.Trim(nonName.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if e.remote != nil {
		e.ProjectID, name = e.remote.suiteProject(t), e.remote.name(t)
	}
	e.BranchID = NewBranch(t, e.Client(), e.ProjectID, "", name)
	return e
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// NewProjectEnv is the production branch of a project of the test's own, in
// project mode: for what only a production branch whose Neon Auth is free
// allows (the project-level API, Stack Auth, ownership transfer). Remotely
// the project is created for the test, which skips when the key may not
// create projects.
func NewProjectEnv(t *testing.T) *Env {
	t.Helper()
	e := newTargetEnv(t)
	if e.remote != nil {
		e.ProjectID, e.BranchID = e.remote.newProject(t, e.Client())
	}
	return e
}

// newTargetEnv is the target of the run with nothing of the test's own yet,
// in project mode: the remote API, or an emulator started for the test.
func newTargetEnv(t *testing.T) *Env {
	t.Helper()
	r := remoteRun
	if r == nil {
		return NewEmulatorEnv(t, "", nil)
	}
	if r.key == "" {
		t.Fatalf("%s=1 runs the tests against a remote API, which needs %s (and %s for another server than Neon's)",
			envTestRemote, envAPIKey, envBaseURL)
	}
	if _, err := apiclient.ParseBaseURL(r.baseURL); err != nil {
		t.Fatalf("%s: %v", envBaseURL, err)
	}
	return &Env{t: t, BaseURL: r.baseURL, Key: r.key, Mode: ModeProject, remote: r, validator: validated(t)}
}

// NewEnvWithoutAPI is an env with no place on any API, for configurations
// that send no request (a provider function called without a provider
// block).
func NewEnvWithoutAPI(t *testing.T) *Env { return &Env{t: t} }

// NewEmulatorEnv starts an emulator for the test, in project mode on the
// production branch of its first project: for what only the in-process
// emulator can do (why says what: inject faults, lose answers, count
// requests, use its own features), so that remotely the test skips, saying
// why. Its traffic is checked against the API reference (the test fails on
// any violation); wrap, which may be nil, goes in front of that check, to
// lose or rewrite answers on purpose. Rate limits are off unless opts set
// them.
func NewEmulatorEnv(t *testing.T, why string, wrap func(http.Handler) http.Handler, opts ...func(*emulator.Options)) *Env {
	t.Helper()
	if remoteRun != nil {
		t.Skipf("runs only against the in-process emulator: %s", why)
	}
	// A new Data API boots for a fifth of a second: the provider's wait for
	// it runs, without a second of it in every test that creates one.
	o := emulator.Options{SeedProjects: 2, AccountRequestsPerMinute: -1, RouteRequestsPerSecond: -1, DataAPIBootTime: 200 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	emu, err := emulator.New(o)
	if err != nil {
		t.Fatalf("starting emulator: %v", err)
	}
	h := validated(t).Middleware(emu)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = emu.Close()
	})
	e := &Env{t: t, Emu: emu, BaseURL: srv.URL + "/api/v2/", Key: emu.BootstrapKey(), ProjectID: emu.ProjectIDs()[0], Mode: ModeProject}
	if e.BranchID, err = emu.DefaultBranchID(e.ProjectID); err != nil {
		t.Fatal(err)
	}
	return e
}

// Modes are the two API families of the provider.
var Modes = []string{ModeProject, ModeBranch}

// InBothModes runs a scenario once per API family: in project mode on the
// production branch of a project of its own, in branch mode on a branch of
// its own. The same configuration must behave the same through the
// project-level endpoints and their branch-scoped successors.
func InBothModes(t *testing.T, scenario func(t *testing.T, env *Env)) {
	t.Run(ModeProject, func(t *testing.T) { scenario(t, NewProjectEnv(t)) })
	t.Run(ModeBranch, func(t *testing.T) { scenario(t, NewBranchEnv(t)) })
}

// ProviderBlock points the provider at this test's API — the address goes
// into the configuration, never into a process-wide environment variable —
// with its key, the env's mode and the target's pacing, each unless one of
// args sets it (`auth_api = null` leaves the provider's default), and then
// args, one per line. In-process the emulator has no rate limits and the
// provider keeps none either; remotely the documented ones hold, and the
// provider paces every run on this machine together.
func (e *Env) ProviderBlock(args ...string) string {
	sets := func(names ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool {
			return slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(strings.TrimSpace(a), n) })
		})
	}
	lines := []string{fmt.Sprintf("base_url = %q", e.BaseURL)}
	if !sets("api_key") {
		lines = append(lines, fmt.Sprintf("api_key = %q", e.Key))
	}
	if !sets("auth_api") {
		lines = append(lines, fmt.Sprintf("auth_api = %q", e.Mode))
	}
	switch {
	case sets("requests_per_minute", "shared_rate_limit"):
	case e.remote != nil:
		lines = append(lines, "shared_rate_limit = true")
	default:
		lines = append(lines, "requests_per_minute = 100000")
	}
	return "\nprovider \"neon\" {\n  " + strings.Join(append(lines, args...), "\n  ") + "\n}\n"
}

// Config is the provider block followed by the resources under test.
func (e *Env) Config(body string) string { return e.ProviderBlock() + body }

// Resource is a resource block of typeName named name on the test's project
// and branch (no branch_id when BranchID is empty: the production branch),
// with the given arguments, one per string.
func (e *Env) Resource(typeName, name string, args ...string) string {
	if e.BranchID != "" {
		args = append([]string{fmt.Sprintf("branch_id = %q", e.BranchID)}, args...)
	}
	args = append([]string{fmt.Sprintf("project_id = %q", e.ProjectID)}, args...)
	return fmt.Sprintf("\nresource %q %q {\n  %s\n}\n", typeName, name, strings.Join(args, "\n  "))
}

// RouteCount is how many requests a route of the in-process emulator
// received, with any status or with one of statuses. A route under /auth is
// the mode's: "GET /auth/domains" is GET /projects/{project_id}/auth/domains
// in project mode, and its branch-scoped successor in branch mode.
func (e *Env) RouteCount(route string, statuses ...int) int {
	if method, path, ok := strings.Cut(route, " /auth"); ok {
		route = method + " /projects/{project_id}/auth" + path
		if e.Mode == ModeBranch {
			route = method + " /projects/{project_id}/branches/{branch_id}/auth" + path
		}
	}
	n := 0
	for status, c := range e.Emu.Stats().Requests[route] {
		if len(statuses) == 0 || slices.Contains(statuses, status) {
			n += c
		}
	}
	return n
}

// TestCase fills what every acceptance test shares. The CLI under test is
// Terraform or OpenTofu (see cli.go); a test that needs a newer language
// feature appends its capability to TerraformVersionChecks.
func (e *Env) TestCase(steps ...resource.TestStep) resource.TestCase {
	return resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"neon": providerserver.NewProtocol6WithError(e.Provider()),
		},
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			tfversion.SkipBelow(tfversion.Version1_8_0),
			openTofuProviderHost{},
		},
		Steps: steps,
	}
}

// Provider is this provider as the test's Terraform runs use it: remotely
// over an HTTP client that checks the traffic against the API reference.
func (e *Env) Provider() provider.Provider {
	if e.validator == nil {
		return newProvider(nil)
	}
	return newProvider(&http.Client{Transport: e.validator.Transport(nil)})
}

// Client is an API client on this test's API, for setting up, changing
// behind Terraform's back and checking through the public API.
func (e *Env) Client() *apiclient.Client {
	e.t.Helper()
	if e.remote != nil {
		return e.remote.client(e.validator)
	}
	c, err := apiclient.New(apiclient.Options{BaseURL: e.BaseURL, APIKey: e.Key,
		RateLimit: apiclient.RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1}})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}
