package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// exampleBody is the configuration of an example directory without its
// terraform and provider blocks, which the tests supply (the provider is
// served in-process and pointed at the test's emulator).
func exampleBody(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", dir, "*.tf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example in %s: %v", dir, err)
	}
	var b strings.Builder
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(withoutBlocks(string(src), "terraform {", `provider "neon" {`))
	}
	return b.String()
}

// withoutBlocks drops the top-level blocks that open with one of the heads.
func withoutBlocks(src string, heads ...string) string {
	var out []string
	depth := 0
	for _, line := range strings.Split(src, "\n") {
		if depth == 0 && slices.ContainsFunc(heads, func(h string) bool { return strings.HasPrefix(line, h) }) {
			depth = 1
			continue
		}
		if depth > 0 {
			depth += strings.Count(line, "{") - strings.Count(line, "}")
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// examples/branch-preview, applied as written, the way Neon makes a preview:
// production is configured, a branch is created from it and starts with a
// copy of production's Neon Auth, and the preview configuration's first
// apply takes that copy over (no import step), adds the preview's origin and
// sends the inherited webhooks to the preview. A re-plan is empty; destroy
// puts the branch's Neon Auth back byte for byte as the branch started, and
// production never changes.
func TestAccExample_branchPreview(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	configureProduction(t, env)
	production := authSnapshot(t, env, env.branch())
	preview := newBranchFromProduction(t, env, "pr-123")
	inherited := authSnapshot(t, env, preview)
	vars := config.Variables{
		"project_id": config.StringVariable(env.ProjectID), "preview_branch_id": config.StringVariable(preview),
		"google_client_id": config.StringVariable(productionGoogleClientID), "google_client_secret": config.StringVariable("acme-google-secret"),
	}
	tc := env.testCase(resource.TestStep{
		Config:          env.config(exampleBody(t, "branch-preview")),
		ConfigVariables: vars,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction("neon_auth_integration.preview", plancheck.ResourceActionCreate),
			plancheck.ExpectResourceAction("neon_auth_oauth_provider.google", plancheck.ResourceActionCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			expectValue("neon_auth_integration.preview", "branch_id", stringExact(preview)),
			expectValue("neon_auth_integration.preview", "auth_provider", stringExact("better_auth")),
			expectValue("neon_auth_oauth_provider.google", "type", stringExact("standard")),
			apiCheck(func() error {
				a, _ := env.Emu.BranchAuth(env.ProjectID, preview)
				switch {
				case a.Name != "Acme (preview)" || !a.AllowLocalhost || len(a.Domains) != 2 || a.Domains[1].Domain != "https://pr-123.preview.example.com":
					return fmt.Errorf("preview auth = name %q, allow_localhost %v, domains %+v; want the inherited domain and the preview's", a.Name, a.AllowLocalhost, a.Domains)
				case a.Webhooks.WebhookURL == nil || *a.Webhooks.WebhookURL != "https://pr-123.preview.example.com/api/auth-events" || !a.MagicLink.Enabled || a.EmailAndPassword.RequireEmailVerification:
					return fmt.Errorf("preview settings = %+v", a.Settings)
				case len(a.OAuthProviders) != 1 || a.OAuthProviders[0].ClientID != productionGoogleClientID:
					return fmt.Errorf("preview OAuth providers = %v", a.OAuthProviders)
				}
				return sameAuth(t, env, env.branch(), production, "after the preview's apply")
			}),
		},
	}, resource.TestStep{
		Config:           env.config(exampleBody(t, "branch-preview")),
		ConfigVariables:  vars,
		ConfigPlanChecks: noChanges(),
	})
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, ephemeralVariables, writeOnlyArguments)
	tc.CheckDestroy = func(*terraform.State) error {
		if err := sameAuth(t, env, preview, inherited, "after destroy"); err != nil {
			return err
		}
		return sameAuth(t, env, env.branch(), production, "after the preview's destroy")
	}
	resource.ParallelTest(t, tc)
}
