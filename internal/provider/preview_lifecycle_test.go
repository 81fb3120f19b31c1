package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// A preview branch as the platforms run it: a platform makes the branch
// from production (the Vercel integration also puts the preview's origin
// into its whitelist), a workflow applies a small configuration to it in a
// state of its own on every push, and the platform deletes the branch when
// the pull request closes, often before the workflow's destroy runs.

// previewConfig is the configuration a pull request's workflow applies to
// preview branch %[1]q of project %[2]q: the inherited integration renamed,
// the preview's origin (which the platform put there already), and the
// inherited webhooks sent to the preview.
const previewConfig = acctest.RequiredProviders + `
resource "neon_auth_integration" "preview" {
  project_id = %[2]q
  branch_id  = %[1]q
  name       = "Acme (preview)"
}

resource "neon_auth_domain" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  domain     = "` + acctest.PreviewOrigin + `"
}

resource "neon_auth_webhooks" "preview" {
  project_id  = neon_auth_integration.preview.project_id
  branch_id   = neon_auth_integration.preview.branch_id
  enabled     = true
  webhook_url = "` + acctest.PreviewOrigin + `/api/auth-events"
}
`

// previewAudit reads the preview branch through every data source that
// names a branch, the branch given as it is (not taken from a resource, so
// nothing defers the reads once the branch is gone). Format arguments as for
// previewConfig.
var previewAudit = func() string {
	var b strings.Builder
	for _, t := range []typeName{typeAuthIntegration, typeAuthIntegrations, typeAuthDomains, typeAuthOAuthProviders, typeAuthEmailServer} {
		fmt.Fprintf(&b, `
data %q "audit" {
  project_id = %%[2]q
  branch_id  = %%[1]q
}
`, t)
	}
	return b.String()
}()

// flat is CLI output with its line wrapping undone.
func flat(out string) string { return strings.Join(strings.Fields(out), " ") }

// expectSaid fails t for each want that out does not say.
func expectSaid(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(flat(out), w) {
			t.Errorf("%s does not say %q:\n%s", what, w, out)
		}
	}
}

// platformPreview is a preview branch made from the test's branch
// (production, configured as examples/branch-preview/production describes)
// the way a platform makes it: through the API, with the preview's origin
// added to its whitelist.
func platformPreview(env *acctest.Env, name string) acctest.Env {
	env.T().Helper()
	configureProduction(env, false)
	preview := *env
	preview.BranchID = env.ChildBranch(name)
	_, err := env.Client().AddDomain(context.Background(), preview.Scope(),
		apiclient.AddDomainRequest{Domain: acctest.PreviewOrigin, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(apiclient.AuthProviderBetterAuth)})
	env.Must(err)
	return preview
}

// The platform's own origin, declared by the configuration, is taken over
// on the first apply instead of refused, and the plan says so; a re-plan is
// empty; and the default destroy leaves the branch exactly as the platform
// made it: the origin stays, the name and webhooks come back. Production
// never changes.
func TestAccPreview_platformOriginIsTakenOverAndTheBranchLeftAsFound(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	preview := platformPreview(env, "pr-42")
	production, asMade := env.AuthOf(env.BranchID), env.AuthOf(preview.BranchID)
	cli := env.CLI(nil, nil)
	cli.Write("main.tf", fmt.Sprintf(previewConfig, preview.BranchID, env.ProjectID)+env.ProviderBlock())
	cli.Must(0, "init", "-input=false")
	expectSaid(t, "the first plan", cli.Must(0, "plan", "-input=false"),
		"Trusted domains already on the branch will be taken over: "+acctest.PreviewOrigin,
		"the Vercel integration (it adds a preview's origin)", "Destroy leaves it in the whitelist")
	expectSaid(t, "the first apply", cli.Must(0, "apply", "-auto-approve", "-input=false"),
		"Trusted domain already on the branch taken over: "+acctest.PreviewOrigin,
		"Inherited Neon Auth integration (better_auth) taken over", "Apply complete! Resources: 3 added")
	if err := preview.ExpectDomains("https://app.example.com", acctest.PreviewOrigin)(); err != nil {
		t.Error(err)
	}
	cli.Must(0, "plan", "-detailed-exitcode", "-input=false")
	expectSaid(t, "the destroy plan", cli.Must(0, "plan", "-destroy", "-input=false"),
		"Destroy restores what was taken over: trusted domain "+acctest.PreviewOrigin, "Destroy leaves it in the whitelist")
	cli.Must(0, "destroy", "-auto-approve", "-input=false")
	if err := env.SameAuth(preview.BranchID, asMade, "after the default destroy"); err != nil {
		t.Error(err)
	}
	if err := env.SameAuth(env.BranchID, production, "after the preview's destroy"); err != nil {
		t.Error(err)
	}
}

