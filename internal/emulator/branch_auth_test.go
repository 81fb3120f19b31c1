package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// branchAuthPath is the branch-scoped Neon Auth path of a branch.
func (v *env) branchAuthPath(branch string) string {
	return "/projects/" + v.project + "/branches/" + branch + "/auth"
}

// enableOn enables Neon Auth with provider on a branch through the branch
// family and returns the create response.
func (v *env) enableOn(branch, provider string) map[string]any {
	v.t.Helper()
	r := v.do("POST", v.branchAuthPath(branch), map[string]any{"auth_provider": provider})
	wantStatus(v.t, r, http.StatusCreated)
	return r.JSON()
}

func TestBothFamiliesServeTheProductionBranchsNeonAuth(t *testing.T) {
	v := newEnv(t, Options{})
	legacy := "/projects/" + v.project + "/auth"
	branch := v.branchAuthPath(v.branch)
	v.integrate()

	t.Run("written through the project-level endpoints, read through the branch", func(t *testing.T) {
		wantStatus(t, v.do("POST", legacy+"/domains", map[string]any{"domain": "https://app.example.com", "auth_provider": "stack"}), http.StatusCreated)
		wantStatus(t, v.do("POST", legacy+"/oauth_providers", map[string]any{"id": "github"}), http.StatusOK)
		wantStatus(t, v.do("POST", "/projects/auth/user", map[string]any{"project_id": v.project, "auth_provider": "stack", "email": "ada@example.com"}), http.StatusCreated)
		for _, path := range []string{"/domains", "/oauth_providers", "/email_provider"} {
			if got, want := string(v.do("GET", branch+path, nil).Body), string(v.do("GET", legacy+strings.Replace(path, "email_provider", "email_server", 1), nil).Body); got != want {
				t.Errorf("GET %s = %s, project-level read = %s", path, got, want)
			}
		}
		var integrations struct{ Data []map[string]any }
		v.do("GET", legacy+"/integrations", nil).Decode(&integrations)
		if got := v.do("GET", branch, nil).JSON(); len(integrations.Data) != 1 || got["auth_provider_project_id"] != integrations.Data[0]["auth_provider_project_id"] {
			t.Errorf("GET %s = %v, the project lists %v", branch, got, integrations.Data)
		}
	})
	t.Run("written through the branch, read through the project-level endpoints", func(t *testing.T) {
		wantStatus(t, v.do("DELETE", branch+"/domains", map[string]any{"auth_provider": "stack", "domains": []any{map[string]any{"domain": "https://app.example.com"}}}), http.StatusOK)
		wantStatus(t, v.do("PATCH", branch+"/email_provider", map[string]any{
			"type": "standard", "host": "smtp.example.com", "port": 587, "username": "u",
			"password": "pw", "sender_email": "a@example.com", "sender_name": "A",
		}), http.StatusOK)
		wantJSON(t, "domains", v.do("GET", legacy+"/domains", nil).Body, `{"domains":[]}`)
		if got, _ := v.e.EmailServer(v.project); got.Host != "smtp.example.com" || got.Password != "pw" {
			t.Errorf("email server = %+v", got)
		}
		r := v.do("DELETE", branch, nil)
		wantStatus(t, r, http.StatusOK)
		wantJSON(t, "integrations after disabling on the branch", v.do("GET", legacy+"/integrations", nil).Body, `{"data":[]}`)
	})
}

