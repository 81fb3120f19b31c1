package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestStatusFaultAnswersInsteadOfApplying(t *testing.T) {
	v := newEnv(t, Options{})
	v.e.SetFaults(Faults{Rate: 1, Statuses: []int{http.StatusServiceUnavailable}})
	r := v.do("POST", "/projects/auth/create", v.createBody(v.project))
	wantError(t, r, http.StatusServiceUnavailable, "")
	if got := r.Header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After = %q, want 1", got)
	}
	if n := len(v.e.Integrations(v.project)); n != 0 {
		t.Errorf("faulted request was applied: %d integrations", n)
	}
	st := v.e.Stats()
	if st.Faults != 1 || st.Requests["POST /projects/auth/create"][503] != 1 {
		t.Errorf("stats = %+v", st)
	}
}

func TestFaultsFollowTheirConfiguration(t *testing.T) {
	v := newEnv(t, Options{})
	t.Run("retry after is rounded up to whole seconds", func(t *testing.T) {
		v.e.SetFaults(Faults{Rate: 1, Statuses: []int{429}, RetryAfter: 1500 * time.Millisecond})
		if got := v.do("GET", "/projects", nil).Header.Get("Retry-After"); got != "2" {
			t.Errorf("Retry-After = %q, want 2", got)
		}
	})
	t.Run("500 has no retry after", func(t *testing.T) {
		v.e.SetFaults(Faults{Rate: 1, Statuses: []int{500}})
		r := v.do("GET", "/projects", nil)
		wantError(t, r, 500, "")
		if r.Header.Get("Retry-After") != "" {
			t.Error("Retry-After on 500")
		}
	})
	t.Run("default statuses", func(t *testing.T) {
		v.e.SetFaults(Faults{Rate: 1, Seed: 7})
		seen := map[int]bool{}
		for i := 0; i < 200; i++ {
			seen[v.do("GET", "/projects", nil).Status] = true
		}
		for _, s := range []int{500, 503, 423, 429} {
			if !seen[s] {
				t.Errorf("status %d never injected", s)
			}
		}
		if len(seen) != 4 {
			t.Errorf("statuses = %v", seen)
		}
	})
	t.Run("routes limit where faults apply", func(t *testing.T) {
		v.e.SetFaults(Faults{Rate: 1, Statuses: []int{500}, Routes: []string{"GET /projects/{project_id}/branches"}})
		wantStatus(t, v.do("GET", "/projects", nil), http.StatusOK)
		wantStatus(t, v.do("GET", "/projects/"+v.project+"/branches", nil), 500)
	})
	t.Run("the same seed gives the same sequence", func(t *testing.T) {
		run := func() []int {
			v.e.SetFaults(Faults{Rate: 0.5, Statuses: []int{500, 503}, Seed: 42})
			var out []int
			for i := 0; i < 30; i++ {
				out = append(out, v.do("GET", "/projects", nil).Status)
			}
			return out
		}
		a, b := run(), run()
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("sequences differ: %v vs %v", a, b)
			}
		}
	})
	t.Run("faults come after authentication", func(t *testing.T) {
		v.e.SetFaults(Faults{Rate: 1, Statuses: []int{500}})
		wantStatus(t, v.call("", "GET", "/projects", nil), http.StatusUnauthorized)
	})
	v.e.SetFaults(Faults{})
	wantStatus(t, v.do("GET", "/projects", nil), http.StatusOK)
}

func TestLostResponseIsAppliedButTheClientGetsATransportError(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	project := e.ProjectIDs()[0]
	branch, _ := e.DefaultBranchID(project)
	e.SetFaults(Faults{LostResponseRate: 1})

	post := func(path string, body any) (*http.Response, error) {
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v2"+path, bytes.NewReader(data))
		req.Header.Set("Authorization", "Bearer "+e.BootstrapKey())
		req.Header.Set("Content-Type", "application/json")
		return srv.Client().Do(req)
	}
	resp, err := post("/projects/auth/create", map[string]any{
		"auth_provider": "stack", "project_id": project, "branch_id": branch,
		"database_name": "neondb", "role_name": "neondb_owner",
	})
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got a response (%d), want a transport error", resp.StatusCode)
	}
	if n := len(e.Integrations(project)); n != 1 {
		t.Fatalf("lost request not applied: %d integrations", n)
	}
	if st := e.Stats(); st.Lost != 1 || st.Requests["POST /projects/auth/create"][201] != 1 {
		t.Errorf("stats = %+v", st)
	}

	// Reads are never lost.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v2/projects", nil)
	req.Header.Set("Authorization", "Bearer "+e.BootstrapKey())
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET status = %d", resp.StatusCode)
	}
}

