package provider

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// A key revoked in the middle of a 40-resource apply: the requests in flight
// at that moment get their 401, and from the first 401 on the provider sends
// nothing more; every later resource fails at once with a short message
// pointing at the first error.
func TestAccProvider_revokedKeyStopsSendingAfterTheFirst401(t *testing.T) {
	const projects = 40
	// A request may leave the provider's rate limit while the first 401 is
	// on its way back, and arrive just after it was answered: the provider
	// could not have known. One that arrives later than this after the
	// first 401 was answered was sent after the provider had it. Without the
	// provider's stop, the remaining creates arrive for seconds after it.
	const answerInTransit = 100 * time.Millisecond
	var env *acctest.Env
	var (
		key         string
		creates     atomic.Int32
		revoked     atomic.Bool
		firstRefuse atomic.Int64 // when the first 401 was answered, Unix ns
		late        atomic.Int32 // requests arriving later than answerInTransit after it
		refusals    atomic.Int32
	)
	env = acctest.NewEmulatorEnv(t, "it revokes an API key through the emulator's control surface and times the requests after the first 401", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if first := firstRefuse.Load(); first != 0 && time.Since(time.Unix(0, first)) > answerInTransit {
				late.Add(1)
			}
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/auth/create") && creates.Add(1) == 5 {
				if err := env.Emu.RevokeKey(key); err != nil {
					t.Error(err)
				}
				revoked.Store(true)
			}
			if revoked.Load() && strings.HasSuffix(r.Header.Get("Authorization"), " "+key) {
				// Hold refusals back, so that every request sent before
				// any 401 reached the provider has arrived when the
				// first one is answered: a later arrival was sent after.
				time.Sleep(300 * time.Millisecond)
			}
			sw := &emulator.StatusRecorder{ResponseWriter: w}
			h.ServeHTTP(sw, r)
			if sw.Status() == http.StatusUnauthorized {
				refusals.Add(1)
				firstRefuse.CompareAndSwap(0, time.Now().UnixNano())
			}
		})
	}, func(o *emulator.Options) { o.SeedProjects = projects })
	var err error
	if key, err = env.Emu.CreateKey(emulator.KeyPersonal, ""); err != nil {
		t.Fatal(err)
	}
	ids := env.Emu.ProjectIDs()
	body := fmt.Sprintf(`
locals {
  project_ids = %[1]s
}
resource "neon_auth_integration" "each" {
  count      = length(local.project_ids)
  project_id = local.project_ids[count.index]
}
`, `["`+strings.Join(ids, `", "`)+`"]`)
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{
			Config:      env.ProviderBlock(fmt.Sprintf("api_key = %q", key)) + body,
			ExpectError: acctest.MatchInOrder("not sent, the API refused the API key earlier in this run (HTTP 401 on"),
		},
		resource.TestStep{
			// The refusals are counted before a valid key finishes the job.
			PreConfig: func() {
				t.Logf("%d creates sent for %d resources, %d refused with 401, %d requests more than %s after the first 401", creates.Load(), projects, refusals.Load(), late.Load(), answerInTransit)
				if n := late.Load(); n != 0 {
					t.Errorf("%d requests reached the API more than %s after the first 401 was answered; want none", n, answerInTransit)
				}
				if n := refusals.Load(); n < 1 || n > 10 {
					t.Errorf("%d requests were refused with 401; want those in flight at the revocation only (1 to 10, Terraform's parallelism)", n)
				}
				if n := creates.Load(); n >= projects {
					t.Errorf("%d creates were sent for %d resources; those after the first 401 must not be", n, projects)
				}
			},
			Config: env.Config(body),
		},
	))
}

func TestAccProvider_baseURLWithoutAPIPathIsRefusedWithTheCorrectedURL(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "it counts the requests the server received (none)", nil)
	root := strings.TrimSuffix(env.BaseURL, "/api/v2/")
	start := time.Now()
	resource.ParallelTest(t, env.TestCase(resource.TestStep{
		Config: fmt.Sprintf(`
provider "neon" {
  api_key  = %[1]q
  base_url = %[2]q
}
data "neon_projects" "all" {}
`, env.Key, root),
		ExpectError: acctest.MatchInOrder("must end in /api/v2/", fmt.Sprintf("did you mean %q?", root+"/api/v2/")),
	}))
	if n := env.Emu.Stats().Total; n != 0 {
		t.Errorf("%d requests sent with a refused base_url; want none", n)
	}
	t.Logf("refused in %v", time.Since(start))
}
