package emulator

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// keyNames are the names of the keys a key list answered.
func keyNames(t *testing.T, r *response) []string {
	t.Helper()
	wantStatus(t, r, http.StatusOK)
	var items []map[string]any
	r.Decode(&items)
	var names []string
	for _, it := range items {
		if _, leaked := it["key"]; leaked {
			t.Errorf("a key list holds a token: %v", mapKeys(it))
		}
		names = append(names, digString(t, it, "name"))
	}
	return names
}

// A personal key makes, lists and revokes personal keys through /api_keys,
// as the official Neon provider's acceptance tests do (acc-apikey_test.go,
// acc_api_key_test.go); the reference (auth-api.md) says a revoked key fails
// with 401 on every later request, and the list no longer shows it.
func TestPersonalAPIKeysThroughTheAPI(t *testing.T) {
	v := newEnv(t, Options{})
	r := v.do("POST", "/api_keys", map[string]any{"key_name": "ci"})
	wantStatus(t, r, http.StatusOK)
	created := r.JSON()
	token := digString(t, created, "key")
	id := digNumber(t, created, "id")
	if created["name"] != "ci" || len(token) != 64 || digString(t, created, "created_by") == "" {
		t.Errorf("created = name %v, a token of %d characters, created_by %v", created["name"], len(token), created["created_by"])
	}
	wantStatus(t, v.call(token, "GET", "/projects", nil), http.StatusOK)
	if names := keyNames(t, v.do("GET", "/api_keys", nil)); !slices.Equal(names, []string{bootstrapKeyName, "ci"}) {
		t.Errorf("keys = %v, want the bootstrap key and ci", names)
	}
	// The new key may make keys of its own: it is the user's, as the first.
	other := v.call(token, "POST", "/api_keys", map[string]any{"key_name": "made-by-ci"})
	wantStatus(t, other, http.StatusOK)

	path := "/api_keys/" + digID(t, created, "id")
	r = v.do("DELETE", path, nil)
	wantStatus(t, r, http.StatusOK)
	if revoked := r.JSON(); revoked["revoked"] != true || revoked["name"] != "ci" || revoked["id"] != id {
		t.Errorf("revoked = %v", revoked)
	}
	for _, route := range []string{"/projects", "/api_keys", "/projects/" + v.project} {
		wantError(t, v.call(token, "GET", route, nil), http.StatusUnauthorized, unauthorizedMsg)
	}
	if names := keyNames(t, v.do("GET", "/api_keys", nil)); !slices.Equal(names, []string{bootstrapKeyName, "made-by-ci"}) {
		t.Errorf("keys after the revocation = %v", names)
	}
	wantError(t, v.do("DELETE", path, nil), http.StatusNotFound, "API key "+path[len("/api_keys/"):]+" not found")
	wantError(t, v.do("DELETE", "/api_keys/999", nil), http.StatusNotFound, "API key 999 not found")
	wantError(t, v.do("POST", "/api_keys", map[string]any{"key_name": ""}), http.StatusBadRequest, "key_name: must not be empty")
	wantError(t, v.do("POST", "/api_keys", map[string]any{}), http.StatusBadRequest, "")
}

// /api_keys holds the user's personal keys: an organization's key, admin
// level or scoped to a project, may not manage them (403).
func TestOnlyAPersonalKeyManagesPersonalKeys(t *testing.T) {
	v := newEnv(t, Options{})
	for _, kind := range []KeyKind{KeyOrganization, KeyProject} {
		project := ""
		if kind == KeyProject {
			project = v.project
		}
		token, err := v.e.CreateKey(kind, project)
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, v.call(token, "GET", "/api_keys", nil), http.StatusForbidden, "only a personal API key manages personal API keys")
		wantError(t, v.call(token, "POST", "/api_keys", map[string]any{"key_name": "x"}), http.StatusForbidden, "only a personal API key")
		wantError(t, v.call(token, "DELETE", "/api_keys/1", nil), http.StatusForbidden, "only a personal API key")
	}
	wantStatus(t, v.do("GET", "/projects", nil), http.StatusOK) // the bootstrap key was left alone
}

