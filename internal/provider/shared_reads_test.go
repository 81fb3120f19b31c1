package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

const listDomainsRoute = "GET /projects/{project_id}/auth/domains"

// newTestProviderData is what Configure builds, pointed at env's emulator.
func newTestProviderData(env *accEnv, maxAge time.Duration) *providerData {
	return newProviderData(env.client(), apiclient.FamilyProject, maxAge)
}

// projectScope is the project-level scope of env's first project.
func (e *accEnv) projectScope() apiclient.Scope {
	return apiclient.Scope{ProjectID: e.ProjectID, Family: apiclient.FamilyProject}
}

// Fifty readers of one project's domains at once cost one request.
func TestSharedReads_concurrentReadersShareOneRequest(t *testing.T) {
	env := newEmulatorEnv(t, "it counts the requests the shared reads send", nil)
	env.enableAuth()
	for i := range 50 {
		if err := env.Emu.AddDomain(env.ProjectID, fmt.Sprintf("https://d%d.example.com", i)); err != nil {
			t.Fatal(err)
		}
	}
	d := newTestProviderData(env, defaultReadMaxAge)
	env.Emu.ResetStats()
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			list, err := d.domains(context.Background(), env.projectScope())
			if err == nil && len(list) != 50 {
				err = fmt.Errorf("a reader saw %d domains, want 50", len(list))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := env.routeCount(listDomainsRoute); n != 1 {
		t.Fatalf("50 concurrent readers made %d list requests, want 1", n)
	}
}

// With sharing off (maxAge 0) every read is its own request: the switch the
// benchmark compares against.
func TestSharedReads_sharingOff(t *testing.T) {
	env := newEmulatorEnv(t, "it counts the requests the shared reads send", nil)
	env.enableAuth()
	d := newTestProviderData(env, 0)
	env.Emu.ResetStats()
	for range 5 {
		if _, err := d.domains(context.Background(), env.projectScope()); err != nil {
			t.Fatal(err)
		}
	}
	if n := env.routeCount(listDomainsRoute); n != 5 {
		t.Fatalf("%d list requests for 5 reads with sharing off, want 5", n)
	}
}

// A write invalidates the cached list: the next read sees what was written,
// and until then a read is served from the cache.
func TestSharedReads_writeInvalidates(t *testing.T) {
	env := newEmulatorEnv(t, "it counts the requests the shared reads send", nil)
	env.enableAuth()
	d := newTestProviderData(env, time.Hour)
	ctx := context.Background()
	if list, err := d.domains(ctx, env.projectScope()); err != nil || len(list) != 0 {
		t.Fatalf("first read: %v, %v", list, err)
	}
	// A change the provider did not make is not seen within the bound...
	if err := env.Emu.AddDomain(env.ProjectID, "https://outside.example.com"); err != nil {
		t.Fatal(err)
	}
	if list, _ := d.domains(ctx, env.projectScope()); len(list) != 0 {
		t.Fatalf("the cached list was not served: %v", list)
	}
	// ...but the provider's own write invalidates, so the next read is fresh.
	if _, err := d.client.AddDomain(ctx, env.projectScope(), apiclient.AddDomainRequest{Domain: "https://mine.example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider("stack")}); err != nil {
		t.Fatal(err)
	}
	d.wroteDomains(env.projectScope())
	list, err := d.domains(ctx, env.projectScope())
	if err != nil || len(list) != 2 {
		t.Fatalf("after the write: %v, %v; want both domains", list, err)
	}
	// Other projects and other endpoints keep their entries.
	if n := env.routeCount(listDomainsRoute); n != 2 {
		t.Fatalf("%d list requests, want 2 (one before, one after the write)", n)
	}
}

// A list that was in flight when a write happened is never served to a
// reader that comes after the write: that reader fetches anew.
func TestSharedReads_inFlightListIsNotServedAfterAWrite(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	var once sync.Once
	env := newEmulatorEnv(t, "it holds a list request at the server and counts the requests", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/auth/domains") {
				first := false
				once.Do(func() { first = true })
				if first {
					// The first list reads the (empty) whitelist, then
					// waits: it is "in flight" while the write happens.
					rec := httptest.NewRecorder()
					next.ServeHTTP(rec, r)
					started <- struct{}{}
					<-release
					for k, v := range rec.Header() {
						w.Header()[k] = v
					}
					w.WriteHeader(rec.Code)
					_, _ = w.Write(rec.Body.Bytes())
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	})
	env.enableAuth()
	d := newTestProviderData(env, time.Hour)
	ctx := context.Background()

	stale := make(chan []apiclient.Domain, 1)
	go func() {
		list, _ := d.domains(ctx, env.projectScope())
		stale <- list
	}()
	<-started
	if _, err := d.client.AddDomain(ctx, env.projectScope(), apiclient.AddDomainRequest{Domain: "https://new.example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider("stack")}); err != nil {
		t.Fatal(err)
	}
	d.wroteDomains(env.projectScope())
	fresh, err := d.domains(ctx, env.projectScope())
	close(release)
	if err != nil || len(fresh) != 1 {
		t.Fatalf("read after the write: %v, %v; want the new domain", fresh, err)
	}
	if old := <-stale; len(old) != 0 {
		t.Fatalf("the in-flight reader saw %v; it started before the write", old)
	}
	// The stale result did not replace the fresh one in the cache.
	if again, _ := d.domains(ctx, env.projectScope()); len(again) != 1 {
		t.Fatalf("a later read got %v from the cache; want the list fetched after the write", again)
	}
}

// A cached list never outlives its bound.
func TestSharedReads_entriesExpire(t *testing.T) {
	env := newEmulatorEnv(t, "it counts the requests the shared reads send", nil)
	env.enableAuth()
	d := newTestProviderData(env, time.Hour)
	now := time.Now()
	d.reads.domains.now = func() time.Time { return now }
	ctx := context.Background()
	env.Emu.ResetStats()
	_, _ = d.domains(ctx, env.projectScope())
	now = now.Add(59 * time.Minute)
	_, _ = d.domains(ctx, env.projectScope())
	if n := env.routeCount(listDomainsRoute); n != 1 {
		t.Fatalf("within the bound: %d requests, want 1", n)
	}
	now = now.Add(2 * time.Minute)
	_, _ = d.domains(ctx, env.projectScope())
	if n := env.routeCount(listDomainsRoute); n != 2 {
		t.Fatalf("past the bound: %d requests, want 2", n)
	}
}

// Errors are shared with the readers already waiting, never kept.
// A read that started before a moment (such as the start of a lookup that
// must see a branch created since) is not served to getSince; one that
// started after it is shared, finished or in flight.
func TestSharedReads_getSinceFetchesAReadOlderThanItsMoment(t *testing.T) {
	c := newSharedRead[int](time.Minute)
	clock := time.Unix(1000, 0)
	c.now = func() time.Time { return clock }
	var fetches int
	fetch := func(context.Context) (int, error) { fetches++; return fetches, nil }
	key := readKey{projectID: "p"}
	ctx := context.Background()
	if v, _ := c.get(ctx, key, fetch); v != 1 {
		t.Fatalf("first read = %d", v)
	}
	clock = clock.Add(time.Second)
	since := clock
	if v, _ := c.getSince(ctx, key, since, fetch); v != 2 || fetches != 2 {
		t.Errorf("getSince after an older read = %d (%d fetches), want a new read", v, fetches)
	}
	if v, _ := c.getSince(ctx, key, since, fetch); v != 2 || fetches != 2 {
		t.Errorf("getSince again = %d (%d fetches), want the read that started at its moment", v, fetches)
	}
	if v, _ := c.get(ctx, key, fetch); v != 2 {
		t.Errorf("get after getSince = %d, want the newer read shared", v)
	}
}

func TestSharedReads_errorsAreNotCached(t *testing.T) {
	env := newEmulatorEnv(t, "it counts the requests the shared reads send", nil) // no integration yet: the domain list is a 404
	d := newTestProviderData(env, time.Hour)
	ctx := context.Background()
	if _, err := d.domains(ctx, env.projectScope()); err == nil {
		t.Fatal("listing domains without an integration succeeded")
	}
	env.enableAuth()
	if _, err := d.domains(ctx, env.projectScope()); err != nil {
		t.Fatalf("the earlier error was served from the cache: %v", err)
	}
}

// Through the real CLI: refreshing 50 domains of one project costs exactly
// one list request, and removing them sends their deletes in batches (one
// DELETE with many domains), not one request per domain.
func TestAccAuthDomain_fiftyDomainsOneListRequest(t *testing.T) {
	env := newEmulatorEnv(t, "it counts the requests the shared reads send", nil)
	integration := fmt.Sprintf(`
resource "neon_auth_integration" "test" {
  project_id = %[1]q
}
`, env.ProjectID)
	cfg := env.config(integration + `
resource "neon_auth_domain" "many" {
  count      = 50
  project_id = neon_auth_integration.test.project_id
  domain     = "https://app${count.index}.example.com"
}
`)
	resource.ParallelTest(t, env.testCase(
		resource.TestStep{Config: cfg},
		refreshRequests(env, "the integration and 50 domains", map[string]int{
			listDomainsRoute: 1, "GET /projects/{project_id}/auth/integrations": 1,
		}),
		resource.TestStep{
			PreConfig: env.Emu.ResetStats,
			Config:    env.config(integration),
			Check: func(*terraform.State) error {
				if n := len(env.Emu.Domains(env.ProjectID)); n != 0 {
					return fmt.Errorf("%d domains left on the emulator, want 0", n)
				}
				// Terraform deletes 10 at a time (-parallelism): about 5
				// requests; 12 allows for waves that split.
				deletes := env.routeCount("DELETE /projects/{project_id}/auth/domains")
				t.Logf("50 domains removed with %d DELETE requests", deletes)
				if deletes < 1 || deletes > 12 {
					return fmt.Errorf("removing 50 domains sent %d DELETE requests, want 1 to 12 (batched)", deletes)
				}
				return nil
			},
		},
	))
}
