package neonauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

const (
	listDomainsRoute = "GET /projects/{project_id}/auth/domains"
	listOAuthRoute   = "GET /projects/{project_id}/auth/oauth_providers"
	pluginsRoute     = "GET /projects/{project_id}/branches/{branch_id}/auth/plugins"
	integrationRoute = "GET /projects/{project_id}/branches/{branch_id}/auth"
)

// projectScope is the production branch of env's project, reached through
// the project-level endpoints, for Stack Auth.
func projectScope(env *testEnv) Scope {
	return env.production(apiclient.FamilyProject, apiclient.AuthProviderStack)
}

// Fifty readers of one project's domains at once cost one request.
func TestSharedReads_concurrentReadersShareOneRequest(t *testing.T) {
	env := newTestEnv(t, nil)
	s := projectScope(env)
	env.enable(s)
	for i := range 50 {
		if err := env.emu.AddDomain(env.projectID, fmt.Sprintf("https://d%d.example.com", i)); err != nil {
			t.Fatal(err)
		}
	}
	svc := env.service(apiclient.FamilyProject, DefaultReadMaxAge)
	env.emu.ResetStats()
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			list, err := svc.Domains(context.Background(), s)
			if err == nil && len(list) != 50 {
				err = fmt.Errorf("a reader saw %d domains, want 50", len(list))
			}
			errs <- err
		})
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

