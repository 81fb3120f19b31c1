package emulator

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestCreateIntegrationReturnsCredentials(t *testing.T) {
	v := newEnv(t, Options{})
	r := v.do("POST", "/projects/auth/create", v.createBody(v.project))
	wantStatus(t, r, http.StatusCreated)
	var c neonapi.NeonAuthCreateIntegrationResponse
	r.Decode(&c)
	if c.AuthProvider != "stack" || !uuidPattern.MatchString(c.AuthProviderProjectID) ||
		!strings.HasPrefix(c.PubClientKey, "pck_") || !strings.HasPrefix(c.SecretServerKey, "ssk_") ||
		c.SchemaName != "neon_auth" || c.TableName != "users_sync" ||
		c.JWKSURL != "https://api.stack-auth.com/api/v1/projects/"+c.AuthProviderProjectID+"/.well-known/jwks.json" {
		t.Errorf("credentials = %+v", c)
	}
	got := v.e.Integrations(v.project)
	if len(got) != 1 || got[0].PubClientKey != c.PubClientKey || got[0].SecretServerKey != c.SecretServerKey ||
		got[0].BranchID != v.branch || got[0].DBName != "neondb" || got[0].OwnedBy != "neon" {
		t.Errorf("Integrations = %+v", got)
	}
}

// withField is body b with field k set to val, or removed when val is nil.
func withField(b map[string]any, k string, val any) map[string]any {
	if val == nil {
		delete(b, k)
	} else {
		b[k] = val
	}
	return b
}

func TestCreateIntegrationValidation(t *testing.T) {
	v := newEnv(t, Options{})
	dev, _ := v.e.AddBranch(v.project, "dev")
	with := func(k string, val any) map[string]any { return withField(v.createBody(v.project), k, val) }
	cases := []struct {
		name   string
		body   any
		status int
		prefix string
	}{
		{"unsupported provider", with("auth_provider", "auth0"), 400, "auth_provider: "},
		{"missing provider", with("auth_provider", nil), 400, "auth_provider: is required"},
		{"missing project", with("project_id", nil), 400, "project_id: is required"},
		{"missing branch", with("branch_id", nil), 400, "branch_id: is required"},
		{"foreign branch", with("branch_id", "br-nope"), 400, "branch_id: "},
		{"non-default branch", with("branch_id", dev), 400, "branch_id: "},
		{"empty database", with("database_name", ""), 400, "database_name: must not be empty"},
		{"unknown database", with("database_name", "other"), 400, "database_name: "},
		{"empty role", with("role_name", ""), 400, "role_name: must not be empty"},
		{"unknown role", with("role_name", "nobody"), 400, "role_name: "},
		{"wrong type", with("project_id", 42), 400, "project_id: value must be a string"},
		{"unknown field", with("colour", "red"), 400, `request body: property "colour" is unsupported`},
		{"unknown project", with("project_id", "no-such-project"), 404, "project not found"},
		{"malformed JSON", `{"auth_provider":`, 400, ""},
		{"not an object", `[1,2]`, 400, ""},
		{"empty body", "", 400, "request body is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, v.do("POST", "/projects/auth/create", tc.body), tc.status, tc.prefix)
		})
	}
	if n := len(v.e.Integrations(v.project)); n != 0 {
		t.Errorf("%d integrations were created by invalid requests", n)
	}
}

func TestCreateIntegrationDefaultsDatabaseAndRole(t *testing.T) {
	v := newEnv(t, Options{})
	body := map[string]any{"auth_provider": "stack", "project_id": v.project, "branch_id": v.branch}
	wantStatus(t, v.do("POST", "/projects/auth/create", body), http.StatusCreated)
	got := v.e.Integrations(v.project)
	if len(got) != 1 || got[0].DBName != "neondb" || got[0].RoleName != "neondb_owner" {
		t.Errorf("Integrations = %+v, want database neondb owned by neondb_owner", got)
	}
}

