package provider

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

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

// Every request carries the provider's and Terraform's versions.
func TestAccProvider_userAgent(t *testing.T) {
	var mu sync.Mutex
	agents := map[string]bool{}
	env := acctest.NewEmulatorEnv(t, "it reads the User-Agent the server received", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			agents[r.UserAgent()] = true
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	})
	resource.ParallelTest(t, env.TestCase(resource.TestStep{
		Config: env.Config(`
data "neon_projects" "all" {}
`),
		Check: func(*terraform.State) error {
			mu.Lock()
			defer mu.Unlock()
			want := userAgentPattern
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
	env := acctest.NewBranchEnv(t)
	resource.ParallelTest(t, env.TestCase(resource.TestStep{
		Config: fmt.Sprintf(`
resource "terraform_data" "key" {
  input = %q
}
`, env.Key) + env.ProviderBlock("api_key = terraform_data.key.output") + env.Resource("neon_auth_integration", "test"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(integrationAddr, plancheck.ResourceActionCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{acctest.APICheck(func() error {
			if env.Integration() == nil {
				return fmt.Errorf("the branch has no Neon Auth after the apply")
			}
			return nil
		})},
	}))
}

// An undocumented value from the API is a warning that names it and the
// documented ones, never an error; a documented or empty one says nothing.
func TestUnitWarnUnknownValue(t *testing.T) {
	var diags diag.Diagnostics
	warnUnknownValue(&diags, "The type of the google OAuth provider", "platinum", "shared", "standard")
	warnUnknownValue(&diags, "owned_by", "neon", "neon", "user")
	warnUnknownValue(&diags, "transfer_status", "", "initiated", "finished")
	if diags.HasError() || diags.WarningsCount() != 1 {
		t.Fatalf("diagnostics = %v, want exactly one warning", diags)
	}
	if d := diags[0].Detail(); !strings.Contains(d, `"platinum"`) || !strings.Contains(d, `["shared" "standard"]`) || !strings.Contains(d, "kept") {
		t.Errorf("warning %q does not name the value, the documented ones and that it was kept", d)
	}
}

// configure runs the provider's Configure with the given arguments (the rest
// null), as Terraform would after reading the provider block.
func configure(t *testing.T, args map[string]tftypes.Value) *provider.ConfigureResponse {
	t.Helper()
	ctx := context.Background()
	p := New("test")()
	var sr provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sr)
	typ, ok := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the provider schema is not an object")
	}
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range args {
		if _, known := vals[name]; !known {
			t.Fatalf("the provider has no argument %q", name)
		}
		vals[name] = v
	}
	resp := &provider.ConfigureResponse{}
	p.Configure(ctx, provider.ConfigureRequest{TerraformVersion: "1.11.4",
		Config: tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(typ, vals)}}, resp)
	return resp
}

// shared_rate_limit = true: the runs of this machine take their tokens from
// one bucket under the user's cache directory, named by a hash so that the
// API key is stored nowhere, readable by the user alone.
func TestUnitSharedRateLimitUsesOneBucketPerAccountInTheCacheDirectory(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	const key = "napi_shared_rate_limit_test_key"
	resp := configure(t, map[string]tftypes.Value{
		"api_key":           tftypes.NewValue(tftypes.String, key),
		"base_url":          tftypes.NewValue(tftypes.String, "http://127.0.0.1:9/api/v2/"),
		"shared_rate_limit": tftypes.NewValue(tftypes.Bool, true),
	})
	for _, d := range resp.Diagnostics {
		t.Errorf("%s: %s: %s", d.Severity(), d.Summary(), d.Detail())
	}
	userCache, err := os.UserCacheDir() // under cache, whatever the OS
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(userCache, "terraform-provider-neon", "ratelimit", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no bucket file under %s", cache)
	}
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s has mode %v; only its owner may read it", filepath.Base(f), perm)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(f, key) || strings.Contains(string(data), key) {
			t.Errorf("%s holds the API key", filepath.Base(f))
		}
	}
}

