package provider

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The acceptance test environment: one test's place on the API under test
// (see acc_target_test.go), the provider served in-process to the real
// Terraform CLI, and the vocabulary the tests are written in.

// accEnv is one test's place on the API: a branch (or a project) of its
// own, so that tests run in parallel without sharing anything.
type accEnv struct {
	t *testing.T
	// Emu is the in-process emulator; nil on a remote target, where only
	// emulatorOnly hands it out (by skipping).
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
	// (in-process, conformant checks it on the emulator's).
	validator *apispec.Validator
}

// newBranchEnv is a branch of the test's own, in branch mode, made through
// the API from the production branch of a project whose production branch
// has no Neon Auth: an emulator's project in-process, the suite's project
// remotely.
func newBranchEnv(t *testing.T) *accEnv {
	t.Helper()
	e := newTargetEnv(t)
	e.Mode = authAPIBranch
	if e.remote != nil {
		e.ProjectID = e.remote.suiteProject(t)
		e.BranchID = newBranch(t, e.client(), e.ProjectID, e.remote.name(t))
		return e
	}
	e.BranchID = newBranch(t, e.client(), e.ProjectID, "test-"+strings.Trim(nonName.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-"))
	return e
}

// newProjectEnv is the production branch of a project of the test's own, in
// project mode: for what only a production branch whose Neon Auth is free
// allows (the project-level API, Stack Auth, ownership transfer). Remotely
// the project is created for the test, which skips when the key may not
// create projects.
func newProjectEnv(t *testing.T) *accEnv {
	t.Helper()
	e := newTargetEnv(t)
	e.Mode = authAPIProject
	if e.remote != nil {
		e.ProjectID, e.BranchID = e.remote.newProject(t, e.client())
	}
	return e
}

// newTargetEnv is the target of the run with nothing of the test's own yet:
// an emulator started for the test in-process (with the first of its
// projects), or the remote API.
func newTargetEnv(t *testing.T) *accEnv {
	t.Helper()
	if r := remoteRun; r != nil {
		r.requireKey(t)
		return &accEnv{t: t, BaseURL: r.baseURL, Key: r.key, remote: r, validator: validated(t)}
	}
	return startEmulator(t, nil)
}

// otherProject is another project the key can see, with its production
// branch: the emulator's second project in-process, one created for the
// test remotely (which skips when the key may not create projects).
func (e *accEnv) otherProject() (projectID, productionBranch string) {
	e.t.Helper()
	if e.remote != nil {
		return e.remote.newProject(e.t, e.client())
	}
	projectID = e.Emu.ProjectIDs()[1]
	b, err := e.client().DefaultBranch(context.Background(), projectID)
	e.must(err)
	return projectID, b.ID
}

// newEmulatorEnv starts an emulator for a test of what only it can do (why
// says what), behind wrap (which may be nil), in project mode on its first
// project's production branch; remotely the test skips, saying why.
func newEmulatorEnv(t *testing.T, why string, wrap func(http.Handler) http.Handler, opts ...func(*emulator.Options)) *accEnv {
	t.Helper()
	if remoteRun != nil {
		t.Skipf("runs only against the in-process emulator: %s", why)
	}
	return startEmulator(t, wrap, opts...)
}

// resource is a resource block of typeName named name on the test's project
// and branch, with the given arguments, one per line.
func (e *accEnv) resource(typeName, name string, args ...string) string {
	var lines strings.Builder
	for _, a := range args {
		fmt.Fprintf(&lines, "  %s\n", a)
	}
	return resourceBlock(typeName, name, e.ProjectID, e.BranchID, lines.String())
}

// newAccEnv starts an emulator on a loopback httptest server, for the tests
// that reach into it. Rate limits are off unless opts set them: the
// limiter has its own tests, and the acceptance tests are about behaviour.
func newAccEnv(t *testing.T, opts ...func(*emulator.Options)) *accEnv {
	t.Helper()
	return newAccEnvWith(t, nil, opts...)
}

// newAccEnvWith is newAccEnv with a handler in front of the emulator (to
// lose or rewrite particular responses); wrap may be nil.
func newAccEnvWith(t *testing.T, wrap func(http.Handler) http.Handler, opts ...func(*emulator.Options)) *accEnv {
	t.Helper()
	if remoteRun != nil {
		t.Skip("runs only against the in-process emulator: it sets up or checks state through the emulator itself")
	}
	return startEmulator(t, wrap, opts...)
}

// startEmulator starts an emulator for the test, behind conformant and then
// wrap (which may be nil), in project mode on its first project's
// production branch.
func startEmulator(t *testing.T, wrap func(http.Handler) http.Handler, opts ...func(*emulator.Options)) *accEnv {
	t.Helper()
	o := emulator.Options{SeedProjects: 2, AccountRequestsPerMinute: -1, RouteRequestsPerSecond: -1}
	for _, f := range opts {
		f(&o)
	}
	emu, err := emulator.New(o)
	if err != nil {
		t.Fatalf("starting emulator: %v", err)
	}
	h := conformant(t, emu)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = emu.Close()
	})
	e := &accEnv{
		t:         t,
		Emu:       emu,
		BaseURL:   srv.URL + "/api/v2/",
		Key:       emu.BootstrapKey(),
		ProjectID: emu.ProjectIDs()[0],
		Mode:      authAPIProject,
	}
	e.BranchID = e.branch()
	return e
}