func TestCreateIntegrationTwiceConflicts(t *testing.T) {
	v := newEnv(t, Options{})
	v.integrate()
	r := v.do("POST", "/projects/auth/create", v.createBody(v.project))
	wantError(t, r, http.StatusConflict, "")
	if want := "integration with auth provider stack already exists for project " + v.project; r.Message() != want {
		t.Errorf("message = %q, want %q", r.Message(), want)
	}
	t.Run("whatever the provider: a branch has one Neon Auth", func(t *testing.T) {
		b := v.createBody(v.project)
		b["auth_provider"] = "better_auth"
		wantError(t, v.do("POST", "/projects/auth/create", b), http.StatusConflict, "Neon Auth is already enabled for project "+v.project)
	})
}

func TestListIntegrations(t *testing.T) {
	v := newEnv(t, Options{})
	t.Run("empty is an empty array", func(t *testing.T) {
		r := v.do("GET", "/projects/"+v.project+"/auth/integrations", nil)
		wantStatus(t, r, http.StatusOK)
		wantJSON(t, "body", r.Body, `{"data":[]}`)
	})
	creds := v.integrate()
	t.Run("lists the active integration", func(t *testing.T) {
		var out struct{ Data []map[string]any }
		v.do("GET", "/projects/"+v.project+"/auth/integrations", nil).Decode(&out)
		if len(out.Data) != 1 {
			t.Fatalf("data = %v", out.Data)
		}
		in := out.Data[0]
		want := map[string]any{
			"auth_provider": "stack", "auth_provider_project_id": creds["auth_provider_project_id"],
			"branch_id": v.branch, "db_name": "neondb", "owned_by": "neon", "jwks_url": creds["jwks_url"],
		}
		for k, w := range want {
			if in[k] != w {
				t.Errorf("%s = %#v, want %#v", k, in[k], w)
			}
		}
		if _, err := time.Parse(time.RFC3339, digString(t, in, "created_at")); err != nil {
			t.Errorf("created_at: %v", err)
		}
		for _, secret := range []string{"pub_client_key", "secret_server_key"} {
			if _, ok := in[secret]; ok {
				t.Errorf("list shows %s", secret)
			}
		}
	})
}

func TestGenerateSDKKeysMintsANewPairEachCall(t *testing.T) {
	v := newEnv(t, Options{})
	body := map[string]any{"project_id": v.project, "auth_provider": "stack"}
	wantError(t, v.do("POST", "/projects/auth/keys", body), http.StatusNotFound, "integration with auth provider stack not found")
	first := v.integrate()
	seen := map[any]bool{first["pub_client_key"]: true, first["secret_server_key"]: true}
	for i := 0; i < 3; i++ {
		r := v.do("POST", "/projects/auth/keys", body)
		wantStatus(t, r, http.StatusCreated)
		c := r.JSON()
		for _, k := range []string{"pub_client_key", "secret_server_key"} {
			if seen[c[k]] {
				t.Errorf("%s %v was handed out before", k, c[k])
			}
			seen[c[k]] = true
		}
		if c["auth_provider_project_id"] != first["auth_provider_project_id"] {
			t.Error("auth_provider_project_id changed")
		}
		if in := v.e.Integrations(v.project)[0]; in.SecretServerKey != c["secret_server_key"] {
			t.Error("Integrations does not hold the latest keys")
		}
	}
	wantError(t, v.do("POST", "/projects/auth/keys", map[string]any{"project_id": v.project}), http.StatusBadRequest, "auth_provider: is required")
	wantError(t, v.do("POST", "/projects/auth/keys", map[string]any{"auth_provider": "stack"}), http.StatusBadRequest, "project_id: is required")
}

