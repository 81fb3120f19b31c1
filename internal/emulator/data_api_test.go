package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The Data API of a branch's database: one per database, found by GET and
// absent with a 404, with the settings Neon reports, and branched with the
// database.

// dataAPIOf reads the Data API of a database through the API.
func (v *env) dataAPIOf(branch, database string) (neonapi.DataAPIReponse, int) {
	v.t.Helper()
	r := v.do("GET", "/projects/"+v.project+"/branches/"+branch+"/data-api/"+database, nil)
	var out neonapi.DataAPIReponse
	if r.Status == http.StatusOK {
		r.Decode(&out)
	}
	return out, r.Status
}

func TestDataAPIIsOnePerDatabaseAndReadsBackWithTheReportedDefaults(t *testing.T) {
	v := newEnv(t, Options{DataAPIBootTime: -1})
	api := "/projects/" + v.project + "/branches/" + v.branch + "/data-api/neondb"
	if _, status := v.dataAPIOf(v.branch, "neondb"); status != http.StatusNotFound {
		t.Fatalf("GET before any create = %d, want 404", status)
	}
	created := v.do("POST", api, map[string]any{"auth_provider": "external", "jwks_url": "https://www.googleapis.com/oauth2/v3/certs",
		"provider_name": "Google"})
	wantStatus(t, created, http.StatusCreated)
	url := digString(t, created.JSON(), "url")
	ep := digString(t, v.do("GET", "/projects/"+v.project+"/branches/"+v.branch+"/endpoints", nil).JSON(), "endpoints", 0, "id")
	if !strings.HasPrefix(url, "https://"+ep+".apirest.") || !strings.HasSuffix(url, "/neondb/rest/v1") {
		t.Errorf("url %s: want the host of the branch's endpoint %s and the path /neondb/rest/v1", url, ep)
	}
	wantStatus(t, v.do("POST", api, nil), http.StatusConflict)

	got, _ := v.dataAPIOf(v.branch, "neondb")
	raw, _ := json.Marshal(got)
	want := `{"available_schemas":["auth","public"],"settings":{"db_aggregates_enabled":true,"db_anon_role":"anonymous",` +
		`"db_schemas":["public"],"jwt_role_claim_key":".role"},"status":"active","url":"` + url + `"}`
	if string(raw) != want {
		t.Errorf("GET after create:\n got %s\nwant %s", raw, want)
	}
}

// PATCH with settings replaces the whole of them: what it leaves out goes
// back to its default; PATCH without settings only refreshes the schema
// cache.
func TestDataAPIPatchReplacesEverySetting(t *testing.T) {
	v := newEnv(t, Options{DataAPIBootTime: -1})
	api := "/projects/" + v.project + "/branches/" + v.branch + "/data-api/neondb"
	wantStatus(t, v.do("POST", api, map[string]any{"settings": map[string]any{"db_max_rows": 100, "db_schemas": []string{"api"}}}), http.StatusCreated)
	wantStatus(t, v.do("PATCH", api, map[string]any{"settings": map[string]any{"server_timing_enabled": true}}), http.StatusCreated)
	got, _ := v.dataAPIOf(v.branch, "neondb")
	s := got.Settings
	if s.DBMaxRows != nil || (*s.DBSchemas)[0] != "public" || s.ServerTimingEnabled == nil || !*s.ServerTimingEnabled {
		t.Errorf("after PATCH {server_timing_enabled}: db_max_rows %v, db_schemas %v, server_timing_enabled %v; want unset, [public], true",
			s.DBMaxRows, *s.DBSchemas, s.ServerTimingEnabled)
	}
	wantStatus(t, v.do("PATCH", api, nil), http.StatusCreated)
	if again, _ := v.dataAPIOf(v.branch, "neondb"); *again.Settings.ServerTimingEnabled != true {
		t.Error("a PATCH without settings changed them")
	}
}

func TestDataAPIRefusesWhatDoesNotGoTogether(t *testing.T) {
	v := newEnv(t, Options{DataAPIBootTime: -1})
	api := "/projects/" + v.project + "/branches/" + v.branch + "/data-api/neondb"
	for _, c := range []struct {
		name   string
		body   map[string]any
		status int
		field  string
	}{
		{"neon_auth without Neon Auth", map[string]any{"auth_provider": "neon_auth"}, http.StatusBadRequest, "Neon Auth is not enabled"},
		{"external without a JWKS URL", map[string]any{"auth_provider": "external", "provider_name": "Clerk"}, http.StatusBadRequest, "jwks_url"},
		{"a JWKS URL without external", map[string]any{"jwks_url": "https://example.com/jwks.json"}, http.StatusBadRequest, "jwks_url"},
		{"an unknown OpenAPI mode", map[string]any{"settings": map[string]any{"openapi_mode": "on"}}, http.StatusBadRequest, "openapi_mode"},
		{"no rows", map[string]any{"settings": map[string]any{"db_max_rows": 0}}, http.StatusBadRequest, "db_max_rows"},
		{"a schema twice", map[string]any{"settings": map[string]any{"db_schemas": []string{"a", "a"}}}, http.StatusBadRequest, "db_schemas"},
	} {
		r := v.do("POST", api, c.body)
		if r.Status != c.status || !strings.Contains(r.Message(), c.field) {
			t.Errorf("%s: %d %q, want %d naming %s", c.name, r.Status, r.Message(), c.status, c.field)
		}
	}
	if _, status := v.dataAPIOf(v.branch, "neondb"); status != http.StatusNotFound {
		t.Errorf("a refused create left a Data API (GET = %d)", status)
	}
	r := v.do("POST", "/projects/"+v.project+"/branches/"+v.branch+"/data-api/nope", nil)
	if r.Status != http.StatusNotFound || !strings.Contains(r.Message(), "database nope") {
		t.Errorf("a database that does not exist: %d %q, want 404 naming it", r.Status, r.Message())
	}
}

