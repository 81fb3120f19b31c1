package emulator

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const unauthorizedMsg = "authorization failed: API key missing, invalid or revoked"

func TestRequestsWithoutAValidKeyAreRejectedWith401(t *testing.T) {
	v := newEnv(t, Options{})
	cases := []struct {
		name   string
		header string
	}{
		{"no Authorization header", ""},
		{"unknown key", "Bearer not-a-key"},
		{"empty bearer token", "Bearer "},
		{"other scheme", "Basic " + v.key},
		{"bare token", v.key},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "http://emulator/api/v2/projects", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			rec := httptest.NewRecorder()
			v.e.ServeHTTP(rec, req)
			r := &response{t: t, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
			wantError(t, r, http.StatusUnauthorized, unauthorizedMsg)
			if r.Message() != unauthorizedMsg {
				t.Errorf("message = %q", r.Message())
			}
		})
	}
}

func TestUnknownRoutesNeedAuthenticationToo(t *testing.T) {
	v := newEnv(t, Options{})
	wantError(t, v.call("", "GET", "/nope", nil), http.StatusUnauthorized, unauthorizedMsg)
	wantError(t, v.do("GET", "/nope", nil), http.StatusNotFound, "not found")
}

func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	v := newEnv(t, Options{})
	req := httptest.NewRequest(http.MethodGet, "http://emulator/api/v2/projects", nil)
	req.Header.Set("Authorization", "bearer "+v.key)
	rec := httptest.NewRecorder()
	v.e.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d", rec.Code)
	}
}

func TestRevokedKeyFailsOnTheVeryNextRequest(t *testing.T) {
	v := newEnv(t, Options{})
	for _, kind := range []KeyKind{KeyPersonal, KeyOrganization, KeyProject} {
		t.Run(string(kind), func(t *testing.T) {
			project := ""
			if kind == KeyProject {
				project = v.project
			}
			key, err := v.e.CreateKey(kind, project)
			if err != nil {
				t.Fatal(err)
			}
			wantStatus(t, v.call(key, "GET", "/projects", nil), http.StatusOK)
			if err := v.e.RevokeKey(key); err != nil {
				t.Fatal(err)
			}
			wantError(t, v.call(key, "GET", "/projects", nil), http.StatusUnauthorized, unauthorizedMsg)
			// Permanent: revoking again changes nothing, the key stays dead.
			_ = v.e.RevokeKey(key)
			wantError(t, v.call(key, "GET", "/projects", nil), http.StatusUnauthorized, unauthorizedMsg)
		})
	}
}

func TestRevokingTheBootstrapKeyIsPermanentEvenIfPassedAgain(t *testing.T) {
	dir := t.TempDir()
	opts := Options{BootstrapKey: "boot-key", StateFile: dir + "/state.json"}
	v := newEnv(t, opts)
	if err := v.e.RevokeKey("boot-key"); err != nil {
		t.Fatal(err)
	}
	v2 := newEnv(t, opts)
	wantError(t, v2.call("boot-key", "GET", "/projects", nil), http.StatusUnauthorized, unauthorizedMsg)
}

func TestCreateKeyValidatesItsArguments(t *testing.T) {
	v := newEnv(t, Options{})
	if _, err := v.e.CreateKey(KeyProject, "no-such-project"); !errors.Is(err, ErrNotFound) {
		t.Errorf("project key for missing project: err = %v, want ErrNotFound", err)
	}
	if _, err := v.e.CreateKey("admin", ""); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown kind: err = %v, want ErrInvalid", err)
	}
	if _, err := v.e.CreateKey(KeyOrganization, v.project); !errors.Is(err, ErrInvalid) {
		t.Errorf("org key with project: err = %v, want ErrInvalid", err)
	}
	if err := v.e.RevokeKey("unknown"); !errors.Is(err, ErrNotFound) {
		t.Errorf("revoke unknown: err = %v, want ErrNotFound", err)
	}
}

func TestPersonalAndOrganizationKeysSeeAllProjects(t *testing.T) {
	v := newEnv(t, Options{SeedProjects: 3})
	org, _ := v.e.CreateKey(KeyOrganization, "")
	for _, key := range []string{v.key, org} {
		var out struct{ Projects []Project }
		v.call(key, "GET", "/projects", nil).Decode(&out)
		if len(out.Projects) != 3 {
			t.Errorf("listed %d projects, want 3", len(out.Projects))
		}
	}
}

