package provider

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/officialneontest"
)

// The guides' configurations, applied as written.

// The guide "Using this provider with the official Neon provider": one
// configuration creates a project and a preview branch with the official
// provider (a stand-in here) and their Neon Auth with this one. Nothing
// orders the branch against production's Neon Auth, so both orders are
// forced: production's Neon Auth first (the branch inherits it, and the
// preview takes the copy over), or the branch first (the preview enables its
// own). Each applies in one run — the branch, created during the apply, is
// found — plans empty and destroys.
func TestAccGuide_officialNeonProvider(t *testing.T) {
	// The template tfplugindocs renders the guide from.
	src, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "official-neon-provider.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	guide := string(src)
	// The configuration the guide shows (its first terraform block), and the
	// warning it tells users they will see (quoted as ("…")).
	shown := regexp.MustCompile("(?s)```terraform\n(.*?)```").FindStringSubmatch(guide)
	quoted := regexp.MustCompile(`\("(Inherited [^"]* taken over)"\)`).FindStringSubmatch(strings.Join(strings.Fields(guide), " "))
	if shown == nil || quoted == nil {
		t.Fatalf("the guide shows no terraform block (%v) or quotes no take-over warning (%v)", shown != nil, quoted != nil)
	}
	// holdUntil polls cond until it holds or a minute has passed (it runs in
	// the provider's and the emulator's goroutines, which cannot fail a
	// test: the checks after the apply do).
	holdUntil := func(cond func() bool) {
		for deadline := time.Now().Add(time.Minute); !cond() && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, order := range []string{"production first", "branch first"} {
		t.Run(order, func(t *testing.T) {
			var env *acctest.Env
			project := func(r *http.Request) string {
				return strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v2/projects/"), "/")[0]
			}
			env = acctest.NewEmulatorEnv(t, "it holds requests at the server to force each order of the two providers' writes", func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					// Branch first: production's Neon Auth waits for the branch.
					if order == "branch first" && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/auth") {
						holdUntil(func() bool { return len(env.Emu.Branches(project(r))) > 1 })
					}
					next.ServeHTTP(w, r)
				})
			})
			double := &officialneontest.Double{BaseURL: env.BaseURL, Key: env.Key}
			if order == "production first" {
				double.BeforeBranchCreate = func(projectID string) {
					holdUntil(func() bool {
						a, ok := env.Emu.BranchAuth(projectID, "")
						return ok && len(a.Domains) == 1
					})
				}
			}
			cli := env.CLI(nil, map[string]tfprotov6.ProviderServer{"neondatabase/neon": double.Server()})
			// The guide's provider "neonauth" block, pointed at the emulator.
			head := `provider "neonauth" {`
			cli.Write("main.tf", strings.Replace(shown[1], head, head+fmt.Sprintf(`
  api_key             = %q
  base_url            = %q
  requests_per_minute = 100000
`, env.Key, env.BaseURL), 1))
			cli.Must(0, "init", "-input=false")
			out := cli.Must(0, "apply", "-auto-approve", "-input=false")
			warning := quoted[1]
			if taken := strings.Contains(out, warning); taken != (order == "production first") {
				t.Errorf("the apply shows the guide's warning %q: %v, want %v:\n%s", warning, taken, order == "production first", out)
			}
			ids := env.Emu.ProjectIDs()
			projectID := ids[len(ids)-1]
			branches := env.Emu.Branches(projectID)
			if len(branches) != 2 {
				t.Fatalf("project %s has %d branches, want production and the preview", projectID, len(branches))
			}
			preview, _ := env.Emu.BranchAuth(projectID, branches[1].ID)
			want := "https://preview.example.com"
			if order == "production first" {
				want = "https://app.example.com " + want
			}
			var got []string
			for _, d := range preview.Domains {
				got = append(got, d.Domain)
			}
			if got := strings.Join(got, " "); got != want {
				t.Errorf("the preview's domains = %q, want %q", got, want)
			}
			cli.Must(0, "plan", "-detailed-exitcode", "-input=false")
			cli.Must(0, "destroy", "-auto-approve", "-input=false")
			if slices.Contains(env.Emu.ProjectIDs(), projectID) {
				t.Errorf("destroy left project %s", projectID)
			}
		})
	}
}
