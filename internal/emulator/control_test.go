package emulator

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestControlKeys(t *testing.T) {
	v := newEnv(t, Options{})
	r := v.control("POST", "/keys", map[string]any{"type": "project", "project_id": v.project})
	wantStatus(t, r, http.StatusCreated)
	key, _ := r.JSON()["key"].(string)
	if key == "" {
		t.Fatalf("body = %s", r.Body)
	}
	wantStatus(t, v.call(key, "GET", "/projects/"+v.project, nil), http.StatusOK)

	wantStatus(t, v.control("POST", "/keys/revoke", map[string]any{"key": key}), http.StatusNoContent)
	wantStatus(t, v.call(key, "GET", "/projects", nil), http.StatusUnauthorized)

	wantError(t, v.control("POST", "/keys", map[string]any{"type": "root"}), http.StatusBadRequest, "")
	wantError(t, v.control("POST", "/keys", map[string]any{"type": "project", "project_id": "nope"}), http.StatusNotFound, "")
	wantError(t, v.control("POST", "/keys/revoke", map[string]any{"key": "nope"}), http.StatusNotFound, "")
	wantError(t, v.control("POST", "/keys", map[string]any{"kind": "project"}), http.StatusBadRequest, "invalid JSON body")
}

func TestControlProjectsAndTransfer(t *testing.T) {
	v := newEnv(t, Options{})
	r := v.control("POST", "/projects", map[string]any{"name": "from control"})
	wantStatus(t, r, http.StatusCreated)
	var p Project
	r.Decode(&p)
	if p.Name != "from control" || len(v.e.ProjectIDs()) != 2 {
		t.Errorf("project = %+v", p)
	}

	v.integrate()
	body := map[string]any{"project_id": v.project, "auth_provider": "stack"}
	wantError(t, v.control("POST", "/transfer/confirm", body), http.StatusBadRequest, "")
	wantStatus(t, v.do("POST", "/projects/auth/transfer_ownership", body), http.StatusOK)
	wantStatus(t, v.control("POST", "/transfer/confirm", body), http.StatusNoContent)
	if in := v.e.Integrations(v.project)[0]; in.OwnedBy != "user" {
		t.Errorf("owned_by = %q", in.OwnedBy)
	}
}

func TestControlFaultsAcceptDurationStringsOrMilliseconds(t *testing.T) {
	v := newEnv(t, Options{})
	r := v.control("PUT", "/faults", map[string]any{
		"rate": 0.25, "statuses": []int{503}, "retry_after": "2s", "latency": 5, "routes": []string{"GET /projects"}, "seed": 3,
	})
	wantStatus(t, r, http.StatusOK)
	f := v.e.CurrentFaults()
	if f.Rate != 0.25 || f.RetryAfter != 2*time.Second || f.Latency != 5*time.Millisecond || f.Seed != 3 ||
		len(f.Statuses) != 1 || len(f.Routes) != 1 {
		t.Errorf("faults = %+v", f)
	}
	if got := r.JSON()["latency"]; got != "5ms" {
		t.Errorf("echoed latency = %v", got)
	}
	wantStatus(t, v.control("GET", "/faults", nil), http.StatusOK)
	wantError(t, v.control("PUT", "/faults", map[string]any{"rate": 2}), http.StatusBadRequest, "")
	wantError(t, v.control("PUT", "/faults", map[string]any{"latency": "soon"}), http.StatusBadRequest, "")
	wantStatus(t, v.control("PUT", "/faults", map[string]any{}), http.StatusOK)
	if f := v.e.CurrentFaults(); f.Rate != 0 || f.Latency != 0 {
		t.Errorf("PUT {} did not clear faults: %+v", f)
	}
}

func TestControlStats(t *testing.T) {
	v := newEnv(t, Options{})
	v.do("GET", "/projects", nil)
	r := v.control("GET", "/stats", nil)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(string(r.Body), `"requests":{"GET /projects":{"200":1}}`) || !strings.Contains(string(r.Body), `"total":1`) {
		t.Errorf("stats = %s", r.Body)
	}
	wantStatus(t, v.control("POST", "/stats/reset", nil), http.StatusNoContent)
	if v.e.Stats().Total != 0 {
		t.Error("not reset")
	}
}

