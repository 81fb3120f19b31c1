package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
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

// examples/branch-preview, applied as written: a preview branch created
// through the API gets its own Neon Auth with sign-in, plugins and webhooks,
// production's stays untouched, a re-plan is empty, and destroy leaves the
// branch as it was; deleting the branch afterwards takes nothing else along.
func TestAccExample_branchPreview(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	ctx := context.Background()
	preview, err := env.client().CreateBranch(ctx, env.ProjectID, apiclient.CreateBranchRequest{Name: "pr-123"})
	if err != nil {
		t.Fatal(err)
	}
	vars := config.Variables{"project_id": config.StringVariable(env.ProjectID), "preview_branch_id": config.StringVariable(preview.ID)}
	tc := env.testCase(resource.TestStep{
		Config:          env.config(exampleBody(t, "branch-preview")),
		ConfigVariables: vars,
		ConfigStateChecks: []statecheck.StateCheck{
			has("neon_auth_integration.preview", "branch_id", str(preview.ID)),
			has("neon_auth_integration.preview", "auth_provider", str("better_auth")),
			stateCheckFunc(func() error {
				a, ok := env.Emu.BranchAuth(env.ProjectID, preview.ID)
				switch {
				case !ok:
					return fmt.Errorf("the preview branch has no Neon Auth")
				case a.Name != "Acme (preview)" || len(a.Domains) != 1 || a.Domains[0].Domain != "https://pr-123.preview.example.com":
					return fmt.Errorf("preview auth = name %q, domains %+v", a.Name, a.Domains)
				case !a.MagicLink.Enabled || a.MagicLink.ExpiresIn != 30 || a.Organization.OrganizationLimit != 3 || !a.Webhooks.Enabled:
					return fmt.Errorf("preview settings = %+v", a.Settings)
				}
				if n := len(env.Emu.Integrations(env.ProjectID)); n != 0 {
					return fmt.Errorf("production got %d integration(s) from a preview configuration", n)
				}
				return nil
			}),
		},
	})
	tc.CheckDestroy = func(*terraform.State) error {
		if _, ok := env.Emu.BranchAuth(env.ProjectID, preview.ID); ok {
			return fmt.Errorf("destroy left Neon Auth on the preview branch")
		}
		if err := env.client().DeleteBranch(ctx, env.ProjectID, preview.ID); err != nil {
			return fmt.Errorf("deleting the preview branch: %w", err)
		}
		return nil
	}
	resource.ParallelTest(t, tc)
}