// modes are the two API families of the provider.
var modes = []string{authAPIProject, authAPIBranch}

// inBothModes runs a scenario once per API family: in project mode on the
// production branch of a project of its own, in branch mode on a branch of
// its own. The same configuration must behave the same through the
// project-level endpoints and their branch-scoped successors.
func inBothModes(t *testing.T, scenario func(t *testing.T, env *accEnv)) {
	t.Run(authAPIProject, func(t *testing.T) { scenario(t, newProjectEnv(t)) })
	t.Run(authAPIBranch, func(t *testing.T) { scenario(t, newBranchEnv(t)) })
}

// providerBlock points the provider at this test's API. The address goes
// into the configuration, never into a process-wide environment variable.
func (e *accEnv) providerBlock() string {
	return e.providerBlockWithKey(e.Key)
}

func (e *accEnv) providerBlockWithKey(key string) string {
	return e.providerBlockIn(e.Mode, key)
}

// providerBlockIn is the provider block in a mode with a key.
func (e *accEnv) providerBlockIn(mode, key string) string {
	return fmt.Sprintf(`
provider "neon" {
  api_key  = %[1]q
  base_url = %[2]q
  auth_api = %[3]q
  %[4]s
}
`, key, e.BaseURL, mode, e.pacing())
}

// pacing is the provider argument of the target's rate limits: in-process
// the emulator has none and the provider keeps none either; remotely the
// documented ones hold, and the provider paces every run on this machine
// together.
func (e *accEnv) pacing() string {
	if e.remote != nil {
		return "shared_rate_limit = true"
	}
	return "requests_per_minute = 100000"
}

// providerBlockWithArgs is a provider block with this test's api_key and
// base_url and then the given argument lines, which start and end with a
// newline. It sets nothing else but the target's pacing (unless the lines
// set requests_per_minute or shared_rate_limit): no auth_api unless the
// lines do.
func (e *accEnv) providerBlockWithArgs(args string) string {
	if !strings.Contains(args, "requests_per_minute") && !strings.Contains(args, "shared_rate_limit") {
		args += "  " + e.pacing() + "\n"
	}
	return fmt.Sprintf(`
provider "neon" {
  api_key  = %[1]q
  base_url = %[2]q
%[3]s}
`, e.Key, e.BaseURL, args)
}

// resourceBlock is a resource block of typeName named name on the project
// (and the branch, when branchID is not empty) with the given arguments, one per line.
func resourceBlock(typeName, name, projectID, branchID, args string) string {
	branch := ""
	if branchID != "" {
		branch = fmt.Sprintf("\n  branch_id  = %q", branchID)
	}
	return fmt.Sprintf(`
resource %q %q {
  project_id = %q%s
%s}
`, typeName, name, projectID, branch, strings.TrimPrefix(args, "\n"))
}