func TestEnableNeonAuthOnAnyBranch(t *testing.T) {
	v := newEnv(t, Options{})
	dev, _ := v.e.AddBranch(v.project, "dev")
	path := v.branchAuthPath(dev)

	wantError(t, v.do("GET", path, nil), http.StatusNotFound, "Neon Auth is not enabled on branch "+dev)
	creds := v.enableOn(dev, "better_auth")
	wantBase := "https://" + dev + ".neonauth.us-east-2.aws.neon.tech/neondb/auth"
	if creds["base_url"] != wantBase || creds["jwks_url"] != wantBase+"/.well-known/jwks.json" ||
		creds["pub_client_key"] != "" || creds["secret_server_key"] != "" || creds["auth_provider"] != "better_auth" {
		t.Errorf("create response = %v", creds)
	}
	got := v.do("GET", path, nil).JSON()
	want := map[string]any{
		"auth_provider": "better_auth", "branch_id": dev, "db_name": "neondb", "owned_by": "neon",
		"base_url": wantBase, "jwks_url": wantBase + "/.well-known/jwks.json", "name": "seed-project-1",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("GET %s: %s = %#v, want %#v", path, k, got[k], w)
		}
	}
	if _, ok := got["transfer_status"]; ok {
		t.Errorf("transfer_status shown before any transfer: %v", got)
	}
	if n := len(v.e.Integrations(v.project)); n != 0 {
		t.Errorf("the production branch has %d integrations, want none", n)
	}

	t.Run("conflicts and bad input", func(t *testing.T) {
		wantError(t, v.do("POST", path, map[string]any{"auth_provider": "better_auth"}), http.StatusConflict, "")
		wantError(t, v.do("POST", path, map[string]any{"auth_provider": "stack"}), http.StatusConflict, "Neon Auth is already enabled on branch "+dev)
		wantError(t, v.do("POST", path, map[string]any{}), http.StatusBadRequest, "auth_provider: is required")
		wantError(t, v.do("POST", path, map[string]any{"auth_provider": "stack", "project_id": v.project}), http.StatusBadRequest, `request body: property "project_id" is unsupported`)
		other := v.branchAuthPath(v.branch)
		wantError(t, v.do("POST", other, map[string]any{"auth_provider": "stack", "database_name": "nope"}), http.StatusBadRequest, "database_name: ")
		wantError(t, v.do("POST", "/projects/"+v.project+"/branches/br-nope/auth", map[string]any{"auth_provider": "stack"}), http.StatusNotFound, "branch not found")
		wantError(t, v.do("POST", "/projects/no-such-project/branches/"+dev+"/auth", map[string]any{"auth_provider": "stack"}), http.StatusNotFound, "project not found")
	})
	t.Run("Better Auth has no SDK keys and nothing to transfer", func(t *testing.T) {
		wantStatus(t, v.do("POST", v.branchAuthPath(v.branch), map[string]any{"auth_provider": "better_auth"}), http.StatusCreated)
		body := map[string]any{"project_id": v.project, "auth_provider": "better_auth"}
		wantError(t, v.do("POST", "/projects/auth/keys", body), http.StatusBadRequest, "auth_provider: better_auth integrations have no SDK keys")
		wantError(t, v.do("POST", "/projects/auth/transfer_ownership", body), http.StatusBadRequest, "auth_provider: ")
	})
	t.Run("disable drops everything", func(t *testing.T) {
		wantStatus(t, v.do("POST", path+"/users", map[string]any{"email": "a@example.com"}), http.StatusCreated)
		wantError(t, v.do("DELETE", path, map[string]any{"delete_data": "yes"}), http.StatusBadRequest, "delete_data: value must be a boolean")
		r := v.do("DELETE", path, map[string]any{"delete_data": true})
		wantStatus(t, r, http.StatusOK)
		if _, ok := v.e.BranchAuth(v.project, dev); ok {
			t.Error("Neon Auth still enabled")
		}
		wantError(t, v.do("DELETE", path, nil), http.StatusNotFound, "Neon Auth is not enabled")
		wantError(t, v.do("GET", path+"/domains", nil), http.StatusNotFound, "Neon Auth is not enabled")
	})
}

func TestProjectLevelCreateStillNeedsTheProductionBranch(t *testing.T) {
	v := newEnv(t, Options{})
	dev, _ := v.e.AddBranch(v.project, "dev")
	b := v.createBody(v.project)
	b["branch_id"] = dev
	wantError(t, v.do("POST", "/projects/auth/create", b), http.StatusBadRequest, "branch_id: ")
	b["branch_id"] = v.branch
	b["auth_provider"] = "better_auth"
	wantStatus(t, v.do("POST", "/projects/auth/create", b), http.StatusCreated)
	if a, _ := v.e.BranchAuth(v.project, v.branch); a.AuthProvider != "better_auth" || a.PubClientKey != "" {
		t.Errorf("production branch auth = %+v", a.Integration)
	}
}