func TestDeleteIntegrationRemovesEverythingItOwns(t *testing.T) {
	v := newEnv(t, Options{})
	path := "/projects/" + v.project + "/auth/integration/stack"
	wantError(t, v.do("DELETE", path, nil), http.StatusNotFound, "integration with auth provider stack not found")
	v.integrate()
	wantStatus(t, v.do("POST", "/projects/"+v.project+"/auth/oauth_providers", map[string]any{"id": "google"}), http.StatusOK)
	wantStatus(t, v.do("POST", "/projects/"+v.project+"/auth/domains", map[string]any{"domain": "https://a.example.com", "auth_provider": "stack"}), http.StatusCreated)
	wantStatus(t, v.do("POST", "/projects/auth/user", map[string]any{"project_id": v.project, "auth_provider": "stack", "email": "a@example.com"}), http.StatusCreated)
	wantStatus(t, v.do("POST", "/projects/auth/transfer_ownership", map[string]any{"project_id": v.project, "auth_provider": "stack"}), http.StatusOK)

	r := v.do("DELETE", path, map[string]any{"delete_data": true})
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, "body", r.Body, "{}")
	if len(v.e.Integrations(v.project)) != 0 {
		t.Error("integration still active")
	}
	wantError(t, v.do("DELETE", path, nil), http.StatusNotFound, "integration with auth provider stack not found")
	wantError(t, v.do("DELETE", "/projects/"+v.project+"/auth/integration/auth0", nil), http.StatusBadRequest, "auth_provider: ")
	wantError(t, v.do("DELETE", path, map[string]any{"delete_data": "yes"}), http.StatusBadRequest, "delete_data: value must be a boolean")

	// A new integration starts from scratch.
	v.integrate()
	var providers struct{ Providers []any }
	v.do("GET", "/projects/"+v.project+"/auth/oauth_providers", nil).Decode(&providers)
	var domains struct{ Domains []any }
	v.do("GET", "/projects/"+v.project+"/auth/domains", nil).Decode(&domains)
	if len(providers.Providers) != 0 || len(domains.Domains) != 0 || len(v.e.UsersSync(v.project)) != 0 {
		t.Errorf("leftovers: providers %v, domains %v, users %v", providers, domains, v.e.UsersSync(v.project))
	}
	if err := v.e.ConfirmTransfer(v.project, "stack"); err == nil {
		t.Error("the pending transfer survived the deletion")
	}
	wantJSON(t, "email server", v.do("GET", "/projects/"+v.project+"/auth/email_server", nil).Body, `{"type":"shared"}`)
}

func TestEndpointsNeedAnActiveIntegration(t *testing.T) {
	v := newEnv(t, Options{})
	p := "/projects/" + v.project
	cases := []struct {
		method, path string
		body         any
	}{
		{"POST", "/projects/auth/user", map[string]any{"project_id": v.project, "auth_provider": "stack", "email": "a@example.com"}},
		{"DELETE", p + "/auth/users/u1", nil},
		{"POST", "/projects/auth/transfer_ownership", map[string]any{"project_id": v.project, "auth_provider": "stack"}},
		{"GET", p + "/auth/oauth_providers", nil},
		{"POST", p + "/auth/oauth_providers", map[string]any{"id": "google"}},
		{"PATCH", p + "/auth/oauth_providers/google", map[string]any{"client_id": "a", "client_secret": "b"}},
		{"DELETE", p + "/auth/oauth_providers/google", nil},
		{"GET", p + "/auth/domains", nil},
		{"POST", p + "/auth/domains", map[string]any{"domain": "https://a.example.com", "auth_provider": "stack"}},
		{"DELETE", p + "/auth/domains", map[string]any{"auth_provider": "stack", "domains": []any{}}},
		{"GET", p + "/auth/email_server", nil},
		{"PATCH", p + "/auth/email_server", map[string]any{"type": "shared"}},
	}
	for _, tc := range cases {
		want := "no auth integration found for project " + v.project
		if b, ok := tc.body.(map[string]any); ok && b["auth_provider"] != nil {
			want = "integration with auth provider stack not found for project " + v.project
		}
		wantError(t, v.do(tc.method, tc.path, tc.body), http.StatusNotFound, want)
	}
}