// A new Data API reports provisioning while it boots, then active.
func TestDataAPIStatusBecomesActive(t *testing.T) {
	v := newEnv(t, Options{DataAPIBootTime: 1500 * time.Millisecond})
	wantStatus(t, v.do("POST", "/projects/"+v.project+"/branches/"+v.branch+"/data-api/neondb", nil), http.StatusCreated)
	if got, _ := v.dataAPIOf(v.branch, "neondb"); got.Status != dataAPIProvisioning {
		t.Errorf("right after create: status %q, want %q", got.Status, dataAPIProvisioning)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, _ := v.dataAPIOf(v.branch, "neondb")
		if got.Status == dataAPIActive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("status still %q after 10s", got.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A branch made from a parent starts with the Data API of each of the
// parent's databases, with the same settings, serving at once on its own
// host; the copy is independent. A schema-only branch starts without.
func TestDataAPIBranchesWithTheDatabase(t *testing.T) {
	v := newEnv(t, Options{DataAPIBootTime: time.Hour})
	api := func(branch string) string {
		return "/projects/" + v.project + "/branches/" + branch + "/data-api/neondb"
	}
	wantStatus(t, v.do("POST", api(v.branch), map[string]any{"settings": map[string]any{"db_schemas": []string{"public", "api"}}}), http.StatusCreated)
	child := digString(t, v.do("POST", "/projects/"+v.project+"/branches", map[string]any{"branch": map[string]any{"name": "preview"},
		"endpoints": []any{map[string]any{"type": "read_write"}}}).JSON(), "branch", "id")
	parent, _ := v.dataAPIOf(v.branch, "neondb")
	copied, status := v.dataAPIOf(child, "neondb")
	switch {
	case status != http.StatusOK:
		t.Fatalf("the child's Data API: GET = %d, want 200", status)
	case copied.URL == parent.URL:
		t.Errorf("the child serves at its parent's URL %s", copied.URL)
	case copied.Status != dataAPIActive:
		t.Errorf("the child's copy reports %q, want %q", copied.Status, dataAPIActive)
	case strings.Join(*copied.Settings.DBSchemas, ",") != "public,api":
		t.Errorf("the child's db_schemas %v, want the parent's", *copied.Settings.DBSchemas)
	}
	wantStatus(t, v.do("DELETE", api(child), nil), http.StatusOK)
	if _, status := v.dataAPIOf(v.branch, "neondb"); status != http.StatusOK {
		t.Errorf("deleting the child's copy took the parent's (GET = %d)", status)
	}
	schemaOnly := digString(t, v.do("POST", "/projects/"+v.project+"/branches", map[string]any{"branch": map[string]any{"name": "schema",
		"init_source": "schema-only"}}).JSON(), "branch", "id")
	if _, status := v.dataAPIOf(schemaOnly, "neondb"); status != http.StatusNotFound {
		t.Errorf("a schema-only branch: GET = %d, want 404", status)
	}
}

// Deleting a database deletes its Data API; renaming it moves it.
func TestDataAPIFollowsItsDatabase(t *testing.T) {
	v := newEnv(t, Options{DataAPIBootTime: -1})
	br := "/projects/" + v.project + "/branches/" + v.branch
	wantStatus(t, v.do("POST", br+"/databases", map[string]any{"database": map[string]any{"name": "shop", "owner_name": "neondb_owner"}}), http.StatusCreated)
	wantStatus(t, v.do("POST", br+"/data-api/shop", nil), http.StatusCreated)
	wantStatus(t, v.do("PATCH", br+"/databases/shop", map[string]any{"database": map[string]any{"name": "store"}}), http.StatusOK)
	if _, status := v.dataAPIOf(v.branch, "store"); status != http.StatusOK {
		t.Errorf("after renaming the database: GET …/data-api/store = %d, want 200", status)
	}
	wantStatus(t, v.do("DELETE", br+"/databases/store", nil), http.StatusOK)
	wantStatus(t, v.do("POST", br+"/databases", map[string]any{"database": map[string]any{"name": "store", "owner_name": "neondb_owner"}}), http.StatusCreated)
	if _, status := v.dataAPIOf(v.branch, "store"); status != http.StatusNotFound {
		t.Errorf("a database made again after its delete: GET = %d, want 404 (the Data API went with the old one)", status)
	}
}