func TestOAuthProvidersOnABranch(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	base := v.branchAuthPath(v.branch) + "/oauth_providers"

	r := v.do("POST", base, map[string]any{"id": "microsoft", "client_id": "cid", "client_secret": "cs", "microsoft_tenant_id": "tenant-1"})
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, "add response (the tenant id is never returned)", r.Body, `{"id":"microsoft","type":"standard","client_id":"cid","client_secret":"cs"}`)
	wantStatus(t, v.do("POST", base, map[string]any{"id": "vercel"}), http.StatusOK)
	wantError(t, v.do("POST", base, map[string]any{"id": "google", "microsoft_tenant_id": "t"}), http.StatusBadRequest, "microsoft_tenant_id: is only for the microsoft provider")
	wantError(t, v.do("POST", base, map[string]any{"id": "facebook"}), http.StatusBadRequest, "id: ")

	r = v.do("PATCH", base+"/microsoft", map[string]any{"microsoft_tenant_id": "tenant-2"})
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(string(r.Body), "tenant") {
		t.Errorf("update response shows the tenant id: %s", r.Body)
	}
	a, _ := v.e.BranchAuth(v.project, v.branch)
	if i := a.oauthProvider("microsoft"); i < 0 || a.OAuthProviders[i].MicrosoftTenantID != "tenant-2" || a.OAuthProviders[i].ClientID != "cid" {
		t.Errorf("stored providers = %+v", a.OAuthProviders)
	}
	// The branch-scoped list can carry a standard provider's credentials.
	wantJSON(t, "list", v.do("GET", base, nil).Body, `{"providers":[{"id":"microsoft","type":"standard","client_id":"cid","client_secret":"cs"},{"id":"vercel","type":"shared"}]}`)
	// A re-add of the same settings answers 200; other settings 409.
	r = v.do("POST", base, map[string]any{"id": "vercel"})
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, "re-add", r.Body, `{"id":"vercel","type":"shared"}`)
	wantError(t, v.do("POST", base, map[string]any{"id": "vercel", "client_id": "c", "client_secret": "s"}), http.StatusConflict, "OAuth provider vercel already exists")
	r = v.do("DELETE", base+"/vercel", nil)
	wantStatus(t, r, http.StatusOK)
	wantNoBody(t, r)
	// Deleting a provider that is not there succeeds.
	r = v.do("DELETE", base+"/vercel", nil)
	wantStatus(t, r, http.StatusOK)
	wantNoBody(t, r)
}

// A provider without shared keys refuses an add without credentials, with
// the code the CLI turns into advice.
func TestOAuthProviderWithoutSharedKeys(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	v.e.SetSharedOAuthProviders("google", "github", "vercel")
	base := v.branchAuthPath(v.branch) + "/oauth_providers"
	r := v.do("POST", base, map[string]any{"id": "microsoft"})
	wantStatus(t, r, http.StatusBadRequest)
	if body := r.JSON(); body["code"] != "INVALID_SHARED_OAUTH_PROVIDER" || !strings.HasPrefix(fmt.Sprint(body["message"]), "microsoft has no shared OAuth credentials") {
		t.Errorf("refusal = %v", body)
	}
	wantStatus(t, v.do("POST", base, map[string]any{"id": "microsoft", "client_id": "c", "client_secret": "s"}), http.StatusOK)
	wantStatus(t, v.do("POST", base, map[string]any{"id": "google"}), http.StatusOK)
}