func TestLatencyIsAddedToAPIRequests(t *testing.T) {
	v := newEnv(t, Options{})
	v.e.SetFaults(Faults{Latency: 30 * time.Millisecond})
	start := time.Now()
	wantStatus(t, v.do("GET", "/projects", nil), http.StatusOK)
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("took %v, want ≥ 30ms", d)
	}
}

func TestTheOptionsLatencyHoldsEveryAPIRequestAndFaultsAddToIt(t *testing.T) {
	v := newEnv(t, Options{Latency: 40 * time.Millisecond})
	start := time.Now()
	wantStatus(t, v.do("GET", "/projects", nil), http.StatusOK)
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("with Options.Latency 40ms a request took %v, want ≥ 40ms", d)
	}
	v.e.SetFaults(Faults{Latency: 30 * time.Millisecond})
	start = time.Now()
	wantStatus(t, v.do("GET", "/projects", nil), http.StatusOK)
	if d := time.Since(start); d < 70*time.Millisecond {
		t.Errorf("with 30ms of fault latency on top a request took %v, want ≥ 70ms", d)
	}
	v.e.SetFaults(Faults{})
	if got := v.e.CurrentFaults().Latency; got != 0 {
		t.Errorf("faults cleared, yet their latency is %v: Options.Latency must not show as a fault", got)
	}
}

func TestStatsCountByRouteAndStatus(t *testing.T) {
	v := newEnv(t, Options{})
	v.do("GET", "/projects", nil)
	v.do("GET", "/projects", nil)
	v.do("GET", "/projects/"+v.project+"/auth/domains", nil) // 404: no integration
	v.call("", "GET", "/projects", nil)
	v.do("GET", "/nowhere", nil)
	v.control("GET", "/healthz", nil)

	st := v.e.Stats()
	want := map[string]map[int]int{
		"GET /projects": {200: 2, 401: 1},
		"GET /projects/{project_id}/auth/domains": {404: 1},
		"unmatched": {404: 1},
	}
	if len(st.Requests) != len(want) {
		t.Errorf("routes = %v", st.Requests)
	}
	for route, byStatus := range want {
		for status, n := range byStatus {
			if st.Requests[route][status] != n {
				t.Errorf("%s %d = %d, want %d", route, status, st.Requests[route][status], n)
			}
		}
	}
	if st.Total != 5 {
		t.Errorf("Total = %d, want 5 (control requests are not counted)", st.Total)
	}
	// Stats is a copy.
	st.Requests["GET /projects"][200] = 99
	if v.e.Stats().Requests["GET /projects"][200] != 2 {
		t.Error("Stats shares its maps")
	}
	v.e.ResetStats()
	if st := v.e.Stats(); st.Total != 0 || len(st.Requests) != 0 {
		t.Errorf("after reset: %+v", st)
	}
}

// NoLossRoutes exempts writes from every unknown outcome — lost responses and
// 500, 502, 504 — but not from refusals.
func TestNoLossRoutesAreNeverLostButStillRefused(t *testing.T) {
	v := newEnv(t, Options{})
	v.integrate()
	const userRoute = "POST /projects/auth/user"
	v.e.SetFaults(Faults{LostResponseRate: 1, NoLossRoutes: []string{userRoute}})
	for i := range 5 {
		r := v.do("POST", "/projects/auth/user", map[string]any{
			"project_id": v.project, "auth_provider": "stack", "email": fmt.Sprintf("u%d@example.com", i)})
		wantStatus(t, r, http.StatusCreated)
	}
	v.e.SetFaults(Faults{Rate: 1, Statuses: []int{503}, NoLossRoutes: []string{userRoute}})
	r := v.do("POST", "/projects/auth/user", map[string]any{"project_id": v.project, "auth_provider": "stack", "email": "x@example.com"})
	wantStatus(t, r, http.StatusServiceUnavailable)
	if st := v.e.Stats(); st.Lost != 0 || st.Faults != 1 {
		t.Errorf("stats: lost %d, faults %d; want 0 and 1", st.Lost, st.Faults)
	}
	v.e.SetFaults(Faults{Rate: 1, Statuses: []int{500, 502, 504}, NoLossRoutes: []string{userRoute}})
	for i := range 5 {
		r := v.do("POST", "/projects/auth/user", map[string]any{
			"project_id": v.project, "auth_provider": "stack", "email": fmt.Sprintf("w%d@example.com", i)})
		wantStatus(t, r, http.StatusCreated)
	}
	// Other routes still get them.
	v.e.SetFaults(Faults{Rate: 1, Statuses: []int{500}, NoLossRoutes: []string{userRoute}})
	wantStatus(t, v.do("GET", "/projects/"+v.project+"/auth/domains", nil), http.StatusInternalServerError)
}