// destroyReadsOnly runs a destroy that must succeed and, in-process, send
// nothing but reads, and leave an empty state.
func destroyReadsOnly(t *testing.T, env *acctest.Env, cli *acctest.CLIDir) string {
	t.Helper()
	if env.Emu != nil {
		env.Emu.ResetStats()
	}
	out := cli.Must(0, "destroy", "-auto-approve", "-input=false")
	if env.Emu != nil {
		for route := range env.Emu.Stats().Requests {
			if !strings.HasPrefix(route, "GET ") {
				t.Errorf("the destroy sent %s; it must send nothing but reads", route)
			}
		}
	}
	var state struct{ Resources []json.RawMessage }
	if err := json.Unmarshal([]byte(cli.Read("terraform.tfstate")), &state); err != nil || len(state.Resources) != 0 {
		t.Errorf("the destroy left the state holding %d resources (%v)", len(state.Resources), err)
	}
	return out
}

// The platform deletes the preview's branch when its pull request closes,
// before the workflow's destroy: a plan says that the branch is gone (the
// refresh removed what the state held; the creates it plans again are
// warned about, and data sources that name the branch read as empty with a
// warning, so that the plan inside destroy does not fail), an apply refuses
// before sending anything, and destroy succeeds, sending only reads, with an
// empty state.
func TestAccPreview_branchDeletedBeforeDestroy(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	preview := platformPreview(env, "pr-43")
	cli := env.CLI(nil, nil)
	// A user the preview's configuration creates: it cannot be read, only
	// its integration can, and it goes with its branch too.
	cli.Write("main.tf", fmt.Sprintf(previewConfig+previewAudit, preview.BranchID, env.ProjectID)+env.ProviderBlock()+`
resource "neon_auth_user" "tester" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  email      = "tester@example.com"
}
`)
	cli.Must(0, "init", "-input=false")
	cli.Must(0, "apply", "-auto-approve", "-input=false")
	env.Must(env.Client().DeleteBranch(context.Background(), env.ProjectID, preview.BranchID))

	expectSaid(t, "the plan after the branch was deleted", cli.Must(0, "plan", "-input=false"),
		"Branch deleted: its objects removed from state", "branch "+preview.BranchID+" of project "+env.ProjectID+" no longer exists",
		"Branch not in the project", "Apply will refuse to create anything on it", "`terraform destroy` still removes what the state holds",
		"Branch not in the project: data source read as empty", "reads as empty instead of failing")
	_, applied := cli.Run("apply", "-auto-approve", "-input=false")
	expectSaid(t, "the apply after the branch was deleted", applied, "Branch not in the project", "Nothing was sent")
	destroyReadsOnly(t, env, cli)
}

// The same when the whole project was deleted (a project per pull request):
// the project answers 404, and its listing among the deleted projects that
// can still be recovered tells it from a project the key cannot see.
func TestAccPreview_projectDeletedBeforeDestroy(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	env.Mode = authAPIBranch
	preview := platformPreview(env, "pr-44")
	cli := env.CLI(nil, nil)
	cli.Write("main.tf", fmt.Sprintf(previewConfig+previewAudit, preview.BranchID, env.ProjectID)+env.ProviderBlock())
	cli.Must(0, "init", "-input=false")
	cli.Must(0, "apply", "-auto-approve", "-input=false")
	env.Must(env.Client().DeleteProject(context.Background(), env.ProjectID))

	expectSaid(t, "the plan after the project was deleted", cli.Must(0, "plan", "-input=false"),
		"Project deleted: its objects removed from state", "project "+env.ProjectID+" was deleted",
		"Branch not in the project", "was deleted", "Project deleted: data source read as empty")
	destroyReadsOnly(t, env, cli)
}