func TestEmailProviderOnABranch(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	path := v.branchAuthPath(v.branch) + "/email_provider"
	legacy := "/projects/" + v.project + "/auth/email_server"

	// A fresh branch has none configured: 404 means "nothing configured".
	wantError(t, v.do("GET", path, nil), http.StatusNotFound, "no email provider is configured")
	r := v.do("PATCH", path, map[string]any{"type": "shared", "sender_email": "noreply@example.com", "sender_name": "Example"})
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, "shared with sender", r.Body, `{"type":"shared","sender_email":"noreply@example.com","sender_name":"Example"}`)
	// From shared, a standard configuration needs all six fields.
	wantError(t, v.do("PATCH", path, map[string]any{"type": "standard", "host": "smtp.example.com"}), http.StatusBadRequest, "port: is required")
	r = v.do("PATCH", path, map[string]any{
		"type": "standard", "host": "smtp.example.com", "port": 465, "username": "u",
		"password": "smtp-secret", "sender_email": "a@example.com", "sender_name": "A",
	})
	wantStatus(t, r, http.StatusOK)
	if got := r.JSON(); got["password"] != "" || got["host"] != "smtp.example.com" {
		t.Errorf("PATCH answered %v, want the password blank", got)
	}
	for _, p := range []string{path, legacy} {
		got := v.do("GET", p, nil).JSON()
		if got["password"] != "" || got["host"] != "smtp.example.com" {
			t.Errorf("GET %s = %v, want the password blank", p, got)
		}
	}
	// Better Auth merges a partial standard update: the password is kept.
	r = v.do("PATCH", path, map[string]any{"type": "standard", "sender_name": "Shop"})
	wantStatus(t, r, http.StatusOK)
	if got := r.JSON(); got["sender_name"] != "Shop" || got["host"] != "smtp.example.com" || got["port"] != float64(465) {
		t.Errorf("a partial update answered %v", got)
	}
	if a, _ := v.e.BranchAuth(v.project, v.branch); a.EmailProvider.Password != "smtp-secret" || a.EmailProvider.SenderName != "Shop" {
		t.Errorf("stored after a partial update = %+v", a.EmailProvider)
	}

	if err := v.e.RemoveEmailProvider(v.project, v.branch); err != nil {
		t.Fatal(err)
	}
	wantError(t, v.do("GET", path, nil), http.StatusNotFound, "no email provider is configured")
	wantError(t, v.do("GET", legacy, nil), http.StatusNotFound, "no email provider is configured")
	// With nothing configured, a partial standard update is not enough.
	wantError(t, v.do("PATCH", path, map[string]any{"type": "standard", "sender_name": "Shop"}), http.StatusBadRequest, "host: is required")
	if _, err := v.e.EmailServer(v.project); !errors.Is(err, ErrNotFound) {
		t.Errorf("EmailServer without a provider: %v, want ErrNotFound", err)
	}
	wantStatus(t, v.do("PATCH", path, map[string]any{"type": "shared"}), http.StatusOK)
	wantStatus(t, v.do("GET", path, nil), http.StatusOK)
}

func TestUsersAndRolesOnABranch(t *testing.T) {
	v := newEnv(t, Options{})
	dev, _ := v.e.AddBranch(v.project, "dev")
	v.enableOn(dev, "better_auth")
	base := v.branchAuthPath(dev) + "/users"

	r := v.do("POST", base, map[string]any{"email": "ada@example.com", "name": "Ada"})
	wantStatus(t, r, http.StatusCreated)
	id, _ := r.JSON()["id"].(string)
	if !uuidPattern.MatchString(id) {
		t.Fatalf("id = %q", id)
	}
	wantError(t, v.do("POST", base, map[string]any{"email": "ADA@example.com"}), http.StatusConflict, "")
	wantError(t, v.do("POST", base, map[string]any{"email": "ada"}), http.StatusBadRequest, "email: ")
	wantError(t, v.do("POST", base, map[string]any{"email": "b@example.com", "auth_provider": "better_auth"}), http.StatusBadRequest, `request body: property "auth_provider" is unsupported`)

	roles := base + "/" + id + "/role"
	cases := []struct {
		name   string
		body   any
		prefix string
	}{
		{"missing", map[string]any{}, "roles: is required"},
		{"empty", map[string]any{"roles": []string{}}, "roles: "},
		{"not an array", map[string]any{"roles": "admin"}, "roles: value must be an array"},
		{"empty role", map[string]any{"roles": []string{"admin", ""}}, "roles[1]: must not be empty"},
		{"repeated role", map[string]any{"roles": []string{"admin", "admin"}}, "roles[1]: "},
	}
	for _, tc := range cases {
		t.Run("roles "+tc.name, func(t *testing.T) {
			wantError(t, v.do("PUT", roles, tc.body), http.StatusBadRequest, tc.prefix)
		})
	}
	r = v.do("PUT", roles, map[string]any{"roles": []string{"admin", "billing"}})
	wantStatus(t, r, http.StatusOK)
	if r.JSON()["id"] != id {
		t.Errorf("role response = %s", r.Body)
	}
	a, _ := v.e.BranchAuth(v.project, dev)
	if len(a.Users) != 1 || !slices.Equal(a.Users[0].Roles, []string{"admin", "billing"}) {
		t.Errorf("users = %+v", a.Users)
	}
	wantError(t, v.do("PUT", base+"/nobody/role", map[string]any{"roles": []string{"admin"}}), http.StatusNotFound, "user not found")

	r = v.do("DELETE", base+"/"+id, nil)
	wantStatus(t, r, http.StatusNoContent)
	wantNoBody(t, r)
	wantError(t, v.do("DELETE", base+"/"+id, nil), http.StatusNotFound, "user not found")
	if n := len(v.e.UsersSync(v.project)); n != 0 {
		t.Errorf("the production branch has %d users; the dev branch's must stay there", n)
	}
}