// config is the provider block followed by the resources under test.
func (e *accEnv) config(body string) string { return e.providerBlock() + body }

// configIn is config with the provider in the given mode.
func (e *accEnv) configIn(mode, body string) string { return e.providerBlockIn(mode, e.Key) + body }

// requests is how many API requests the emulator has answered.
func (e *accEnv) requests() int { return e.Emu.Stats().Total }

// routeCount is how many requests one route received, whatever the status.
func (e *accEnv) routeCount(route string) int {
	n := 0
	for _, c := range e.Emu.Stats().Requests[route] {
		n += c
	}
	return n
}

// authRoute is the route key (as the emulator counts it) of an endpoint under
// the mode's Neon Auth root: authRoute("GET", "/domains") is
// "GET /projects/{project_id}/auth/domains" or its branch-scoped successor.
func (e *accEnv) authRoute(method, suffix string) string {
	if e.Mode == authAPIBranch {
		return method + " /projects/{project_id}/branches/{branch_id}/auth" + suffix
	}
	return method + " /projects/{project_id}/auth" + suffix
}

// testCase fills what every acceptance test shares. The CLI under test is
// Terraform or OpenTofu (see cli_test.go); a test that needs a newer language
// feature appends its capability to TerraformVersionChecks.
func (e *accEnv) testCase(steps ...resource.TestStep) resource.TestCase {
	return resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"neon": providerserver.NewProtocol6WithError(e.provider()),
		},
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			tfversion.SkipBelow(tfversion.Version1_8_0),
			openTofuProviderHost{},
		},
		Steps: steps,
	}
}

// provider is this provider as the test's Terraform runs use it: remotely
// over an HTTP client that checks the traffic against the API reference.
func (e *accEnv) provider() provider.Provider {
	if e.validator == nil {
		return New("test")()
	}
	return newWithHTTPClient("test", &http.Client{Transport: e.validator.Transport(nil)})()
}

// client is an API client on this test's API, for setting up, changing
// behind Terraform's back and checking through the public API.
func (e *accEnv) client() *apiclient.Client {
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

// branch is the id of the project's production branch.
func (e *accEnv) branch() string {
	e.t.Helper()
	if e.Emu == nil {
		b, err := e.client().DefaultBranch(context.Background(), e.ProjectID)
		if err != nil {
			e.t.Fatal(err)
		}
		return b.ID
	}
	id, err := e.Emu.DefaultBranchID(e.ProjectID)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// withIntegration enables Neon Auth on the production branch behind
// Terraform's back (through the mode's own endpoints, with the mode's
// default auth provider), so that the resources under test are the only ones
// in the configuration and their destroy can be checked on a live
// integration.
func withIntegration(t *testing.T, env *accEnv) {
	t.Helper()
	withIntegrationOf(t, env, env.authProvider())
}

func withIntegrationOf(t *testing.T, env *accEnv, authProvider string) {
	t.Helper()
	if _, err := env.client().CreateIntegration(context.Background(), env.scope(),
		apiclient.CreateIntegrationRequest{AuthProvider: authProvider}); err != nil {
		t.Fatal(err)
	}
}

// The vocabulary of checks.

// expectValue checks one attribute of a resource in state.
func expectValue(addr, attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), v)
}

// stringExact is an exact string value.
func stringExact(s string) knownvalue.Check { return knownvalue.StringExact(s) }

// refreshRequests is a step that refreshes the state alone and checks the
// requests of that one refresh, by route (its Check runs after `terraform
// refresh` and before the step's follow-up plan). what names what is
// refreshed, for the error.
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

// conformant puts an OpenAPI validator in front of the emulator: every
// request the provider sends and every response the emulator gives is checked
// against the document in internal/apispec, and the test fails on any
// violation. Handlers a test puts in front (to lose or rewrite responses)
// wrap it, so what they break on purpose is not counted.
func conformant(t *testing.T, emu http.Handler) http.Handler {
	t.Helper()
	return validated(t).Middleware(emu)
}
