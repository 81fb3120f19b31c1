package neonauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// testEnv is an emulator behind an OpenAPI validator (a test fails on any
// request or response that violates the reference), and a client of it.
type testEnv struct {
	t         *testing.T
	emu       *emulator.Emulator
	client    *apiclient.Client
	projectID string
	baseURL   string
}

// newTestEnv starts an emulator without rate limits; wrap, when set, stands
// in front of it (to hold or rewrite answers).
func newTestEnv(t *testing.T, wrap func(http.Handler) http.Handler) *testEnv {
	t.Helper()
	emu, err := emulator.New(emulator.Options{SeedProjects: 1, AccountRequestsPerMinute: -1, RouteRequestsPerSecond: -1})
	if err != nil {
		t.Fatalf("starting emulator: %v", err)
	}
	v, err := apispec.NewValidator(nil)
	if err != nil {
		t.Fatalf("loading the OpenAPI document: %v", err)
	}
	h := v.Middleware(emu)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = emu.Close()
		for _, violation := range v.Violations() {
			t.Errorf("OpenAPI violation: %s", violation)
		}
	})
	e := &testEnv{t: t, emu: emu, projectID: emu.ProjectIDs()[0], baseURL: srv.URL + "/api/v2/"}
	e.client = e.clientWithKey(emu.BootstrapKey())
	return e
}

// clientWithKey is a client of the env's emulator with another API key.
func (e *testEnv) clientWithKey(key string) *apiclient.Client {
	e.t.Helper()
	c, err := apiclient.New(apiclient.Options{BaseURL: e.baseURL, APIKey: key,
		RateLimit: apiclient.RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1}})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// service is a Service of the env's client in family f, sharing reads for
// maxAge.
func (e *testEnv) service(f apiclient.Family, maxAge time.Duration) *Service {
	return New(e.client, Options{Family: f, ReadMaxAge: maxAge})
}

// production is the scope of the production branch of the env's project in
// family f, for auth provider authProvider.
func (e *testEnv) production(f apiclient.Family, authProvider string) Scope {
	e.t.Helper()
	id, err := e.emu.DefaultBranchID(e.projectID)
	if err != nil {
		e.t.Fatal(err)
	}
	return Scope{Scope: apiclient.Scope{ProjectID: e.projectID, BranchID: id, Family: f}, AuthProvider: authProvider}
}

// enable enables Neon Auth on s behind the service's back.
func (e *testEnv) enable(s Scope) {
	e.t.Helper()
	if _, err := e.client.CreateIntegration(context.Background(), s.Scope,
		apiclient.CreateIntegrationRequest{AuthProvider: s.AuthProvider}); err != nil {
		e.t.Fatal(err)
	}
}

// routeCount is how many requests one route (as the emulator names it)
// received, whatever the status.
func (e *testEnv) routeCount(route string) int {
	n := 0
	for _, c := range e.emu.Stats().Requests[route] {
		n += c
	}
	return n
}