func TestAllowLocalhostAndName(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	base := v.branchAuthPath(v.branch)

	wantJSON(t, "default", v.do("GET", base+"/allow_localhost", nil).Body, `{"allow_localhost":true}`)
	r := v.do("PATCH", base+"/allow_localhost", map[string]any{"allow_localhost": false})
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, "update", r.Body, `{"allow_localhost":false}`)
	wantError(t, v.do("PATCH", base+"/allow_localhost", map[string]any{}), http.StatusBadRequest, "allow_localhost: is required")
	wantError(t, v.do("PATCH", base+"/allow_localhost", map[string]any{"allow_localhost": "no"}), http.StatusBadRequest, "allow_localhost: value must be a boolean")

	r = v.do("PATCH", base+"/config", map[string]any{"name": "Storefront auth"})
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, "config", r.Body, `{"name":"Storefront auth"}`)
	if got := v.do("GET", base, nil).JSON()["name"]; got != "Storefront auth" {
		t.Errorf("name = %v", got)
	}
	wantError(t, v.do("PATCH", base+"/config", map[string]any{}), http.StatusBadRequest, "name: is required")
	wantError(t, v.do("PATCH", base+"/config", map[string]any{"name": ""}), http.StatusBadRequest, "name: minimum string length is 1")
	wantError(t, v.do("PATCH", base+"/config", map[string]any{"name": strings.Repeat("n", 257)}), http.StatusBadRequest, "name: maximum string length is 256")
}

func TestBranchAuthGoAPI(t *testing.T) {
	v := newEnv(t, Options{})
	if _, ok := v.e.BranchAuth(v.project, v.branch); ok {
		t.Fatal("BranchAuth reports Neon Auth on a fresh project")
	}
	v.enableOn(v.branch, "stack")
	wantStatus(t, v.do("POST", v.branchAuthPath(v.branch)+"/users", map[string]any{"email": "a@example.com"}), http.StatusCreated)

	t.Run("BranchAuth is a deep copy", func(t *testing.T) {
		a, ok := v.e.BranchAuth(v.project, v.branch)
		if !ok {
			t.Fatal("no Neon Auth")
		}
		a.Users[0].Email = "changed@example.com"
		a.EmailProvider.Type = "changed"
		for _, st := range betterauth.Settings { // through the pointers the values hold
			example, _ := json.Marshal(specOf(t, st).example)
			if err := json.Unmarshal(example, a.setting(st).Addr().Interface()); err != nil {
				t.Fatal(err)
			}
		}
		b, _ := v.e.BranchAuth(v.project, "")
		if b.Users[0].Email != "a@example.com" || b.EmailProvider.Type != "shared" || !reflect.DeepEqual(b.Settings, defaultSettings()) {
			t.Errorf("changing a copy changed the state: %+v", b)
		}
	})
	t.Run("mutateBranchAuth is drift seen by the API", func(t *testing.T) {
		err := v.e.mutateBranchAuth(v.project, v.branch, func(a *BranchAuth) {
			a.Domains = append(a.Domains, Domain{Domain: "https://drift.example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider(a.AuthProvider)})
			a.AllowLocalhost = false
			a.BranchID = "br-elsewhere" // ignored: the state stays on its branch
		})
		if err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "domains", v.do("GET", v.branchAuthPath(v.branch)+"/domains", nil).Body, `{"domains":[{"domain":"https://drift.example.com","auth_provider":"stack"}]}`)
		if got := v.do("GET", v.branchAuthPath(v.branch), nil).JSON()["branch_id"]; got != v.branch {
			t.Errorf("branch_id = %v", got)
		}
	})
	t.Run("errors name what is missing", func(t *testing.T) {
		dev, _ := v.e.AddBranch(v.project, "dev")
		for name, err := range map[string]error{
			"no Neon Auth":    v.e.mutateBranchAuth(v.project, dev, func(*BranchAuth) {}),
			"unknown branch":  v.e.RemoveEmailProvider(v.project, "br-nope"),
			"unknown project": v.e.disableBranchAuth("nope", v.branch),
		} {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("%s: err = %v, want ErrNotFound", name, err)
			}
		}
	})
	t.Run("disableBranchAuth", func(t *testing.T) {
		if err := v.e.disableBranchAuth(v.project, v.branch); err != nil {
			t.Fatal(err)
		}
		wantError(t, v.do("GET", v.branchAuthPath(v.branch), nil), http.StatusNotFound, "")
		if n := len(v.e.Integrations(v.project)); n != 0 {
			t.Errorf("Integrations = %d", n)
		}
	})
}

