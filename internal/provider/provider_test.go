package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// protoV6Factories serves the provider in-process to the Terraform CLI.
var protoV6Factories = map[string]func() (tfprotov6.ProviderServer, error){
	"neon": providerserver.NewProtocol6WithError(New("test")()),
}

// accEnv is one emulator behind one test: its own server, key and projects,
// so that tests run in parallel without sharing anything.
type accEnv struct {
	t         *testing.T
	Emu       *emulator.Emulator
	BaseURL   string
	Key       string
	ProjectID string
}

// newAccEnv starts an emulator on a loopback httptest server. Rate limits are
// off unless opts set them: the limiter has its own tests, and the
// acceptance tests are about behaviour.
func newAccEnv(t *testing.T, opts ...func(*emulator.Options)) *accEnv {
	t.Helper()
	return newAccEnvWith(t, nil, opts...)
}

// newAccEnvWith is newAccEnv with a handler in front of the emulator (to
// lose or rewrite particular responses); wrap may be nil.
func newAccEnvWith(t *testing.T, wrap func(http.Handler) http.Handler, opts ...func(*emulator.Options)) *accEnv {
	t.Helper()
	o := emulator.Options{SeedProjects: 2, AccountRequestsPerMinute: -1, RouteRequestsPerSecond: -1}
	for _, f := range opts {
		f(&o)
	}
	emu, err := emulator.New(o)
	if err != nil {
		t.Fatalf("starting emulator: %v", err)
	}
	var h http.Handler = emu
	if wrap != nil {
		h = wrap(emu)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = emu.Close()
	})
	return &accEnv{
		t:         t,
		Emu:       emu,
		BaseURL:   srv.URL + "/api/v2/",
		Key:       emu.BootstrapKey(),
		ProjectID: emu.ProjectIDs()[0],
	}
}

// providerBlock points the provider at this test's emulator. The address goes
// into the configuration, never into a process-wide environment variable.
func (e *accEnv) providerBlock() string {
	return e.providerBlockWithKey(e.Key)
}

func (e *accEnv) providerBlockWithKey(key string) string {
	return fmt.Sprintf(`
provider "neon" {
  api_key             = %[1]q
  base_url            = %[2]q
  requests_per_minute = 100000
}
`, key, e.BaseURL)
}

// config is the provider block followed by the resources under test.
func (e *accEnv) config(body string) string { return e.providerBlock() + body }

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

// testCase fills what every acceptance test shares.
func (e *accEnv) testCase(steps ...resource.TestStep) resource.TestCase {
	return resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps:                    steps,
	}
}

// expectSensitive checks, in the state Terraform itself records (`terraform
// show -json`), that the named attributes are marked sensitive.
type expectSensitive struct {
	address string
	attrs   []string
}

func (c expectSensitive) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("no state to check")
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != c.address {
			continue
		}
		var sens map[string]any
		if err := json.Unmarshal(r.SensitiveValues, &sens); err != nil {
			resp.Error = fmt.Errorf("%s: sensitive_values: %w", c.address, err)
			return
		}
		for _, a := range c.attrs {
			if sens[a] != true {
				resp.Error = fmt.Errorf("%s: attribute %q is not marked sensitive (sensitive_values = %s)", c.address, a, r.SensitiveValues)
				return
			}
		}
		return
	}
	resp.Error = fmt.Errorf("resource %s not in state", c.address)
}

// expectNull checks that attributes are null in Terraform's state (used for
// write-only arguments, which must leave no trace).
type expectNull struct {
	address string
	attrs   []string
}

func (c expectNull) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != c.address {
			continue
		}
		for _, a := range c.attrs {
			if v, ok := r.AttributeValues[a]; ok && v != nil {
				resp.Error = fmt.Errorf("%s: attribute %q is %v in state, want null", c.address, a, v)
				return
			}
		}
		return
	}
	resp.Error = fmt.Errorf("resource %s not in state", c.address)
}

// stateCheckFunc adapts a function to statecheck.StateCheck.
type stateCheckFunc func() error

func (f stateCheckFunc) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f()
}

// mustMatch is regexp.MustCompile for error expectations that span lines:
// Terraform wraps long diagnostics, so spaces match any whitespace.
func mustMatch(s string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\s+`))
}

func TestProviderSchemaIsValid(t *testing.T) {
	ctx := context.Background()
	p := New("test")()
	srv := providerserver.NewProtocol6(p)()
	resp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	if resp.Provider.Block.Attributes == nil {
		t.Fatal("provider schema has no attributes")
	}
	for _, a := range resp.Provider.Block.Attributes {
		if a.Name == "api_key" && !a.Sensitive {
			t.Error("api_key must be sensitive")
		}
	}
}

// client is an API client on this test's emulator, for changes made behind
// Terraform's back through the public API.
func (e *accEnv) client() *apiclient.Client {
	e.t.Helper()
	c, err := apiclient.New(apiclient.Options{BaseURL: e.BaseURL, APIKey: e.Key,
		RateLimit: apiclient.RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1}})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func createIntegrationOutOfBand(env *accEnv, branchID string) (*apiclient.IntegrationCredentials, error) {
	return env.client().CreateIntegration(context.Background(), apiclient.Scope{ProjectID: env.ProjectID, BranchID: branchID},
		apiclient.CreateIntegrationRequest{AuthProvider: "stack", DatabaseName: "neondb", RoleName: "neondb_owner"})
}

// withIntegration creates the project's stack integration behind Terraform's
// back, so that the resources under test are the only ones in the
// configuration and their destroy can be checked on a live integration.
func withIntegration(t *testing.T, env *accEnv) {
	t.Helper()
	branch, err := env.Emu.DefaultBranchID(env.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := createIntegrationOutOfBand(env, branch); err != nil {
		t.Fatal(err)
	}
}

// Every request carries the provider's and Terraform's versions.
func TestAccProvider_userAgent(t *testing.T) {
	var mu sync.Mutex
	agents := map[string]bool{}
	env := newAccEnvWith(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			agents[r.UserAgent()] = true
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	})
	resource.ParallelTest(t, env.testCase(resource.TestStep{
		Config: env.config(`
data "neon_projects" "all" {}
`),
		Check: func(*terraform.State) error {
			mu.Lock()
			defer mu.Unlock()
			want := regexp.MustCompile(`^terraform-provider-neon/test \(terraform/\d+\.\d+\.\d+\)$`)
			if len(agents) != 1 {
				return fmt.Errorf("user agents seen: %v, want exactly one", agents)
			}
			for ua := range agents {
				if !want.MatchString(ua) {
					return fmt.Errorf("user agent %q, want %s", ua, want)
				}
			}
			return nil
		},
	}))
}

// An API key that is unknown until apply (here from another resource) is
// tolerated at plan; the client is built once it is known.
func TestAccProvider_keyUnknownAtPlan(t *testing.T) {
	env := newAccEnv(t)
	resource.ParallelTest(t, env.testCase(resource.TestStep{
		Config: fmt.Sprintf(`
resource "terraform_data" "key" {
  input = %[1]q
}

provider "neon" {
  api_key  = terraform_data.key.output
  base_url = %[2]q
}

resource "neon_auth_integration" "test" {
  project_id = %[3]q
}
`, env.Key, env.BaseURL, env.ProjectID),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{stateCheckFunc(func() error {
			if n := len(env.Emu.Integrations(env.ProjectID)); n != 1 {
				return fmt.Errorf("%d integrations on the emulator, want 1", n)
			}
			return nil
		})},
	}))
}
