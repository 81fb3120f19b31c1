package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
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