// Stack Auth does not merge: a standard update needs all six fields, even
// over a stored standard configuration.
func TestEmailProviderOfStackAuthNeedsTheWholeConfiguration(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "stack")
	path := v.branchAuthPath(v.branch) + "/email_provider"
	full := map[string]any{"type": "standard", "host": "smtp.example.com", "port": 465, "username": "u",
		"password": "smtp-secret", "sender_email": "a@example.com", "sender_name": "A"}
	wantStatus(t, v.do("PATCH", path, full), http.StatusOK)
	wantError(t, v.do("PATCH", path, map[string]any{"type": "standard", "sender_name": "Shop"}), http.StatusBadRequest,
		"host: is required: stack integrations take the whole standard configuration")
	if a, _ := v.e.BranchAuth(v.project, v.branch); a.EmailProvider.SenderName != "A" {
		t.Errorf("a refused update changed the configuration: %+v", a.EmailProvider)
	}
}

// POST …/email_provider/test sends through the saved configuration, and only
// a Better Auth integration's standard one; the deprecated send_test_email
// takes a whole configuration, for any provider. Both are recorded.
func TestTestEmails(t *testing.T) {
	v := newEnv(t, Options{})
	base := v.branchAuthPath(v.branch)
	test := base + "/email_provider/test"
	to := map[string]any{"recipient_email": "ops@example.com"}
	wantError(t, v.do("POST", test, map[string]any{"recipient_email": "nobody"}), http.StatusBadRequest, "recipient_email: must be an email address")
	wantError(t, v.do("POST", test, to), http.StatusNotFound, "Neon Auth is not enabled")

	v.enableOn(v.branch, "better_auth")
	wantError(t, v.do("POST", test, to), http.StatusBadRequest, "email_provider: no email provider is configured")
	wantStatus(t, v.do("PATCH", base+"/email_provider", map[string]any{"type": "shared"}), http.StatusOK)
	wantError(t, v.do("POST", test, to), http.StatusBadRequest, "email_provider: the shared email provider cannot be tested")
	wantStatus(t, v.do("PATCH", base+"/email_provider", map[string]any{"type": "standard", "host": "smtp.example.com", "port": 465,
		"username": "u", "password": "smtp-secret", "sender_email": "a@example.com", "sender_name": "A"}), http.StatusOK)
	r := v.do("POST", test, to)
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, "test answer", r.Body, `{"success":true}`)

	legacy := map[string]any{"host": "smtp.other.example", "port": 587, "username": "v", "password": "other-secret",
		"sender_email": "b@example.com", "sender_name": "B", "recipient_email": "dev@example.com"}
	wantError(t, v.do("POST", base+"/send_test_email", map[string]any{"host": "smtp.other.example", "recipient_email": "dev@example.com"}),
		http.StatusBadRequest, "port: is required")
	wantStatus(t, v.do("POST", base+"/send_test_email", legacy), http.StatusOK)

	a, _ := v.e.BranchAuth(v.project, v.branch)
	if len(a.TestEmails) != 2 || a.TestEmails[0].Recipient != "ops@example.com" || !a.TestEmails[0].Saved || a.TestEmails[0].Host != "smtp.example.com" ||
		a.TestEmails[1].Recipient != "dev@example.com" || a.TestEmails[1].Saved || a.TestEmails[1].Host != "smtp.other.example" {
		t.Errorf("test emails = %+v", a.TestEmails)
	}
	if a.EmailProvider.Host != "smtp.example.com" {
		t.Errorf("send_test_email changed the saved configuration: %+v", a.EmailProvider)
	}

	other, err := v.e.CreateBranch(v.project, BranchOptions{Name: "stack-branch", InitSource: "schema-only"})
	if err != nil {
		t.Fatal(err)
	}
	v.enableOn(other.ID, "stack")
	wantError(t, v.do("POST", v.branchAuthPath(other.ID)+"/email_provider/test", to), http.StatusBadRequest, "auth_provider: testing the saved email provider needs a better_auth integration")
	wantStatus(t, v.do("POST", v.branchAuthPath(other.ID)+"/send_test_email", legacy), http.StatusOK)
}
