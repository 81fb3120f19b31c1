package neonauth

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// handoverEnv is a branch whose whitelist holds the domains given, and a
// Service of one provider process.
func handoverEnv(t *testing.T, wrap func(http.Handler) http.Handler, domains ...string) (*testEnv, *Service, Scope) {
	t.Helper()
	env := newTestEnv(t, wrap)
	s := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	env.enable(s)
	for _, d := range domains {
		if _, err := env.client.AddDomain(context.Background(), s.Scope, apiclient.AddDomainRequest{Domain: d,
			AuthProvider: neonapi.NeonAuthSupportedAuthProvider(s.AuthProvider)}); err != nil {
			t.Fatal(err)
		}
	}
	return env, env.service(apiclient.FamilyBranch, time.Hour), s
}

// listed is the scope's whitelist as the API lists it, sorted.
func (e *testEnv) listed(s Scope) []string {
	e.t.Helper()
	ds, err := e.client.ListDomains(context.Background(), s.Scope)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, d := range ds {
		out = append(out, d.Domain)
	}
	slices.Sort(out)
	return out
}

const (
	handedApp = "https://app.example.com"
	handedWWW = "https://www.example.com"
)

// When the new holder's create comes first, the old holder's delete that
// follows leaves the domain it holds in the whitelist, and sends nothing
// when it holds them all.
func TestHandover_aDeleteLeavesWhatTheOtherHolderHolds(t *testing.T) {
	for _, h := range []Holder{EachDomain, WholeList} {
		env, svc, s := handoverEnv(t, nil, handedApp, handedWWW)
		ctx := context.Background()
		if removed, err := svc.HoldDomains(ctx, s, h, []string{handedApp}); err != nil || len(removed) != 0 {
			t.Fatalf("holder %d: HoldDomains = %q, %v; want nothing removed before it", h, removed, err)
		}
		var err error
		if h == EachDomain {
			err = svc.DeleteDomains(ctx, s, []string{handedApp, handedWWW}) // the whole list's destroy
		} else {
			err = svc.DeleteDomain(ctx, s, handedApp) // a neon_auth_domain's destroy
		}
		if err != nil {
			t.Fatal(err)
		}
		want := []string{handedApp}
		if h == WholeList {
			want = []string{handedApp, handedWWW}
		}
		if got := env.listed(s); !slices.Equal(got, want) {
			t.Errorf("holder %d: the whitelist is %q after the other holder's delete, want %q", h, got, want)
		}
	}
}

// When the old holder's delete comes first, the new holder's create finds
// what it removed: the branch held it when the apply began.
func TestHandover_aCreateFindsWhatTheOtherHolderRemovedBeforeIt(t *testing.T) {
	env, svc, s := handoverEnv(t, nil, handedApp, handedWWW)
	ctx := context.Background()
	if err := svc.DeleteDomains(ctx, s, []string{handedApp, handedWWW}); err != nil {
		t.Fatal(err)
	}
	if got := env.listed(s); len(got) != 0 {
		t.Fatalf("the whole list's destroy left %q", got)
	}
	removed, err := svc.HoldDomains(ctx, s, EachDomain, []string{handedApp})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{handedApp, handedWWW}; !slices.Equal(removed, want) {
		t.Errorf("HoldDomains answers %q as removed by the whole list, want %q", removed, want)
	}
	// Removals by the holder's own kind are its own business: a
	// neon_auth_domain replaced removes its domain before its new create.
	removed, err = svc.HoldDomains(ctx, s, WholeList, nil)
	if err != nil || len(removed) != 0 {
		t.Errorf("HoldDomains of the whole list = %q, %v; no neon_auth_domain removed anything", removed, err)
	}
}

// heldDeletes stands in front of the emulator and holds every delete of
// domains until release is closed; arrived is closed when the first one
// reaches it.
func heldDeletes() (wrap func(http.Handler) http.Handler, arrived, release chan struct{}) {
	arrived, release = make(chan struct{}), make(chan struct{})
	var once sync.Once
	wrap = func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/auth/domains") {
				once.Do(func() { close(arrived) })
				<-release
			}
			next.ServeHTTP(w, r)
		})
	}
	return wrap, arrived, release
}

// A create that holds a domain a delete is removing right now waits for
// that delete's answer, so that its own add lands after it.
func TestHandover_aCreateWaitsForTheDeleteUnderWay(t *testing.T) {
	hold, arrived, release := heldDeletes()
	env, svc, s := handoverEnv(t, hold, handedApp)
	ctx := context.Background()
	deleted := make(chan error, 1)
	go func() { deleted <- svc.DeleteDomains(ctx, s, []string{handedApp}) }()
	<-arrived
	held := make(chan []string, 1)
	go func() {
		removed, err := svc.HoldDomains(ctx, s, EachDomain, []string{handedApp})
		if err != nil {
			t.Error(err)
		}
		held <- removed
	}()
	select {
	case <-held:
		close(release)
		t.Fatal("HoldDomains returned while the delete of its domain was still under way")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	if removed := <-held; !slices.Equal(removed, []string{handedApp}) {
		t.Errorf("HoldDomains answers %q, want the domain the delete removed", removed)
	}
	if got := env.listed(s); len(got) != 0 {
		t.Errorf("the whitelist is %q; the delete held before the claim removes the domain", got)
	}
}

// A create that may not take over what it finds (inherited_auth =
// "refuse") holds nothing, but waits as well for a delete of its domain
// under way: it finds the domain that delete removed, whichever of the two
// Terraform started first, and refuses it.
func TestHandover_aRefusingCreateWaitsForTheDeleteUnderWay(t *testing.T) {
	hold, arrived, release := heldDeletes()
	env, _, s := handoverEnv(t, hold, handedApp)
	svc := New(env.client, Options{Family: apiclient.FamilyBranch, ReadMaxAge: time.Hour, RefuseInherited: true})
	ctx := context.Background()
	deleted := make(chan error, 1)
	go func() { deleted <- svc.DeleteDomains(ctx, s, []string{handedApp}) }()
	<-arrived
	found := make(chan bool, 1)
	go func() {
		removed, err := svc.RemovedDomain(ctx, s, handedApp)
		if err != nil {
			t.Error(err)
		}
		found <- removed
	}()
	select {
	case <-found:
		close(release)
		t.Fatal("RemovedDomain returned while the delete of its domain was still under way")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	if !<-found {
		t.Error("RemovedDomain answers false; want the domain the delete removed found")
	}
	if got := env.listed(s); len(got) != 0 {
		t.Errorf("the whitelist is %q; a refusing create holds nothing, so the delete removes the domain", got)
	}
}
