package provider

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// A configuration that still sets allowed_attempts fails at plan, on that
// line, saying Neon removed it, and writes nothing.
func TestAccAuthPhoneNumberPlugin_allowedAttemptsIsRemoved(t *testing.T) {
	env := newBranchEnv(t)
	env.enableAuth()
	p, sent := env.counted()
	cli := env.cli(p, nil)
	cli.write("main.tf", requiredProviders+env.providerBlock()+
		env.resource("neon_auth_phone_number_plugin", "this", "enabled          = true", "allowed_attempts = 3"))
	cli.must(0, "init")
	code, out := cli.run("plan", "-input=false")
	flat := strings.Join(strings.Fields(out), " ")
	if code != 1 || !strings.Contains(flat, "allowed_attempts") || !strings.Contains(flat, "Neon removed `allowed_attempts`") ||
		!strings.Contains(flat, "Delete the `allowed_attempts` line") {
		t.Errorf("plan with allowed_attempts exited %d:\n%s", code, out)
	}
	if n := sent.writes.Load(); n != 0 {
		t.Errorf("%d writes were sent", n)
	}
}

// Only GET …/auth answering 404 means "Neon Auth not enabled". The endpoint
// the settings are read from answering 404 while Neon Auth is there (as a
// path Neon moved does) is reported, and the state is kept: never read as
// "the settings are gone", which would plan to create them again and again.
// That endpoint is the bundle (GET …/auth/plugins), or the plugin's own
// GET …/auth/plugins/phone-number when the bundle does not carry it.
func TestAccAuthPhoneNumberPlugin_ownNotFoundIsNotAbsence(t *testing.T) {
	const (
		healthy = iota
		bundleMoved
		ownMoved // the bundle lacks phone_number, and the plugin's own path moved
	)
	var fault atomic.Int32
	notFound := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"code":"","message":"not found","request_id":"moved-path"}`))
	}
	env := newEmulatorEnv(t, "it answers 404 from a path that still exists", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f := fault.Load()
			switch {
			case r.Method != http.MethodGet || f == healthy:
			case f == bundleMoved && strings.HasSuffix(r.URL.Path, "/auth/plugins"):
				notFound(w)
				return
			case f == ownMoved && strings.HasSuffix(r.URL.Path, "/auth/plugins/phone-number"):
				notFound(w)
				return
			case f == ownMoved && strings.HasSuffix(r.URL.Path, "/auth/plugins"):
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, r)
				var bundle map[string]json.RawMessage
				if err := json.Unmarshal(rec.Body.Bytes(), &bundle); err != nil {
					t.Errorf("decoding the bundle: %v", err)
				}
				delete(bundle, "phone_number")
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(bundle)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	env.Mode = authAPIBranch
	env.enableAuth()
	cfg := env.config(env.resource("neon_auth_phone_number_plugin", "test", "enabled = true"))
	movedStep := func(f int32) resource.TestStep {
		return resource.TestStep{
			PreConfig:   func() { fault.Store(f) },
			Config:      cfg,
			ExpectError: matchInOrder("Unable to Read Auth Phone Number Plugin", "HTTP 404", "Neon Auth is enabled on the", "not the settings' absence"),
		}
	}
	resource.ParallelTest(t, env.testCase(
		resource.TestStep{Config: cfg},
		movedStep(bundleMoved),
		movedStep(ownMoved),
		resource.TestStep{
			PreConfig:        func() { fault.Store(healthy) },
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
	))
}