// A disposable preview (restore_on_destroy = false): the inherited Google
// sign-in with production's own app is put on Neon's shared keys — which
// the default refuses, since destroy could not restore the app's secret —
// the plan says that destroy will restore nothing, and destroy leaves the
// branch as the configuration set it, sending no write.
func TestAccPreview_disposableBranchKeepsWhatTheConfigurationSet(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	preview := platformPreview(env, "pr-45")
	cli := env.CLI(nil, nil)
	cli.Write("main.tf", fmt.Sprintf(previewConfig, preview.BranchID, env.ProjectID)+`
resource "neon_auth_oauth_provider" "google" {
  project_id  = neon_auth_integration.preview.project_id
  branch_id   = neon_auth_integration.preview.branch_id
  provider_id = "google"
}
`+env.ProviderBlock("restore_on_destroy = false"))
	cli.Must(0, "init", "-input=false")
	expectSaid(t, "the first plan", cli.Must(0, "plan", "-input=false"),
		"Inherited google OAuth provider will be taken over",
		"restore_on_destroy is false, so destroy leaves it as this configuration set it")
	expectSaid(t, "the first apply", cli.Must(0, "apply", "-auto-approve", "-input=false"),
		"Inherited google OAuth provider (type standard) taken over",
		"Its own OAuth app was replaced by the shared keys")
	if p, ok := preview.OAuthProvider("google"); !ok || string(p.Type) != apiclient.TypeShared {
		t.Errorf("the preview's google provider is %+v (listed: %v), want shared", p, ok)
	}
	configured := env.AuthOf(preview.BranchID)
	cli.Must(0, "plan", "-detailed-exitcode", "-input=false")
	expectSaid(t, "the destroy plan", cli.Must(0, "plan", "-destroy", "-input=false"),
		"Destroy leaves what was taken over: Neon Auth integration", "Destroy leaves the neon_auth_webhooks settings as configured")
	if env.Emu != nil {
		env.Emu.ResetStats()
	}
	cli.Must(0, "destroy", "-auto-approve", "-input=false")
	if env.Emu != nil {
		for route := range env.Emu.Stats().Requests {
			if !strings.HasPrefix(route, "GET ") {
				t.Errorf("the disposable destroy sent %s; it restores nothing, and deletes nothing it took over", route)
			}
		}
	}
	if err := env.SameAuth(preview.BranchID, configured, "after the disposable destroy"); err != nil {
		t.Error(err)
	}
}

// A preview configuration without an integration of its own, whose objects
// live on the Neon Auth the branch inherited, still names the branch after
// the platform deleted it: every create the apply plans again is refused for
// that one cause, "Branch not in the project", before anything is sent —
// never for the integration the deleted branch no longer shows.
func TestAccPreview_deletedBranchRefusesEveryCreateForOneCause(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	preview := platformPreview(env, "pr-46")
	cli := env.CLI(nil, nil)
	cli.Write("main.tf", acctest.RequiredProviders+env.ProviderBlock()+fmt.Sprintf(`
resource "neon_auth_domain" "preview" {
  project_id = %[2]q
  branch_id  = %[1]q
  domain     = %[3]q
}

resource "neon_auth_oauth_provider" "github" {
  project_id  = %[2]q
  branch_id   = %[1]q
  provider_id = "github"
}

resource "neon_auth_user" "tester" {
  project_id = %[2]q
  branch_id  = %[1]q
  email      = "tester@example.com"
}
`, preview.BranchID, env.ProjectID, acctest.PreviewOrigin))
	cli.Must(0, "init", "-input=false")
	cli.Must(0, "apply", "-auto-approve", "-input=false")
	env.Must(env.Client().DeleteBranch(context.Background(), env.ProjectID, preview.BranchID))

	_, out := cli.Run("apply", "-auto-approve", "-input=false")
	errs, gone := strings.Count(out, "Error: "), strings.Count(out, "Error: Branch not in the project")
	if errs != 3 || gone != errs {
		t.Errorf("the apply on the deleted branch has %d errors, %d of them `Branch not in the project`; want one per create (3), "+
			"all for that cause:\n%s", errs, gone, out)
	}
	expectSaid(t, "the apply on the deleted branch", out, "Nothing was sent")
	destroyReadsOnly(t, env, cli)
}
