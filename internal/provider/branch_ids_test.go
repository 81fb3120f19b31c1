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

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Ids that name their branch, and no plan that deletes an object on a branch
// the configuration does not name.

// crossBranchImports are, per resource type on a branch, the arguments of a
// resource configured for the branch branchID and the id the 0.1
// development builds printed for the production branch's object
// (`<project_id>/…`, no branch).
func crossBranchImports(projectID, branchID, userID string) []struct{ typ, args, id string } {
	imports := []struct{ typ, args, id string }{
		{"neon_auth_integration", "", projectID + "/better_auth"},
		{"neon_auth_domain", `  domain = "https://app.example.com"` + "\n", projectID + "/https://app.example.com"},
		{"neon_auth_oauth_provider", `  provider_id = "google"` + "\n", projectID + "/google"},
		{"neon_auth_user", `  email = "seed@example.com"` + "\n", projectID + "/" + userID},
		{"neon_auth_email_server", `  type = "shared"` + "\n", projectID},
		{"neon_auth_domains", `  domains = ["https://app.example.com"]` + "\n", projectID},
	}
	for _, c := range settingsCases {
		imports = append(imports, struct{ typ, args, id string }{c.typeName, c.create, projectID})
	}
	return imports
}

// Production's objects imported by the ids the 0.1 development builds printed (which name no branch,
// so mean the production branch) into resources configured for a preview
// branch: each plan fails naming both branches, for the integration, a
// domain, an OAuth provider, a user and the singletons (email server,
// settings, the whole whitelist) — never a replacement, which would delete
// production's object. Changing branch_id of a resource in state fails the
// same way. Production keeps everything.
func TestAccBranchIDs_importFromAnotherBranchFailsAtPlan(t *testing.T) {
	env := newProjectEnv(t)
	env.Mode = authAPIBranch
	env.enableAuth()
	ctx, c, prod := context.Background(), env.client(), env.scope()
	if _, err := c.AddOAuthProvider(ctx, prod, apiclient.AddOAuthProviderRequest{ID: "google"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddDomain(ctx, prod, apiclient.AddDomainRequest{Domain: "https://app.example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider(env.authProvider())}); err != nil {
		t.Fatal(err)
	}
	user, err := c.CreateUser(ctx, prod, apiclient.CreateUserRequest{AuthProvider: env.authProvider(), Email: "seed@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	// A fresh Better Auth branch has no email provider (GET answers 404):
	// production's is configured so that there is one to import.
	if _, err := c.UpdateEmailServer(ctx, prod, apiclient.SharedEmailServer()); err != nil {
		t.Fatal(err)
	}
	preview := env.childBranch("preview")

	var steps []resource.TestStep
	for _, imp := range crossBranchImports(env.ProjectID, preview, user.ID) {
		steps = append(steps, resource.TestStep{
			Config: env.config(resourceBlock(imp.typ, "x", env.ProjectID, preview, imp.args) + fmt.Sprintf(`
import {
  to = %s.x
  id = %q
}
`, imp.typ, imp.id)),
			ExpectError: matchInOrder("Object on another branch", "This "+imp.typ+" in the state lives on branch "+env.BranchID,
				"configuration names branch "+preview),
		})
	}
	// A resource in state whose configuration moves to another branch.
	moved := func(branchID string) string {
		return env.config(resourceBlock("neon_auth_domain", "admin", env.ProjectID, branchID, `  domain = "https://admin.example.com"`+"\n"))
	}
	steps = append(steps,
		resource.TestStep{Config: moved("")},
		resource.TestStep{Config: moved(preview),
			ExpectError: matchInOrder("Object on another branch", "lives on branch "+env.BranchID, "names branch "+preview)},
		resource.TestStep{Config: moved(""), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check: func(*terraform.State) error { return productionIntact(env) }},
	)
	resource.ParallelTest(t, env.testCase(steps...))
}

// productionIntact checks that production's Neon Auth still has what the
// refused plans would have deleted.
func productionIntact(env *accEnv) error {
	if env.integration() == nil {
		return fmt.Errorf("production's integration is gone")
	}
	if _, ok := env.oauthProvider("google"); !ok {
		return fmt.Errorf("production's google OAuth provider is gone")
	}
	if !slices.Contains(env.domains(), "https://app.example.com") {
		return fmt.Errorf("production's domain https://app.example.com is gone")
	}
	if !env.userExists("seed@example.com") {
		return fmt.Errorf("production's user seed@example.com is gone")
	}
	return nil
}

// A branch_id of another project is refused at plan, naming branch_id; when
// it is not known until apply, the create fails naming it too, and so does
// the integration data source. None advises `terraform state rm` (there is
// nothing in state to remove).
func TestAccBranchIDs_branchOfAnotherProject(t *testing.T) {
	env := newBranchEnv(t)
	other, otherBranch := env.otherProject()
	cli := env.cli(nil)
	cli.write("main.tf", requiredProviders+env.config(fmt.Sprintf(`
resource "neon_auth_integration" "x" {
  project_id = %[1]q
  branch_id  = %[2]q
}
`, env.ProjectID, otherBranch)))
	cli.must(0, "init", "-input=false")
	_, out := cli.run("plan", "-input=false")
	checkBranchOfAnotherProject(t, "plan", out, env.ProjectID, otherBranch, 1)

	// Known only at apply: the create gets the 404 and explains it.
	cli.write("main.tf", requiredProviders+env.config(fmt.Sprintf(`
resource "terraform_data" "branch" {
  input = %[2]q
}

resource "neon_auth_integration" "x" {
  project_id = %[1]q
  branch_id  = terraform_data.branch.output
}
`, env.ProjectID, otherBranch)))
	_, out = cli.run("apply", "-auto-approve", "-input=false")
	checkBranchOfAnotherProject(t, "apply", out, env.ProjectID, otherBranch, 1)
	its, err := env.client().ListIntegrations(context.Background(),
		apiclient.Scope{ProjectID: other, BranchID: otherBranch, Family: apiclient.FamilyBranch})
	if !errors.Is(err, apiclient.ErrNotFound) {
		t.Fatalf("the other project's production branch got Neon Auth: %v, %v", its, err)
	}

	// A data source reading it.
	cli.write("main.tf", requiredProviders+env.config(fmt.Sprintf(`
data "neon_auth_integration" "x" {
  project_id = %[1]q
  branch_id  = %[2]q
}
`, env.ProjectID, otherBranch)))
	_, out = cli.run("plan", "-input=false")
	checkBranchOfAnotherProject(t, "data source", out, env.ProjectID, otherBranch, 1)
}

func checkBranchOfAnotherProject(t *testing.T, what, out, projectID, branchID string, want int) {
	t.Helper()
	flat := strings.Join(strings.Fields(out), " ")
	if n := strings.Count(flat, fmt.Sprintf("branch_id %s is not a branch of project %s", branchID, projectID)); n < want {
		t.Fatalf("%s: %d diagnoses naming branch_id %s, want %d:\n%s", what, n, branchID, want, out)
	}
	if strings.Contains(flat, "state rm") {
		t.Fatalf("%s: advises `terraform state rm` for something that is not in state:\n%s", what, out)
	}
}
