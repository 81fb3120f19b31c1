package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// exampleBody is the configuration of an example directory without its
// terraform and provider blocks, which the tests supply (the provider is
// served in-process and pointed at the test's emulator, with the arguments
// exampleProviderArgs reads).
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
		// Without the top-level terraform and provider blocks.
		depth := 0
		for _, line := range strings.Split(string(src), "\n") {
			if depth == 0 && (strings.HasPrefix(line, "terraform {") || strings.HasPrefix(line, `provider "neon" {`)) {
				depth = strings.Count(line, "{") - strings.Count(line, "}") // 0 for `provider "neon" {}`
				continue
			}
			if depth > 0 {
				depth += strings.Count(line, "{") - strings.Count(line, "}")
				continue
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// exampleProviderArgs are the arguments of an example's provider block, one
// per line, without comments: the tests apply an example with them.
func exampleProviderArgs(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", dir, "*.tf"))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, block, found := strings.Cut(string(src), "\nprovider \"neon\" {\n")
		block, _, _ = strings.Cut(block, "\n}\n")
		for _, line := range strings.Split(block, "\n") {
			if line = strings.TrimSpace(line); found && line != "" && !strings.HasPrefix(line, "#") {
				args = append(args, line)
			}
		}
	}
	return args
}

// examples/branch-preview, applied as written, the way the platforms make a
// preview: production is configured, a branch is created from it and starts
// with a copy of production's Neon Auth, and the platform puts the preview's
// origin into its whitelist. The preview configuration's first apply takes
// that over (no import step), puts Google sign-in on the shared keys and
// sends the inherited webhooks to the preview. A re-plan is empty; destroy
// of the disposable preview (restore_on_destroy = false) leaves it as
// configured, and production never changes.
func TestAccExample_branchPreview(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	configureProduction(env, false)
	production := env.AuthOf(env.BranchID)
	preview := env.ChildBranch("pr-123")
	on := *env
	on.BranchID = preview
	_, err := env.Client().AddDomain(context.Background(), on.Scope(), apiclient.AddDomainRequest{Domain: "https://pr-123.preview.example.com",
		AuthProvider: neonapi.NeonAuthSupportedAuthProvider(apiclient.AuthProviderBetterAuth)})
	env.Must(err)
	vars := config.Variables{"project_id": config.StringVariable(env.ProjectID), "preview_branch_id": config.StringVariable(preview)}
	cfg := env.ProviderBlock(exampleProviderArgs(t, "branch-preview")...) + exampleBody(t, "branch-preview")
	var configured string
	tc := env.TestCase(resource.TestStep{
		Config:          cfg,
		ConfigVariables: vars,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction("neon_auth_integration.preview", plancheck.ResourceActionCreate),
			plancheck.ExpectResourceAction("neon_auth_oauth_provider.google", plancheck.ResourceActionCreate),
			plancheck.ExpectResourceAction("neon_auth_data_api.preview", plancheck.ResourceActionCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("neon_auth_integration.preview", tfjsonpath.New("branch_id"), knownvalue.StringExact(preview)),
			statecheck.ExpectKnownValue("neon_auth_integration.preview", tfjsonpath.New("auth_provider"), knownvalue.StringExact("better_auth")),
			statecheck.ExpectKnownValue("neon_auth_oauth_provider.google", tfjsonpath.New("type"), knownvalue.StringExact("shared")),
			on.ExpectDomains("https://app.example.com", "https://pr-123.preview.example.com"),
			// The preview's copy of production's Data API, with its own row limit.
			expectDataAPI(&on, maxRows(100)),
			acctest.APICheck(func() error {
				ctx, c, s := context.Background(), on.Client(), on.Scope()
				bundle, err := c.GetPlugins(ctx, s)
				if err != nil {
					return err
				}
				var magicLink neonapi.NeonAuthMagicLinkConfig
				var signIn neonapi.NeonAuthEmailAndPasswordConfig
				var localhost bool
				for part, v := range map[string]any{betterauth.MagicLink.Name: &magicLink, betterauth.EmailAndPassword.Name: &signIn, apiclient.PartAllowLocalhost: &localhost} {
					if _, err := bundle.Part(part, v); err != nil {
						return err
					}
				}
				webhooks, err := apiclient.ReadSetting[neonapi.NeonAuthWebhookConfig](ctx, c, s, betterauth.Webhooks)
				if err != nil {
					return err
				}
				google, _ := on.OAuthProvider("google")
				switch it := on.Integration(); {
				case it == nil || apiclient.Deref(it.Name) != "Acme (preview)" || !localhost:
					return fmt.Errorf("preview integration %+v, allow_localhost %v", it, localhost)
				case apiclient.Deref(webhooks.WebhookURL) != "https://pr-123.preview.example.com/api/auth-events" || !magicLink.Enabled || signIn.RequireEmailVerification:
					return fmt.Errorf("preview settings: webhooks %+v, magic link %+v, email and password %+v", webhooks, magicLink, signIn)
				case string(google.Type) != apiclient.TypeShared:
					return fmt.Errorf("preview Google sign-in %+v, want the shared keys", google)
				}
				configured = env.AuthOf(preview)
				return env.SameAuth(env.BranchID, production, "after the preview's apply")
			}),
		},
	}, resource.TestStep{
		Config:           cfg,
		ConfigVariables:  vars,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
	})
	tc.CheckDestroy = func(*terraform.State) error {
		if err := env.SameAuth(preview, configured, "after the disposable destroy"); err != nil {
			return err
		}
		return env.SameAuth(env.BranchID, production, "after the preview's destroy")
	}
	resource.ParallelTest(t, tc)
}