// projectScopedEndpoints are all the endpoints naming a project (path or body).
func projectScopedEndpoints(v *env, project string) []struct {
	method, path string
	body         any
} {
	branch, _ := v.e.DefaultBranchID(project)
	return []struct {
		method, path string
		body         any
	}{
		{"GET", "/projects/" + project, nil},
		{"GET", "/projects/" + project + "/branches", nil},
		{"GET", "/projects/" + project + "/branches/" + branch, nil},
		{"POST", "/projects/auth/create", v.createBody(project)},
		{"GET", "/projects/" + project + "/auth/integrations", nil},
		{"POST", "/projects/auth/keys", map[string]any{"project_id": project, "auth_provider": "stack"}},
		{"POST", "/projects/auth/user", map[string]any{"project_id": project, "auth_provider": "stack", "email": "x@example.com"}},
		{"DELETE", "/projects/" + project + "/auth/users/some-user", nil},
		{"POST", "/projects/auth/transfer_ownership", map[string]any{"project_id": project, "auth_provider": "stack"}},
		{"GET", "/projects/" + project + "/auth/oauth_providers", nil},
		{"POST", "/projects/" + project + "/auth/oauth_providers", map[string]any{"id": "github"}},
		{"PATCH", "/projects/" + project + "/auth/oauth_providers/google", map[string]any{"client_id": "a", "client_secret": "b"}},
		{"DELETE", "/projects/" + project + "/auth/oauth_providers/google", nil},
		{"GET", "/projects/" + project + "/auth/domains", nil},
		{"POST", "/projects/" + project + "/auth/domains", map[string]any{"domain": "https://x.example.com", "auth_provider": "stack"}},
		{"DELETE", "/projects/" + project + "/auth/domains", map[string]any{"auth_provider": "stack", "domains": []any{map[string]any{"domain": "https://example.com"}}}},
		{"GET", "/projects/" + project + "/auth/email_server", nil},
		{"PATCH", "/projects/" + project + "/auth/email_server", map[string]any{"type": "shared"}},
		{"DELETE", "/projects/" + project + "/auth/integration/stack", nil},
	}
}

func TestProjectScopedKeySeesOnlyItsProject(t *testing.T) {
	v := newEnv(t, Options{SeedProjects: 2})
	ids := v.e.ProjectIDs()
	own, other := ids[0], ids[1]
	key, err := v.e.CreateKey(KeyProject, own)
	if err != nil {
		t.Fatal(err)
	}
	// Both projects have an integration, so any difference comes from the key.
	wantStatus(t, v.do("POST", "/projects/auth/create", v.createBody(own)), http.StatusCreated)
	wantStatus(t, v.do("POST", "/projects/auth/create", v.createBody(other)), http.StatusCreated)

	t.Run("another project is not found on every endpoint", func(t *testing.T) {
		for _, ep := range projectScopedEndpoints(v, other) {
			r := v.call(key, ep.method, ep.path, ep.body)
			if r.Status != http.StatusNotFound || r.Message() != "project not found" {
				t.Errorf("%s %s: status %d %s, want 404 project not found", ep.method, ep.path, r.Status, r.Body)
			}
		}
		if len(v.e.Integrations(other)) != 1 {
			t.Error("the other project's integration was touched")
		}
	})
	t.Run("a missing project looks the same", func(t *testing.T) {
		wantError(t, v.call(key, "GET", "/projects/no-such-project/auth/integrations", nil), http.StatusNotFound, "project not found")
	})
	t.Run("its own project works", func(t *testing.T) {
		wantStatus(t, v.call(key, "GET", "/projects/"+own+"/auth/integrations", nil), http.StatusOK)
		wantStatus(t, v.call(key, "POST", "/projects/"+own+"/auth/domains",
			map[string]any{"domain": "https://app.example.com", "auth_provider": "stack"}), http.StatusCreated)
		wantStatus(t, v.call(key, "POST", "/projects/auth/keys",
			map[string]any{"project_id": own, "auth_provider": "stack"}), http.StatusCreated)
	})
	t.Run("the project list holds only its project", func(t *testing.T) {
		var out struct{ Projects []Project }
		v.call(key, "GET", "/projects", nil).Decode(&out)
		if len(out.Projects) != 1 || out.Projects[0].ID != own {
			t.Errorf("projects = %+v, want only %s", out.Projects, own)
		}
	})
	t.Run("it cannot create or delete projects", func(t *testing.T) {
		wantError(t, v.call(key, "POST", "/projects", map[string]any{"project": map[string]any{"name": "x"}}), http.StatusForbidden, "")
		wantError(t, v.call(key, "DELETE", "/projects/"+own, nil), http.StatusForbidden, "")
		wantError(t, v.call(key, "DELETE", "/projects/"+other, nil), http.StatusForbidden, "")
		if len(v.e.ProjectIDs()) != 2 {
			t.Error("a project was created or deleted")
		}
	})
	t.Run("it stops working when its project is deleted", func(t *testing.T) {
		wantStatus(t, v.do("DELETE", "/projects/"+own, nil), http.StatusOK)
		wantError(t, v.call(key, "GET", "/projects", nil), http.StatusUnauthorized, unauthorizedMsg)
	})
}

func TestEveryResponseCarriesARequestID(t *testing.T) {
	v := newEnv(t, Options{})
	t.Run("generated", func(t *testing.T) {
		r := v.do("GET", "/projects", nil)
		if r.Header.Get("X-Request-Id") == "" {
			t.Error("no X-Request-Id")
		}
	})
	t.Run("honoured", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "http://emulator/api/v2/projects/nope", nil)
		req.Header.Set("Authorization", "Bearer "+v.key)
		req.Header.Set("X-Request-ID", "my-request-42")
		rec := httptest.NewRecorder()
		v.e.ServeHTTP(rec, req)
		if got := rec.Header().Get("X-Request-Id"); got != "my-request-42" {
			t.Errorf("X-Request-Id = %q", got)
		}
		if !strings.Contains(rec.Body.String(), `"request_id":"my-request-42"`) {
			t.Errorf("body = %s", rec.Body)
		}
	})
}