// With sharing off (ReadMaxAge 0) every read is its own request: the switch
// the benchmark compares against.
func TestSharedReads_sharingOff(t *testing.T) {
	env := newTestEnv(t, nil)
	s := projectScope(env)
	env.enable(s)
	svc := env.service(apiclient.FamilyProject, 0)
	env.emu.ResetStats()
	for range 5 {
		if _, err := svc.Domains(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	if n := env.routeCount(listDomainsRoute); n != 5 {
		t.Fatalf("%d list requests for 5 reads with sharing off, want 5", n)
	}
}

// A write forgets the list it changes: the next read sees what was written,
// and until then a read is served from the cache.
func TestSharedReads_writeInvalidates(t *testing.T) {
	env := newTestEnv(t, nil)
	s := projectScope(env)
	env.enable(s)
	svc := env.service(apiclient.FamilyProject, time.Hour)
	ctx := context.Background()
	if list, err := svc.Domains(ctx, s); err != nil || len(list) != 0 {
		t.Fatalf("first read: %v, %v", list, err)
	}
	// A change the provider did not make is not seen within the bound...
	if err := env.emu.AddDomain(env.projectID, "https://outside.example.com"); err != nil {
		t.Fatal(err)
	}
	if list, _ := svc.Domains(ctx, s); len(list) != 0 {
		t.Fatalf("the cached list was not served: %v", list)
	}
	// ...but the service's own write forgets it, so the next read is fresh.
	if _, err := svc.AddDomain(ctx, s, "https://mine.example.com"); err != nil {
		t.Fatal(err)
	}
	list, err := svc.Domains(ctx, s)
	if err != nil || len(list) != 2 {
		t.Fatalf("after the write: %v, %v; want both domains", list, err)
	}
	if n := env.routeCount(listDomainsRoute); n != 2 {
		t.Fatalf("%d list requests, want 2 (one before, one after the write)", n)
	}
}

// Each write forgets what it changes, and only that: a read of another kind
// of the scope is still served from the cache.
func TestSharedReads_eachWriteForgetsWhatItChanges(t *testing.T) {
	env := newTestEnv(t, nil)
	s := projectScope(env)
	env.enable(s)
	svc := env.service(apiclient.FamilyProject, time.Hour)
	ctx := context.Background()
	readBoth := func() {
		t.Helper()
		if _, err := svc.Domains(ctx, s); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.OAuthProviders(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	readBoth()
	env.emu.ResetStats()
	if _, err := svc.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "github"}); err != nil {
		t.Fatal(err)
	}
	readBoth()
	if d, o := env.routeCount(listDomainsRoute), env.routeCount(listOAuthRoute); d != 0 || o != 1 {
		t.Errorf("after adding an OAuth provider: %d domain and %d OAuth provider lists, want 0 and 1", d, o)
	}
	env.emu.ResetStats()
	if err := svc.DeleteDomains(ctx, s, []string{"https://none.example.com"}); err != nil {
		t.Fatal(err)
	}
	readBoth()
	if d, o := env.routeCount(listDomainsRoute), env.routeCount(listOAuthRoute); d != 1 || o != 0 {
		t.Errorf("after deleting domains: %d domain and %d OAuth provider lists, want 1 and 0", d, o)
	}
}

// In branch mode the settings of a branch are one shared bundle. A write of
// a part that has an endpoint of its own takes that part out of the bundle
// held: its next reader reads that endpoint and sees the write, while the
// other parts are still served without a request.
func TestSharedReads_aWriteTakesItsPartOutOfTheBundle(t *testing.T) {
	env := newTestEnv(t, nil)
	s := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	env.enable(s)
	ctx := context.Background()
	if _, err := env.client.UpdateEmailServer(ctx, s.Scope, apiclient.StandardEmailServer(apiclient.SMTP{Host: "smtp.example.com", Port: 587,
		Username: "mailer", Password: "smtp-password", SenderEmail: "noreply@example.com", SenderName: "Example"})); err != nil {
		t.Fatal(err)
	}
	for _, id := range []neonapi.NeonAuthOauthProviderID{"github", "google"} {
		if _, err := env.client.AddOAuthProvider(ctx, s.Scope, apiclient.AddOAuthProviderRequest{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	var svc *Service
	// readAll reads the three parts, each checked by want when given.
	readAll := func(want map[string]func(any) bool) {
		t.Helper()
		for part, read := range map[string]func() (any, error){
			apiclient.PartEmailProvider:  func() (any, error) { return svc.EmailServer(ctx, s) },
			apiclient.PartOAuthProviders: func() (any, error) { return svc.OAuthProviders(ctx, s) },
			apiclient.PartAllowLocalhost: func() (any, error) { return svc.AllowLocalhost(ctx, s) },
		} {
			got, err := read()
			if err != nil {
				t.Fatalf("reading %s: %v", part, err)
			}
			if ok := want[part]; ok != nil && !ok(got) {
				t.Errorf("%s after its write: %+v", part, got)
			}
		}
	}
	for _, w := range []struct {
		part  string
		write func() error
		shows func(any) bool // what the part's reader must show after the write
	}{
		{apiclient.PartEmailProvider, func() error { return svc.UpdateEmailServer(ctx, s, apiclient.SharedEmailServer()) },
			func(v any) bool { e, ok := v.(apiclient.EmailServer); return ok && e.Type == "shared" }},
		{apiclient.PartOAuthProviders, func() error {
			return svc.DeleteOAuthProvider(ctx, s, "google")
		}, func(v any) bool { ps, _ := v.([]apiclient.OAuthProvider); return len(ps) == 1 && ps[0].ID == "github" }},
		{apiclient.PartAllowLocalhost, func() error {
			_, err := svc.SetIntegrationSettings(ctx, s, IntegrationSettings{AllowLocalhost: apiclient.Ptr(true)})
			return err
		}, func(v any) bool { on, _ := v.(bool); return on }},
	} {
		svc = env.service(apiclient.FamilyBranch, time.Hour)
		env.emu.ResetStats()
		readAll(nil)
		if n := env.emu.Stats().Total; n != 1 || env.routeCount(pluginsRoute) != 1 {
			t.Fatalf("three parts of the bundle read with %d requests %v, want one GET …/auth/plugins", n, env.emu.Stats().Requests)
		}
		env.emu.ResetStats()
		if err := w.write(); err != nil {
			t.Fatalf("writing %s: %v", w.part, err)
		}
		readAll(map[string]func(any) bool{w.part: w.shows})
		own := "GET /projects/{project_id}/branches/{branch_id}/auth/" + w.part
		if n := env.emu.Stats().Total; n != 2 || env.routeCount(own) != 1 {
			t.Errorf("after writing %s: %d requests %v, want the write and one %s", w.part, n, env.emu.Stats().Requests, own)
		}
	}
}

// In branch mode an OAuth provider added is put into the OAuth providers
// held, as the API answered it: the create of another, which looks for its
// own among them first, is served them without a request, and sees the
// first. In project mode, whose list shows less than the answer, they are
// read anew.
func TestSharedReads_anOAuthProviderAddedJoinsTheListHeld(t *testing.T) {
	for _, f := range []apiclient.Family{apiclient.FamilyBranch, apiclient.FamilyProject} {
		t.Run(f.String(), func(t *testing.T) {
			env := newTestEnv(t, nil)
			s := env.production(f, apiclient.AuthProviderBetterAuth)
			if f == apiclient.FamilyProject {
				s = projectScope(env)
			}
			env.enable(s)
			ctx := context.Background()
			svc := env.service(f, time.Hour)
			if _, err := svc.OAuthProviders(ctx, s); err != nil {
				t.Fatal(err)
			}
			env.emu.ResetStats()
			if _, err := svc.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "github"}); err != nil {
				t.Fatal(err)
			}
			ps, err := svc.OAuthProviders(ctx, s)
			if err != nil || len(ps) != 1 || ps[0].ID != "github" {
				t.Fatalf("after the add: %+v, %v; want github", ps, err)
			}
			want := 1 // the add
			if f == apiclient.FamilyProject {
				want = 2 // and the list read anew
			}
			if n := env.emu.Stats().Total; n != want {
				t.Errorf("the add and the read after it took %d requests %v, want %d", n, env.emu.Stats().Requests, want)
			}
		})
	}
}

// A 409 to enabling Neon Auth changes nothing, so what was read stays, but
// it proves that Neon Auth is there: a held read that shows no integration
// predates it and is read anew; one that shows the integration is kept.
func TestSharedReads_aConflictingEnableForgetsOnlyAnAbsentIntegration(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	s := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	svc := env.service(apiclient.FamilyBranch, time.Hour)
	if it, err := svc.Integration(ctx, s); err != nil || it != nil {
		t.Fatalf("before Neon Auth: %+v, %v", it, err)
	}
	env.enable(s) // by someone else, behind the held read
	for _, want := range []int{1, 0} {
		env.emu.ResetStats()
		if _, err := svc.CreateIntegration(ctx, s, "", ""); !errors.Is(err, apiclient.ErrConflict) {
			t.Fatalf("enabling Neon Auth again: %v, want a conflict", err)
		}
		it, err := svc.Integration(ctx, s)
		if err != nil || it == nil {
			t.Fatalf("after the conflict: %+v, %v, want the integration", it, err)
		}
		if n := env.routeCount(integrationRoute); n != want {
			t.Errorf("after the conflict %d reads of the integration, want %d", n, want)
		}
	}
}

// A list that was in flight when a write happened is never served to a
// reader that comes after the write: that reader fetches anew.
func TestSharedReads_inFlightListIsNotServedAfterAWrite(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	var once sync.Once
	env := newTestEnv(t, func(next http.Handler) http.Handler {
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
	s := projectScope(env)
	env.enable(s)
	svc := env.service(apiclient.FamilyProject, time.Hour)
	ctx := context.Background()

	stale := make(chan []apiclient.Domain, 1)
	go func() {
		list, _ := svc.Domains(ctx, s)
		stale <- list
	}()
	<-started
	if _, err := svc.AddDomain(ctx, s, "https://new.example.com"); err != nil {
		t.Fatal(err)
	}
	fresh, err := svc.Domains(ctx, s)
	close(release)
	if err != nil || len(fresh) != 1 {
		t.Fatalf("read after the write: %v, %v; want the new domain", fresh, err)
	}
	if old := <-stale; len(old) != 0 {
		t.Fatalf("the in-flight reader saw %v; it started before the write", old)
	}
	// The stale result did not replace the fresh one in the cache.
	if again, _ := svc.Domains(ctx, s); len(again) != 1 {
		t.Fatalf("a later read got %v from the cache; want the list fetched after the write", again)
	}
}

// A cached list never outlives its bound.
func TestSharedReads_entriesExpire(t *testing.T) {
	env := newTestEnv(t, nil)
	s := projectScope(env)
	env.enable(s)
	svc := env.service(apiclient.FamilyProject, time.Hour)
	now := time.Now()
	svc.reads.domains.now = func() time.Time { return now }
	ctx := context.Background()
	env.emu.ResetStats()
	_, _ = svc.Domains(ctx, s)
	now = now.Add(59 * time.Minute)
	_, _ = svc.Domains(ctx, s)
	if n := env.routeCount(listDomainsRoute); n != 1 {
		t.Fatalf("within the bound: %d requests, want 1", n)
	}
	now = now.Add(2 * time.Minute)
	_, _ = svc.Domains(ctx, s)
	if n := env.routeCount(listDomainsRoute); n != 2 {
		t.Fatalf("past the bound: %d requests, want 2", n)
	}
}

// Errors are shared with the readers already waiting, never kept.
func TestSharedReads_errorsAreNotCached(t *testing.T) {
	env := newTestEnv(t, nil) // no integration yet: the domain list is a 404
	s := projectScope(env)
	svc := env.service(apiclient.FamilyProject, time.Hour)
	ctx := context.Background()
	if _, err := svc.Domains(ctx, s); err == nil {
		t.Fatal("listing domains without an integration succeeded")
	}
	env.enable(s)
	if _, err := svc.Domains(ctx, s); err != nil {
		t.Fatalf("the earlier error was served from the cache: %v", err)
	}
}
