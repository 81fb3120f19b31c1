package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Ids that name their branch, and no plan that deletes an object on a branch
// the configuration does not name.

// Production's objects imported by their short ids (which name no branch, so
// mean the production branch) into resources configured for a preview
// branch: each plan fails naming both branches, for the integration, a
// domain, an OAuth provider, a user and the singletons (email server,
// settings, the whole whitelist) — never a replacement, which would delete
// production's object. Changing branch_id of a resource in state fails the
// same way. Production keeps everything.
func TestAccBranchIDs_importFromAnotherBranchFailsAtPlan(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	env.Mode = authAPIBranch
	env.EnableAuth()
	ctx, c, prod := context.Background(), env.Client(), env.Scope()
	if _, err := c.AddOAuthProvider(ctx, prod, apiclient.AddOAuthProviderRequest{ID: "google"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddDomain(ctx, prod, apiclient.AddDomainRequest{Domain: "https://app.example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider(env.AuthProvider())}); err != nil {
		t.Fatal(err)
	}
	user, err := c.CreateUser(ctx, prod, apiclient.CreateUserRequest{AuthProvider: env.AuthProvider(), Email: "seed@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	// A fresh Better Auth branch has no email provider (GET answers 404):
	// production's is configured so that there is one to import.
	if _, err := c.UpdateEmailServer(ctx, prod, apiclient.SharedEmailServer()); err != nil {
		t.Fatal(err)
	}
	on := *env
	on.BranchID = env.ChildBranch("preview")
	preview := on.BranchID

	// Per resource type on a branch: the arguments of a resource configured
	// for the preview, and the short import id of the production branch's
	// object (`<project_id>/…`, no branch).
	imports := []struct{ typ, args, id string }{
		{"neon_auth_integration", "", env.ProjectID + "/better_auth"},
		{"neon_auth_domain", `domain = "https://app.example.com"`, env.ProjectID + "/https://app.example.com"},
		{"neon_auth_oauth_provider", `provider_id = "google"`, env.ProjectID + "/google"},
		{"neon_auth_user", `email = "seed@example.com"`, env.ProjectID + "/" + user.ID},
		{"neon_auth_email_server", `type = "shared"`, env.ProjectID},
		{"neon_auth_domains", `domains = ["https://app.example.com"]`, env.ProjectID},
	}
	for _, c := range acctest.SettingsCases {
		imports = append(imports, struct{ typ, args, id string }{c.TypeName, c.Create, env.ProjectID})
	}
	var steps []resource.TestStep
	for _, imp := range imports {
		steps = append(steps, resource.TestStep{
			Config: env.Config(on.Resource(imp.typ, "x", imp.args) + fmt.Sprintf(`
import {
  to = %s.x
  id = %q
}
`, imp.typ, imp.id)),
			ExpectError: acctest.MatchInOrder("Object on another branch", "This "+imp.typ+" in the state lives on branch "+env.BranchID,
				"configuration names branch "+preview),
		})
	}
	// A resource in state whose configuration moves to another branch.
	moved := func(branchID string) string {
		on.BranchID = branchID
		return env.Config(on.Resource("neon_auth_domain", "admin", `domain = "https://admin.example.com"`))
	}
	steps = append(steps,
		resource.TestStep{Config: moved("")},
		resource.TestStep{Config: moved(preview),
			ExpectError: acctest.MatchInOrder("Object on another branch", "lives on branch "+env.BranchID, "names branch "+preview)},
		resource.TestStep{Config: moved(""), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			// Production's Neon Auth still has what the refused plans would
			// have deleted.
			Check: func(*terraform.State) error {
				if env.Integration() == nil {
					return fmt.Errorf("production's integration is gone")
				}
				if _, ok := env.OAuthProvider("google"); !ok {
					return fmt.Errorf("production's google OAuth provider is gone")
				}
				if ds, err := env.Client().ListDomains(context.Background(), env.Scope()); err != nil ||
					!slices.ContainsFunc(ds, func(d apiclient.Domain) bool { return d.Domain == "https://app.example.com" }) {
					return fmt.Errorf("production's domain https://app.example.com is gone: %v, %w", ds, err)
				}
				if !env.UserExists("seed@example.com") {
					return fmt.Errorf("production's user seed@example.com is gone")
				}
				return nil
			}},
	)
	resource.ParallelTest(t, env.TestCase(steps...))
}

// A branch_id of another project is refused at plan, naming branch_id; when
// it is not known until apply, the create fails naming it too, and so does
// the integration data source. None advises `terraform state rm` (there is
// nothing in state to remove).
func TestAccBranchIDs_branchOfAnotherProject(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	// Another project the key can see: the emulator's second, or one made
	// for the test.
	other, otherBranch := "", ""
	if acctest.Remote() {
		other, otherBranch = env.NewProject()
	} else {
		b, err := env.Client().DefaultBranch(context.Background(), env.Emu.ProjectIDs()[1])
		env.Must(err)
		other, otherBranch = b.ProjectID, b.ID
	}
	// refused checks that the output diagnoses the branch of another
	// project, naming it, and advises no `terraform state rm`.
	refused := func(what, out string) {
		t.Helper()
		flat := strings.Join(strings.Fields(out), " ")
		if !strings.Contains(flat, fmt.Sprintf("branch_id %s is not a branch of project %s", otherBranch, env.ProjectID)) {
			t.Fatalf("%s: no diagnosis naming branch_id %s:\n%s", what, otherBranch, out)
		}
		if strings.Contains(flat, "state rm") {
			t.Fatalf("%s: advises `terraform state rm` for something that is not in state:\n%s", what, out)
		}
	}
	cli := env.CLI(nil, nil)
	cli.Write("main.tf", acctest.RequiredProviders+env.Config(fmt.Sprintf(`
resource "neon_auth_integration" "x" {
  project_id = %[1]q
  branch_id  = %[2]q
}
`, env.ProjectID, otherBranch)))
	cli.Must(0, "init", "-input=false")
	_, out := cli.Run("plan", "-input=false")
	refused("plan", out)

	// Known only at apply: the create gets the 404 and explains it.
	cli.Write("main.tf", acctest.RequiredProviders+env.Config(fmt.Sprintf(`
resource "terraform_data" "branch" {
  input = %[2]q
}

resource "neon_auth_integration" "x" {
  project_id = %[1]q
  branch_id  = terraform_data.branch.output
}
`, env.ProjectID, otherBranch)))
	_, out = cli.Run("apply", "-auto-approve", "-input=false")
	refused("apply", out)
	its, err := env.Client().ListIntegrations(context.Background(),
		apiclient.Scope{ProjectID: other, BranchID: otherBranch, Family: apiclient.FamilyBranch})
	if !errors.Is(err, apiclient.ErrNotFound) {
		t.Fatalf("the other project's production branch got Neon Auth: %v, %v", its, err)
	}

	// A data source reading it.
	cli.Write("main.tf", acctest.RequiredProviders+env.Config(fmt.Sprintf(`
data "neon_auth_integration" "x" {
  project_id = %[1]q
  branch_id  = %[2]q
}
`, env.ProjectID, otherBranch)))
	_, out = cli.Run("plan", "-input=false")
	refused("data source", out)
}
