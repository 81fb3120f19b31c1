package neonauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

const addDomainRoute = "POST /projects/{project_id}/branches/{branch_id}/auth/domains"

// inFlight stands in front of the emulator and records the most domain adds
// it held at once; each add is held until hold has passed, so that adds sent
// together meet there.
type inFlight struct {
	hold      time.Duration
	now, most atomic.Int32
}

func (f *inFlight) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/auth/domains") {
			next.ServeHTTP(w, r)
			return
		}
		n := f.now.Add(1)
		for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
		}
		time.Sleep(f.hold)
		f.now.Add(-1)
		next.ServeHTTP(w, r)
	})
}

func domainsOf(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("https://%s%d.example.com", prefix, i)
	}
	return out
}

// A whitelist's adds go together, as many at once as one route's documented
// burst and no more, and each is added; the whitelist read before them is
// forgotten.
func TestAddDomains_sendsTheAddsTogetherWithinARoutesBurst(t *testing.T) {
	f := &inFlight{hold: 50 * time.Millisecond}
	env := newTestEnv(t, f.wrap)
	s := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	env.enable(s)
	svc := env.service(apiclient.FamilyBranch, time.Hour)
	ctx := context.Background()
	if _, err := svc.Domains(ctx, s); err != nil {
		t.Fatal(err)
	}
	domains := domainsOf(apiclient.DefaultRouteRequestsPerSecond+20, "app")
	for i, err := range svc.AddDomains(ctx, s, domains) {
		if err != nil {
			t.Errorf("%s: %v", domains[i], err)
		}
	}
	if most := int(f.most.Load()); most < 2 || most > apiclient.DefaultRouteRequestsPerSecond {
		t.Errorf("%d adds in flight at once, want them together (2 or more) and at most a route's burst (%d)", most,
			apiclient.DefaultRouteRequestsPerSecond)
	}
	listed, err := svc.Domains(ctx, s)
	if err != nil || len(listed) != len(domains) {
		t.Fatalf("the whitelist after the adds: %d domains, %v; want %d (a fresh read)", len(listed), err, len(domains))
	}
}

// Each domain gets its own outcome: one already listed answers 409 and is
// named, the others are added.
func TestAddDomains_eachDomainHasItsOutcome(t *testing.T) {
	env := newTestEnv(t, nil)
	s := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	env.enable(s)
	ctx := context.Background()
	const taken = "https://taken.example.com"
	if _, err := env.client.AddDomain(ctx, s.Scope, apiclient.AddDomainRequest{Domain: taken, AuthProvider: "better_auth"}); err != nil {
		t.Fatal(err)
	}
	// The domain already listed goes first, followed by twice a route's
	// burst: its 409 is its own outcome, and the adds that wait for a slot
	// after it are sent all the same.
	domains := append([]string{taken}, domainsOf(2*apiclient.DefaultRouteRequestsPerSecond, "app")...)
	errs := env.service(apiclient.FamilyBranch, time.Hour).AddDomains(ctx, s, domains)
	for i, err := range errs {
		switch want := domains[i] == taken; {
		case want && !errors.Is(err, apiclient.ErrConflict):
			t.Errorf("%s: %v, want the 409 of a domain already listed", domains[i], err)
		case !want && err != nil:
			t.Errorf("%s: %v, want it added", domains[i], err)
		}
	}
}

// When adds fail (here Neon Auth is not enabled, so each answers 404), those
// not sent yet are not sent: at most a route's burst of requests is in
// flight when the first failure comes back (how many depends on how soon it
// does), each of them fails, and the others say they were left unsent.
func TestAddDomains_afterAFailureTheRestAreNotSent(t *testing.T) {
	env := newTestEnv(t, nil)
	s := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	const beyond = 15
	domains := domainsOf(apiclient.DefaultRouteRequestsPerSecond+beyond, "app")
	var failed, unsent int
	for i, err := range env.service(apiclient.FamilyBranch, time.Hour).AddDomains(context.Background(), s, domains) {
		switch {
		case errors.Is(err, ErrNotSent):
			unsent++
		case errors.Is(err, apiclient.ErrNotFound):
			failed++
		default:
			t.Errorf("%s: %v, want a 404 or not sent", domains[i], err)
		}
	}
	sent := env.routeCount(addDomainRoute)
	if failed < 1 || failed > apiclient.DefaultRouteRequestsPerSecond || sent != failed || unsent < beyond {
		t.Errorf("%d failed (%d requests), %d not sent; want 1 to %d sent and failed, the rest (at least %d) not sent",
			failed, sent, unsent, apiclient.DefaultRouteRequestsPerSecond, beyond)
	}
}