// A cache directory that cannot be used is a warning, and the run goes on
// pacing itself alone.
func TestUnitSharedRateLimitFallsBackWithAWarning(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", notADir)
	t.Setenv("HOME", notADir)
	resp := configure(t, map[string]tftypes.Value{
		"api_key":           tftypes.NewValue(tftypes.String, "k"),
		"base_url":          tftypes.NewValue(tftypes.String, "http://127.0.0.1:9/api/v2/"),
		"shared_rate_limit": tftypes.NewValue(tftypes.Bool, true),
	})
	if resp.Diagnostics.HasError() || resp.Diagnostics.WarningsCount() != 1 {
		t.Fatalf("diagnostics %v, want one warning", resp.Diagnostics)
	}
	if w := resp.Diagnostics.Warnings()[0]; !strings.Contains(w.Summary(), "not shared") || !strings.Contains(w.Detail(), "paces itself alone") {
		t.Errorf("warning %q: %q", w.Summary(), w.Detail())
	}
	if resp.ResourceData == nil {
		t.Error("no client configured after the warning")
	}
}

// NEON_SHARED_RATE_LIMIT stands in for the argument; a value that is not a
// boolean is an error naming the variable and the fix.
func TestUnitSharedRateLimitFromTheEnvironment(t *testing.T) {
	t.Setenv(envSharedRateLimit, "sometimes")
	resp := configure(t, map[string]tftypes.Value{
		"api_key":  tftypes.NewValue(tftypes.String, "k"),
		"base_url": tftypes.NewValue(tftypes.String, "http://127.0.0.1:9/api/v2/"),
	})
	if !resp.Diagnostics.HasError() {
		t.Fatal("no error for NEON_SHARED_RATE_LIMIT=sometimes")
	}
	d := resp.Diagnostics.Errors()[0]
	if !strings.Contains(d.Detail(), envSharedRateLimit) || !strings.Contains(d.Detail(), `"true" or "false"`) {
		t.Errorf("error %q: %q; want the variable and the values it takes", d.Summary(), d.Detail())
	}
	if resp.ResourceData != nil {
		t.Error("a client was configured despite the error")
	}
}

// Every resource and data source takes the provider's client (Configure)
// and has a distinct type name under the provider's.
func TestUnitEveryTypeIsConfiguredAndNamed(t *testing.T) {
	ctx := context.Background()
	p := New("test")()
	seen := map[string]bool{}
	name := func(kind, n string) {
		if !strings.HasPrefix(n, "neon_") || seen[kind+n] {
			t.Errorf("%s type name %q: want a distinct neon_… name", kind, n)
		}
		seen[kind+n] = true
	}
	for _, f := range p.Resources(ctx) {
		r := f()
		var md fwresource.MetadataResponse
		r.Metadata(ctx, fwresource.MetadataRequest{ProviderTypeName: "neon"}, &md)
		name("resource", md.TypeName)
		if _, ok := r.(fwresource.ResourceWithConfigure); !ok {
			t.Errorf("resource %s does not take the provider's client", md.TypeName)
		}
	}
	for _, f := range p.DataSources(ctx) {
		d := f()
		var md datasource.MetadataResponse
		d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "neon"}, &md)
		name("data source", md.TypeName)
		if _, ok := d.(datasource.DataSourceWithConfigure); !ok {
			t.Errorf("data source %s does not take the provider's client", md.TypeName)
		}
	}
	if want := len(p.Resources(ctx)) + len(p.DataSources(ctx)); len(seen) != want || want < 19 {
		t.Errorf("%d distinct type names for %d types", len(seen), want)
	}
}

// A provider block without auth_api is in branch mode (the default): a new
// integration on a branch other than the production branch (which the
// project-level endpoints cannot reach) goes through the branch-scoped
// endpoint and, its auth_provider omitted, is Better Auth.
func TestAccProvider_defaultIsBranchMode(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	resource.ParallelTest(t, env.TestCase(resource.TestStep{
		Config: env.ProviderBlock("auth_api = null") + env.Resource("neon_auth_integration", "test"),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("auth_provider"), knownvalue.StringExact(apiclient.AuthProviderBetterAuth)),
			statecheck.ExpectKnownValue(integrationAddr, tfjsonpath.New("id"),
				knownvalue.StringExact(env.ProjectID+"/"+env.BranchID+"/"+apiclient.AuthProviderBetterAuth)),
			acctest.APICheck(func() error {
				if it := env.Integration(); it == nil || string(it.AuthProvider) != apiclient.AuthProviderBetterAuth {
					return fmt.Errorf("the branch's Neon Auth is %+v, want Better Auth", it)
				}
				return nil
			}),
		},
	}))
}