// The guide "Neon Auth and the Data API", applied as written: Neon Auth then
// the Data API that accepts its tokens on a branch that had neither, and
// the variant with an external identity provider and its JWKS; each plans
// empty after apply, and destroy leaves the branch as it was.
func TestAccExample_dataAPIGuide(t *testing.T) {
	t.Run("neon auth", func(t *testing.T) {
		env := acctest.NewBranchEnv(t)
		vars := config.Variables{"project_id": config.StringVariable(env.ProjectID), "branch_id": config.StringVariable(env.BranchID)}
		cfg := env.Config(exampleBody(t, "guides/data-api"))
		tc := env.TestCase(resource.TestStep{
			Config: cfg, ConfigVariables: vars,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("neon_auth_data_api.this", tfjsonpath.New("status"), dataAPIStatus(env)),
				expectDataAPI(env, maxRows(1000)),
				env.ExpectDomains("https://app.example.com"),
			},
		}, resource.TestStep{Config: cfg, ConfigVariables: vars, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}})
		tc.CheckDestroy = env.Destroyed(acctest.AuthGone, expectDataAPI(env, nil))
		resource.ParallelTest(t, tc)
	})
	t.Run("external identity provider", func(t *testing.T) {
		env := acctest.NewBranchEnv(t)
		vars := config.Variables{"project_id": config.StringVariable(env.ProjectID), "branch_id": config.StringVariable(env.BranchID),
			"jwks_url": config.StringVariable(googleJWKS), "provider_name": config.StringVariable("Google")}
		cfg := env.Config(exampleBody(t, "guides/data-api-external"))
		tc := env.TestCase(resource.TestStep{
			Config: cfg, ConfigVariables: vars,
			ConfigStateChecks: []statecheck.StateCheck{expectDataAPI(env, func(apiclient.DataAPISettings) error { return nil }), expectJWKS(env, googleJWKS)},
		}, resource.TestStep{Config: cfg, ConfigVariables: vars, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}})
		tc.CheckDestroy = func(*terraform.State) error {
			if err := expectDataAPI(env, nil)(); err != nil {
				return err
			}
			return expectJWKS(env)()
		}
		resource.ParallelTest(t, tc)
	})
}
