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

	"github.com/neon-auth/terraform-provider-neon/internal/officialneontest"
)

// The guides' configurations, applied as written.

// guideTemplate is the template that tfplugindocs renders a guide from.
func guideTemplate(t *testing.T, guide string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", guide+".md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// guideConfig is the first terraform block of a guide's template: the
// configuration the guide shows.
func guideConfig(t *testing.T, guide string) string {
	t.Helper()
	m := regexp.MustCompile("(?s)```terraform\n(.*?)```").FindStringSubmatch(guideTemplate(t, guide))
	if m == nil {
		t.Fatalf("the guide %s shows no terraform block", guide)
	}
	return m[1]
}

// guideQuote is the text that a guide quotes as ("…") and that matches
// pattern, with the guide's line breaks undone: what the guide tells users
// they will see.
func guideQuote(t *testing.T, guide, pattern string) string {
	t.Helper()
	flat := strings.Join(strings.Fields(guideTemplate(t, guide)), " ")
	m := regexp.MustCompile(`\("(` + pattern + `)"\)`).FindStringSubmatch(flat)
	if m == nil {
		t.Fatalf("the guide %s quotes nothing that matches %s", guide, pattern)
	}
	return m[1]
}

// pointedAt rewrites the block `provider "<name>" {` of a configuration so
// that it reaches the test's emulator, keeping what the block sets.
func pointedAt(t *testing.T, cfg, name string, env *accEnv) string {
	t.Helper()
	head := `provider "` + name + `" {`
	if !strings.Contains(cfg, head) {
		t.Fatalf("the configuration has no %s block", head)
	}
	return strings.Replace(cfg, head, head+fmt.Sprintf(`
  api_key             = %q
  base_url            = %q
  requests_per_minute = 100000
`, env.Key, env.BaseURL), 1)
}

// holdUntil polls cond until it holds or a minute has passed (it runs in the
// provider's and the emulator's goroutines, which cannot fail a test: the
// checks after the apply do).
func holdUntil(cond func() bool) {
	for deadline := time.Now().Add(time.Minute); !cond() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
}

// The guide "Using this provider with the official Neon provider": one
// configuration creates a project and a preview branch with the official
// provider (a stand-in here) and their Neon Auth with this one. Nothing
// orders the branch against production's Neon Auth, so both orders are
// forced: production's Neon Auth first (the branch inherits it, and the
// preview takes the copy over), or the branch first (the preview enables its
// own). Each applies in one run — the branch, created during the apply, is
// found — plans empty and destroys.
func TestAccGuide_officialNeonProvider(t *testing.T) {
	for _, order := range []string{"production first", "branch first"} {
		t.Run(order, func(t *testing.T) {
			var env *accEnv
			project := func(r *http.Request) string {
				return strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v2/projects/"), "/")[0]
			}
			env = newEmulatorEnv(t, "it holds requests at the server to force each order of the two providers' writes", func(next http.Handler) http.Handler {
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
			cli := env.cli(map[string]tfprotov6.ProviderServer{"neondatabase/neon": double.Server()})
			cli.write("main.tf", pointedAt(t, guideConfig(t, "official-neon-provider"), "neonauth", env))
			cli.must(0, "init", "-input=false")
			out := cli.must(0, "apply", "-auto-approve", "-input=false")
			warning := guideQuote(t, "official-neon-provider", `Inherited [^"]* taken over`)
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
			cli.must(0, "plan", "-detailed-exitcode", "-input=false")
			cli.must(0, "destroy", "-auto-approve", "-input=false")
			if slices.Contains(env.Emu.ProjectIDs(), projectID) {
				t.Errorf("destroy left project %s", projectID)
			}
		})
	}
}