func TestControlStateDumpMasksSecrets(t *testing.T) {
	v := newEnv(t, Options{BootstrapKey: "admin-token-xyz"})
	creds := v.integrate()
	p := "/projects/" + v.project
	wantStatus(t, v.do("POST", p+"/auth/oauth_providers", map[string]any{"id": "github", "client_id": "gh-client", "client_secret": "gh-secret-value"}), http.StatusOK)
	wantStatus(t, v.do("PATCH", p+"/auth/email_server", map[string]any{
		"type": "standard", "host": "smtp.example.com", "port": 465, "username": "u",
		"password": "smtp-password-value", "sender_email": "a@example.com", "sender_name": "A",
	}), http.StatusOK)

	r := v.control("GET", "/state", nil)
	wantStatus(t, r, http.StatusOK)
	dump := string(r.Body)
	for _, secret := range []string{"admin-token-xyz", "gh-secret-value", "smtp-password-value", digString(t, creds, "secret_server_key"), digString(t, creds, "pub_client_key")} {
		if strings.Contains(dump, secret) {
			t.Errorf("state dump shows a secret %q", secret)
		}
	}
	for _, visible := range []string{v.project, "gh-client", "smtp.example.com", `"secret_server_key":"(set)"`, `"client_secret":"(set)"`, `"password":"(set)"`} {
		if !strings.Contains(dump, visible) {
			t.Errorf("state dump lacks %q", visible)
		}
	}
}

func TestControlUsersSyncAndHealth(t *testing.T) {
	v := newEnv(t, Options{BaseURL: "http://127.0.0.1:1/api/v2/"})
	v.integrate()
	wantStatus(t, v.do("POST", "/projects/auth/user", map[string]any{"project_id": v.project, "auth_provider": "stack", "email": "a@example.com", "name": "A"}), http.StatusCreated)
	r := v.control("GET", "/projects/"+v.project+"/users_sync", nil)
	wantStatus(t, r, http.StatusOK)
	var out struct{ Rows []UserRow }
	r.Decode(&out)
	if len(out.Rows) != 1 || out.Rows[0].Email != "a@example.com" || out.Rows[0].Name != "A" {
		t.Errorf("rows = %+v", out.Rows)
	}
	wantError(t, v.control("GET", "/projects/nope/users_sync", nil), http.StatusNotFound, "")
	h := v.control("GET", "/healthz", nil)
	wantStatus(t, h, http.StatusOK)
	if h.JSON()["status"] != "ok" || h.JSON()["base_url"] != "http://127.0.0.1:1/api/v2/" {
		t.Errorf("healthz = %s", h.Body)
	}
	wantError(t, v.control("GET", "/nope", nil), http.StatusNotFound, "")
	wantError(t, v.control("DELETE", "/stats", nil), http.StatusMethodNotAllowed, "")
}

func TestControlTokenGuardsTheControlSurface(t *testing.T) {
	const token = "control-token-value"
	v := newEnv(t, Options{ControlToken: token})
	send := func(authorization string) *response {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "http://emulator"+controlPrefix+"/stats", nil)
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		rec := httptest.NewRecorder()
		v.e.ServeHTTP(rec, req)
		return &response{t: t, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	}
	refused := map[string]string{
		"no Authorization header": "",
		"another token":           "Bearer " + token + "x",
		"a prefix of the token":   "Bearer " + token[:5],
		"the API key":             "Bearer " + v.key,
		"another scheme":          "Basic " + token,
		"the bare token":          token,
	}
	for name, header := range refused {
		t.Run(name, func(t *testing.T) {
			r := send(header)
			wantError(t, r, http.StatusUnauthorized, "authorization failed: the control surface needs the control token")
			if strings.Contains(string(r.Body), token) {
				t.Errorf("the refusal shows the token: %s", r.Body)
			}
		})
	}
	wantStatus(t, send("Bearer "+token), http.StatusOK)
	wantStatus(t, send("bearer "+token), http.StatusOK)
	t.Run("the API still wants an API key", func(t *testing.T) {
		wantStatus(t, v.do("GET", "/projects", nil), http.StatusOK)
		wantError(t, v.call(token, "GET", "/projects", nil), http.StatusUnauthorized, unauthorizedMsg)
	})
}