// An organization's keys: admin-level, or with project_id a key that sees
// that project only (the reference's OrgApiKeyCreateRequest: "If set, the API
// key can access only this project").
func TestOrganizationAPIKeysThroughTheAPI(t *testing.T) {
	v := newEnv(t, Options{SeedProjects: 2})
	own, other := v.e.ProjectIDs()[0], v.e.ProjectIDs()[1]
	org := "/organizations/" + digString(t, v.do("GET", "/projects/"+own, nil).JSON(), "project", "org_id") + "/api_keys"

	r := v.do("POST", org, map[string]any{"key_name": "scoped", "project_id": own})
	wantStatus(t, r, http.StatusOK)
	scoped := digString(t, r.JSON(), "key")
	scopedID := digID(t, r.JSON(), "id")
	if got := digString(t, r.JSON(), "project_id"); got != own {
		t.Errorf("project_id = %q, want %q", got, own)
	}
	projects := digArray(t, v.call(scoped, "GET", "/projects", nil).JSON(), "projects")
	if len(projects) != 1 || digString(t, projects[0], "id") != own {
		t.Errorf("the scoped key lists %v, want its project alone", projects)
	}
	wantError(t, v.call(scoped, "GET", "/projects/"+other, nil), http.StatusNotFound, "project not found")
	wantError(t, v.call(scoped, "GET", org, nil), http.StatusForbidden, "project-scoped API keys cannot manage the organization's API keys")

	r = v.do("POST", org, map[string]any{"key_name": "admin"})
	wantStatus(t, r, http.StatusOK)
	admin := digString(t, r.JSON(), "key")
	if _, scopedToOne := r.JSON()["project_id"]; scopedToOne {
		t.Errorf("an organization key without project_id answered %v", r.JSON())
	}
	if names := keyNames(t, v.call(admin, "GET", org, nil)); !slices.Equal(names, []string{"scoped", "admin"}) {
		t.Errorf("the organization's keys = %v", names)
	}
	r = v.call(admin, "DELETE", org+"/"+scopedID, nil)
	wantStatus(t, r, http.StatusOK)
	if got := r.JSON(); got["revoked"] != true || got["project_id"] != own {
		t.Errorf("revoked = %v", got)
	}
	wantError(t, v.call(scoped, "GET", "/projects/"+own, nil), http.StatusUnauthorized, unauthorizedMsg)
	wantError(t, v.do("DELETE", org+"/"+scopedID, nil), http.StatusNotFound, "API key "+scopedID+" not found")
	wantError(t, v.do("DELETE", org+"/1", nil), http.StatusNotFound, "API key 1 not found") // the bootstrap key is personal

	wantError(t, v.do("POST", org, map[string]any{"key_name": "x", "project_id": "no-such-project"}), http.StatusNotFound,
		"project_id: project no-such-project not found")
	wantError(t, v.do("GET", "/organizations/org-someone-else/api_keys", nil), http.StatusNotFound, "organization org-someone-else not found")
}

// Keys keep their ids and names over a restart; a state file written before
// keys had ids numbers them in the order they were made.
func TestAPIKeyIDsSurviveARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	v := newEnv(t, Options{StateFile: path})
	wantStatus(t, v.do("POST", "/api_keys", map[string]any{"key_name": "ci"}), http.StatusOK)
	_ = v.e.Close()
	w := newEnv(t, Options{StateFile: path, BootstrapKey: v.key})
	if names := keyNames(t, w.do("GET", "/api_keys", nil)); !slices.Equal(names, []string{bootstrapKeyName, "ci"}) {
		t.Errorf("after a restart the keys are %v", names)
	}
	wantStatus(t, w.do("DELETE", "/api_keys/2", nil), http.StatusOK)

	old := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(old, []byte(stateFileV1), 0o600); err != nil {
		t.Fatal(err)
	}
	u := newEnv(t, Options{StateFile: old})
	ids := map[float64]bool{}
	var items []map[string]any
	r := u.do("GET", "/api_keys", nil)
	r.Decode(&items)
	for _, it := range items {
		ids[digNumber(t, it, "id")] = true
	}
	if !ids[1] || !ids[2] || len(ids) != 2 {
		t.Errorf("the keys of a file without ids have ids %v, want 1 (the file's) and 2 (the bootstrap key)", ids)
	}
}