func TestUsers(t *testing.T) {
	v := newEnv(t, Options{})
	v.integrate()
	user := func(fields map[string]any) map[string]any {
		b := map[string]any{"project_id": v.project, "auth_provider": "stack"}
		for k, val := range fields {
			b[k] = val
		}
		return b
	}

	r := v.do("POST", "/projects/auth/user", user(map[string]any{"email": "ada@example.com", "name": "Ada"}))
	wantStatus(t, r, http.StatusCreated)
	id, _ := r.JSON()["id"].(string)
	if !uuidPattern.MatchString(id) {
		t.Fatalf("id = %q", id)
	}
	rows := v.e.UsersSync(v.project)
	if len(rows) != 1 || rows[0].ID != id || rows[0].Email != "ada@example.com" || rows[0].Name != "Ada" || rows[0].CreatedAt.IsZero() {
		t.Errorf("users_sync = %+v", rows)
	}
	wantStatus(t, v.do("POST", "/projects/auth/user", user(map[string]any{"email": "nameless@example.com"})), http.StatusCreated)

	t.Run("validation", func(t *testing.T) {
		cases := []struct {
			name   string
			fields map[string]any
			prefix string
		}{
			{"missing email", map[string]any{}, "email: is required"},
			{"not an address", map[string]any{"email": "ada"}, "email: "},
			{"display name", map[string]any{"email": "Ada <ada2@example.com>"}, "email: "},
			{"empty name", map[string]any{"email": "b@example.com", "name": ""}, "name: "},
			{"long name", map[string]any{"email": "b@example.com", "name": strings.Repeat("x", 256)}, "name: "},
			{"bad provider", map[string]any{"email": "b@example.com", "auth_provider": "auth0"}, "auth_provider: "},
		}
		for _, tc := range cases {
			wantError(t, v.do("POST", "/projects/auth/user", user(tc.fields)), http.StatusBadRequest, tc.prefix)
		}
		wantStatus(t, v.do("POST", "/projects/auth/user", user(map[string]any{"email": "c@example.com", "name": strings.Repeat("é", 255)})), http.StatusCreated)
	})
	t.Run("another provider than the integration's is not found", func(t *testing.T) {
		wantError(t, v.do("POST", "/projects/auth/user", user(map[string]any{"email": "d@example.com", "auth_provider": "better_auth"})),
			http.StatusNotFound, "integration with auth provider better_auth not found for project "+v.project)
	})
	t.Run("duplicate email conflicts", func(t *testing.T) {
		wantError(t, v.do("POST", "/projects/auth/user", user(map[string]any{"email": "ADA@example.com"})), http.StatusConflict, "")
	})
	t.Run("delete", func(t *testing.T) {
		r := v.do("DELETE", "/projects/"+v.project+"/auth/users/"+id, nil)
		wantStatus(t, r, http.StatusNoContent)
		wantNoBody(t, r)
		for _, row := range v.e.UsersSync(v.project) {
			if row.ID == id {
				t.Error("user still in users_sync")
			}
		}
		wantError(t, v.do("DELETE", "/projects/"+v.project+"/auth/users/"+id, nil), http.StatusNotFound, "user not found")
	})
}

func TestTransferOwnership(t *testing.T) {
	v := newEnv(t, Options{})
	v.integrate()
	if err := v.e.ConfirmTransfer(v.project, "stack"); err == nil {
		t.Fatal("confirm without a request succeeded")
	}
	r := v.do("POST", "/projects/auth/transfer_ownership", map[string]any{"project_id": v.project, "auth_provider": "stack"})
	wantStatus(t, r, http.StatusOK)
	url, _ := r.JSON()["url"].(string)
	if !regexp.MustCompile(`^https://app\.stack-auth\.com/integrations/neon/projects/transfer/confirm\?code=[0-9a-f]+$`).MatchString(url) {
		t.Errorf("url = %q", url)
	}
	if in := v.e.Integrations(v.project)[0]; in.OwnedBy != "neon" {
		t.Errorf("owned_by before confirmation = %q", in.OwnedBy)
	}
	if err := v.e.ConfirmTransfer(v.project, "stack"); err != nil {
		t.Fatal(err)
	}
	var out struct{ Data []map[string]any }
	v.do("GET", "/projects/"+v.project+"/auth/integrations", nil).Decode(&out)
	if out.Data[0]["owned_by"] != "user" {
		t.Errorf("owned_by after confirmation = %v", out.Data[0]["owned_by"])
	}
	if err := v.e.ConfirmTransfer(v.project, "stack"); err == nil {
		t.Error("a second confirmation without a new request succeeded")
	}
}
