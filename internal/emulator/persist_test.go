package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestStateFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	opts := Options{BootstrapKey: "admin-key", StateFile: path, SeedProjects: 2}

	v := newEnv(t, opts)
	v.integrate()
	projectKey, _ := v.e.CreateKey(KeyProject, v.project)
	revoked, _ := v.e.CreateKey(KeyOrganization, "")
	_ = v.e.RevokeKey(revoked)
	p := "/projects/" + v.project
	wantStatus(t, v.do("POST", p+"/auth/domains", map[string]any{"domain": "https://app.example.com", "auth_provider": "stack"}), http.StatusCreated)
	wantStatus(t, v.do("POST", p+"/auth/oauth_providers", map[string]any{"id": "github", "client_id": "c", "client_secret": "s"}), http.StatusOK)
	wantStatus(t, v.do("PATCH", p+"/auth/email_server", map[string]any{
		"type": "standard", "host": "smtp.example.com", "port": 465, "username": "u",
		"password": "pw", "sender_email": "a@example.com", "sender_name": "A",
	}), http.StatusOK)
	wantStatus(t, v.do("POST", "/projects/auth/user", map[string]any{"project_id": v.project, "auth_provider": "stack", "email": "u@example.com"}), http.StatusCreated)
	wantStatus(t, v.do("POST", "/projects/auth/transfer_ownership", map[string]any{"project_id": v.project, "auth_provider": "stack"}), http.StatusOK)
	dev, _ := v.e.AddBranch(v.project, "dev")
	v.enableOn(dev, "better_auth")
	r := v.do("POST", v.branchAuthPath(dev)+"/users", map[string]any{"email": "dev@example.com"})
	wantStatus(t, r, http.StatusCreated)
	wantStatus(t, v.do("PUT", v.branchAuthPath(dev)+"/users/"+digString(t, r.JSON(), "id")+"/role", map[string]any{"roles": []string{"admin"}}), http.StatusOK)
	if err := v.e.Close(); err != nil {
		t.Fatal(err)
	}

	w := newEnv(t, opts)
	if !reflect.DeepEqual(w.e.ProjectIDs(), v.e.ProjectIDs()) {
		t.Errorf("projects %v, want %v", w.e.ProjectIDs(), v.e.ProjectIDs())
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"integrations", w.e.Integrations(v.project), v.e.Integrations(v.project)},
		{"domains", w.e.Domains(v.project), v.e.Domains(v.project)},
		{"oauth providers", w.e.OAuthProviders(v.project), v.e.OAuthProviders(v.project)},
		{"users", w.e.UsersSync(v.project), v.e.UsersSync(v.project)},
		{"branches", w.e.Branches(v.project), v.e.Branches(v.project)},
	}
	for _, b := range []string{v.branch, dev} {
		got, _ := w.e.BranchAuth(v.project, b)
		want, _ := v.e.BranchAuth(v.project, b)
		checks = append(checks, struct {
			name      string
			got, want any
		}{"Neon Auth of " + b, got, want})
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, c.got, c.want)
		}
	}
	gotEmail, _ := w.e.EmailServer(v.project)
	wantEmail, _ := v.e.EmailServer(v.project)
	if gotEmail != wantEmail {
		t.Errorf("email server %+v, want %+v", gotEmail, wantEmail)
	}
	if err := w.e.ConfirmTransfer(v.project, "stack"); err != nil {
		t.Errorf("pending transfer lost: %v", err)
	}
	if len(w.e.Branches(v.project)) != 2 || w.e.Branches(v.project)[1].ID != dev {
		t.Error("branch lost")
	}
	// Keys survive; revocation too.
	wantStatus(t, w.call("admin-key", "GET", "/projects", nil), http.StatusOK)
	wantStatus(t, w.call(projectKey, "GET", "/projects", nil), http.StatusOK)
	wantStatus(t, w.call(revoked, "GET", "/projects", nil), http.StatusUnauthorized)
	// New ids do not collide with loaded ones.
	np, _ := w.e.CreateProject("after restart")
	for _, id := range v.e.ProjectIDs() {
		if id == np.ID {
			t.Errorf("id %s reused", id)
		}
	}
}

func TestStateFileIsWrittenAtomicallyAndHidesAPIKeys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	v := newEnv(t, Options{BootstrapKey: "secret-admin-token", StateFile: path})
	for i := 0; i < 5; i++ {
		if _, err := v.e.CreateProject("p"); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "state.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only state.json (no temp files left)", names)
	}
	info, _ := os.Stat(path)
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode = %v, want 0600", perm)
	}
	data, _ := os.ReadFile(path)
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("state file is not valid JSON: %v", err)
	}
	if len(st.Projects) != 6 {
		t.Errorf("file has %d projects, want 6 (written after every mutation)", len(st.Projects))
	}
	if strings.Contains(string(data), "secret-admin-token") {
		t.Error("the state file contains an API key token")
	}
}

func TestFailedAtomicWriteLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "state.json")
	if err := WriteFileAtomic(missing, []byte("{}")); err == nil {
		t.Fatal("save into a missing directory succeeded")
	}
	// A state file that cannot be renamed over (it is a directory): the temp
	// file must be cleaned up.
	target := filepath.Join(dir, "occupied")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(target, []byte("{}")); err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the occupied dir", len(entries))
	}
}

func TestCorruptStateFileIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{StateFile: path}); err == nil {
		t.Fatal("New accepted a corrupt state file")
	}
}

// stateFileV1 is a state file of version 1, when Neon Auth was kept per
// project: one stack integration on the production branch, a dev branch.
const stateFileV1 = `{
  "version": 1,
  "seq": 4,
  "org_id": "org-quiet-leaf-00000001",
  "owner_id": "0b8a4d1e-6c1f-4b8e-9a53-1f2d3c4b5a69",
  "keys": [{"sha256": "c8a1a7bd7e1f6a0a55e17e7e1f0cbd9e5b1a1bbf8e4d6c2a8b4d6e8f0a2c4e6f", "kind": "personal", "revoked": false, "created_at": "2026-01-02T03:04:05Z"}],
  "projects": [{
    "seq": 2,
    "project": {"id": "bold-leaf-00000002", "platform_id": "aws", "region_id": "aws-us-east-2", "name": "shop",
      "provisioner": "k8s-pod", "pg_version": 17, "locked": false, "cpu_used_sec": 0, "active_time": 0,
      "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z", "proxy_host": "us-east-2.aws.neon.tech",
      "branch_logical_size_limit": 512, "branch_logical_size_limit_bytes": 536870912, "store_passwords": true,
      "creation_source": "console", "owner_id": "0b8a4d1e-6c1f-4b8e-9a53-1f2d3c4b5a69", "org_id": "org-quiet-leaf-00000001"},
    "branches": [
      {"id": "br-shiny-leaf-00000003", "project_id": "bold-leaf-00000002", "name": "main", "default": true,
       "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z",
       "databases": [{"name": "neondb", "owner_name": "neondb_owner"}], "roles": ["neondb_owner"]},
      {"id": "br-misty-leaf-00000004", "project_id": "bold-leaf-00000002", "parent_id": "br-shiny-leaf-00000003", "name": "dev",
       "default": false, "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z",
       "databases": [{"name": "neondb", "owner_name": "neondb_owner"}], "roles": ["neondb_owner"]}
    ],
    "integrations": [{
      "project_id": "bold-leaf-00000002", "auth_provider": "stack", "auth_provider_project_id": "5f0c6a8e-2b1d-4c3e-8f7a-9b0c1d2e3f4a",
      "branch_id": "br-shiny-leaf-00000003", "db_name": "neondb", "role_name": "neondb_owner", "created_at": "2026-01-02T03:04:05Z",
      "owned_by": "neon", "transfer_status": "initiated",
      "jwks_url": "https://api.stack-auth.com/api/v1/projects/5f0c6a8e-2b1d-4c3e-8f7a-9b0c1d2e3f4a/.well-known/jwks.json",
      "pub_client_key": "pck_v1", "secret_server_key": "ssk_v1", "schema_name": "neon_auth", "table_name": "users_sync",
      "transfer_code": "abc123",
      "oauth_providers": [{"id": "github", "type": "standard", "client_id": "gh", "client_secret": "gh-secret"}],
      "domains": [{"domain": "https://app.example.com", "auth_provider": "stack"}],
      "email_server": {"type": "standard", "host": "smtp.example.com", "port": 587, "username": "u", "password": "pw",
        "sender_email": "a@example.com", "sender_name": "A"},
      "users": [{"id": "7d2c1b0a-9e8f-4a6b-8c5d-3e2f1a0b9c8d", "email": "ada@example.com", "created_at": "2026-01-02T03:04:05Z"}]
    }]
  }]
}`

func TestStateFileVersion1IsMigratedToTheProductionBranch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(stateFileV1), 0o600); err != nil {
		t.Fatal(err)
	}
	v := newEnv(t, Options{StateFile: path})
	const project, main, dev = "bold-leaf-00000002", "br-shiny-leaf-00000003", "br-misty-leaf-00000004"
	a, ok := v.e.BranchAuth(project, main)
	if !ok {
		t.Fatal("the integration did not move to the production branch")
	}
	if a.AuthProvider != "stack" || a.PubClientKey != "pck_v1" || a.Name != "shop" || a.TransferStatus != "initiated" ||
		a.BaseURL != "https://api.stack-auth.com/api/v1/projects/5f0c6a8e-2b1d-4c3e-8f7a-9b0c1d2e3f4a" {
		t.Errorf("integration = %+v", a.Integration)
	}
	if len(a.OAuthProviders) != 1 || a.OAuthProviders[0].ClientSecret != "gh-secret" || len(a.Domains) != 1 ||
		len(a.Users) != 1 || a.EmailProvider == nil || a.EmailProvider.Password != "pw" || !a.AllowLocalhost {
		t.Errorf("configuration = %+v", a)
	}
	if !reflect.DeepEqual(a.Settings, defaultSettings()) {
		t.Errorf("settings = %+v, want the defaults", a.Settings)
	}
	if _, ok := v.e.BranchAuth(project, dev); ok {
		t.Error("the dev branch got Neon Auth")
	}
	if err := v.e.ConfirmTransfer(project, "stack"); err != nil {
		t.Errorf("the pending transfer was lost: %v", err)
	}
	// The file is rewritten in the current version, and reads back the same.
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"version": 3`) {
		t.Errorf("the state file was not rewritten as version 3")
	}
	_ = v.e.Close()
	w := newEnv(t, Options{StateFile: path})
	if b, _ := w.e.BranchAuth(project, main); b.OwnedBy != "user" || len(b.Domains) != 1 {
		t.Errorf("after a restart: %+v", b.Integration)
	}
}

func TestStateFileVersionsThatCannotBeRead(t *testing.T) {
	cases := map[string]string{
		"a future version":                       `{"version": 4, "projects": []}`,
		"a version 1 integration on no branch":   strings.Replace(stateFileV1, `"branch_id": "br-shiny-leaf-00000003"`, `"branch_id": "br-gone"`, 1),
		"a version 1 project without production": strings.Replace(stateFileV1, `"default": true`, `"default": false`, 1),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := New(Options{StateFile: path}); err == nil {
				t.Fatal("New accepted the state file")
			}
		})
	}
}

// Computes, role passwords, database ids, the project's settings, a
// database's Data API and the project's JWKS survive a restart: every read
// answers as before.
func TestStateFileKeepsComputesRolesAndSettings(t *testing.T) {
	opts := Options{BootstrapKey: "admin-key", StateFile: filepath.Join(t.TempDir(), "state.json"), DataAPIBootTime: -1}
	v := newEnv(t, opts)
	created := v.do("POST", "/projects", officialProjectCreate()).JSON()
	p := "/projects/" + digString(t, created, "project", "id")
	main := p + "/branches/" + digString(t, created, "branch", "id")
	r := v.do("POST", p+"/branches", map[string]any{"branch": map[string]any{"name": "dev"},
		"endpoints": []any{map[string]any{"type": "read_write", "settings": map[string]any{"pg_settings": map[string]string{"work_mem": "4MB"}}}}})
	wantStatus(t, r, http.StatusCreated)
	dev := p + "/branches/" + digString(t, r.JSON(), "branch", "id")
	wantStatus(t, v.do("POST", dev+"/roles", map[string]any{"role": map[string]any{"name": "app"}}), http.StatusCreated)
	wantStatus(t, v.do("POST", dev+"/databases", map[string]any{"database": map[string]any{"name": "shop", "owner_name": "app"}}), http.StatusCreated)
	wantStatus(t, v.do("POST", dev+"/data-api/shop", map[string]any{"settings": map[string]any{"db_max_rows": 10}}), http.StatusCreated)
	wantStatus(t, v.do("POST", p+"/jwks", map[string]any{"jwks_url": "https://www.googleapis.com/oauth2/v3/certs", "provider_name": "Google"}),
		http.StatusCreated)
	reads := []string{p + "/endpoints", main + "/roles", dev + "/roles", dev + "/databases", main + "/roles/qux/reveal_password",
		dev + "/roles/qux/reveal_password", dev + "/roles/app/reveal_password", "/projects", dev + "/data-api/shop", p + "/jwks"}
	before := map[string]string{}
	for _, path := range reads {
		before[path] = string(v.do("GET", path, nil).Body)
	}
	project := digString(t, v.do("GET", p, nil).JSON(), "project", "settings", "allowed_ips", "ips", 1)
	if err := v.e.Close(); err != nil {
		t.Fatal(err)
	}

	w := newEnv(t, opts)
	for _, path := range reads {
		if got := string(w.do("GET", path, nil).Body); got != before[path] {
			t.Errorf("GET %s after a restart:\n%s\nbefore:\n%s", path, got, before[path])
		}
	}
	if got := digString(t, w.do("GET", p, nil).JSON(), "project", "settings", "allowed_ips", "ips", 1); got != project {
		t.Errorf("allowed ip after a restart %q, before %q", got, project)
	}
}

// stateFileV2 is a state file of version 2, which kept no computes, role
// passwords, database ids or project settings: a project with main and a
// child dev.
const stateFileV2 = `{
  "version": 2,
  "seq": 4,
  "org_id": "org-quiet-leaf-00000001",
  "owner_id": "0b8a4d1e-6c1f-4b8e-9a53-1f2d3c4b5a69",
  "keys": [],
  "projects": [{
    "seq": 2,
    "project": {"id": "bold-leaf-00000002", "platform_id": "aws", "region_id": "aws-us-east-2", "name": "shop",
      "provisioner": "k8s-pod", "pg_version": 17, "locked": false, "cpu_used_sec": 0, "active_time": 0,
      "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z", "proxy_host": "us-east-2.aws.neon.tech",
      "branch_logical_size_limit": 512, "branch_logical_size_limit_bytes": 536870912, "store_passwords": true,
      "creation_source": "console", "owner_id": "0b8a4d1e-6c1f-4b8e-9a53-1f2d3c4b5a69", "org_id": "org-quiet-leaf-00000001"},
    "branches": [
      {"id": "br-shiny-leaf-00000003", "project_id": "bold-leaf-00000002", "name": "main", "default": true,
       "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z", "seq": 3,
       "databases": [{"name": "neondb", "owner_name": "neondb_owner"}], "roles": ["neondb_owner"]},
      {"id": "br-misty-leaf-00000004", "project_id": "bold-leaf-00000002", "parent_id": "br-shiny-leaf-00000003", "name": "dev",
       "default": false, "created_at": "2026-01-03T03:04:05Z", "updated_at": "2026-01-03T03:04:05Z", "seq": 4,
       "databases": [{"name": "neondb", "owner_name": "neondb_owner"}], "roles": ["neondb_owner"]}
    ]
  }]
}`

// A version 2 state file loads, given what version 3 keeps as the emulator
// of version 2 had it: a day of history, the default settings, a read_write
// endpoint on the production branch, database ids, role passwords shared by
// a child branch with its parent.
func TestStateFileVersion2IsUpgraded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(stateFileV2), 0o600); err != nil {
		t.Fatal(err)
	}
	v := newEnv(t, Options{StateFile: path})
	const p, main, dev = "/projects/bold-leaf-00000002", "/branches/br-shiny-leaf-00000003", "/branches/br-misty-leaf-00000004"
	project, _ := dig(t, v.do("GET", p, nil).JSON(), "project").(map[string]any)
	if project["history_retention_seconds"] != float64(86400) || dig(t, project, "settings", "allowed_ips", "ips") == nil {
		t.Errorf("project = %v", project)
	}
	mainEndpoints := endpointIDs(t, v.do("GET", p+main+"/endpoints", nil))
	if len(mainEndpoints) != 1 || len(endpointIDs(t, v.do("GET", p+dev+"/endpoints", nil))) != 0 {
		t.Errorf("endpoints: main %v, dev none wanted", mainEndpoints)
	}
	password := digString(t, v.do("GET", p+main+"/roles/neondb_owner/reveal_password", nil).JSON(), "password")
	if got := digString(t, v.do("GET", p+dev+"/roles/neondb_owner/reveal_password", nil).JSON(), "password"); got != password || password == "" {
		t.Errorf("passwords: main %q, dev %q", password, got)
	}
	if id := dig(t, v.do("GET", p+dev+"/databases/neondb", nil).JSON(), "database", "id"); id != float64(1) {
		t.Errorf("database id = %v", id)
	}
	if created := digString(t, v.do("GET", p+dev+"/databases/neondb", nil).JSON(), "database", "created_at"); created != "2026-01-03T03:04:05Z" {
		t.Errorf("database created_at = %s, want its branch's", created)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"version": 3`) {
		t.Errorf("the state file was not rewritten as version 3")
	}
	_ = v.e.Close()
	w := newEnv(t, Options{StateFile: path})
	if got := digString(t, w.do("GET", p+main+"/roles/neondb_owner/reveal_password", nil).JSON(), "password"); got != password {
		t.Errorf("after a restart the password is %q, was %q", got, password)
	}
	if got := endpointIDs(t, w.do("GET", p+main+"/endpoints", nil)); !slices.Equal(got, mainEndpoints) {
		t.Errorf("after a restart the endpoints are %v, were %v", got, mainEndpoints)
	}
}

// stateFileV3 is a state file of version 3 as the emulator wrote it before
// it held the Better Auth settings, projects and compute settings as the
// API reference's generated types (users and test emails left out): a
// project whose main branch has Better Auth with every setting changed, and
// a branch dev with a compute endpoint of its own settings.
const stateFileV3 = `{
  "version": 3,
  "seq": 10,
  "org_id": "org-quiet-leaf-00000001",
  "owner_id": "e8c19496-e7d7-4b5a-a160-460e962e1730",
  "keys": [],
  "projects": [
    {
      "seq": 2,
      "project": {
        "id": "bold-leaf-00000002",
        "platform_id": "aws",
        "region_id": "aws-us-east-2",
        "name": "seed-project-1",
        "provisioner": "k8s-pod",
        "pg_version": 17,
        "locked": false,
        "cpu_used_sec": 0,
        "active_time": 0,
        "created_at": "2026-11-25T04:37:56Z",
        "updated_at": "2026-11-25T04:37:56Z",
        "proxy_host": "us-east-2.aws.neon.tech",
        "branch_logical_size_limit": 512,
        "branch_logical_size_limit_bytes": 536870912,
        "store_passwords": true,
        "creation_source": "console",
        "owner_id": "e8c19496-e7d7-4b5a-a160-460e962e1730",
        "org_id": "org-quiet-leaf-00000001",
        "history_retention_seconds": 86400,
        "settings": {
          "allowed_ips": {
            "ips": [],
            "protected_branches_only": false
          },
          "enable_logical_replication": false,
          "block_public_connections": false,
          "block_vpc_connections": false,
          "hipaa": false
        }
      },
      "branches": [
        {
          "id": "br-shiny-leaf-00000003",
          "project_id": "bold-leaf-00000002",
          "name": "main",
          "default": true,
          "created_at": "2026-11-25T04:37:56Z",
          "updated_at": "2026-11-25T04:37:56Z",
          "databases": [
            {
              "id": 1,
              "name": "neondb",
              "owner_name": "neondb_owner",
              "created_at": "2026-11-25T04:37:56Z"
            }
          ],
          "roles": [
            "neondb_owner"
          ],
          "seq": 3,
          "neon_auth": {
            "project_id": "bold-leaf-00000002",
            "auth_provider": "better_auth",
            "auth_provider_project_id": "cba752c4-e051-42c7-baa7-80cfa6d74b2d",
            "branch_id": "br-shiny-leaf-00000003",
            "db_name": "neondb",
            "role_name": "neondb_owner",
            "name": "Acme",
            "created_at": "2026-11-25T04:37:56Z",
            "owned_by": "neon",
            "transfer_status": "",
            "base_url": "https://br-shiny-leaf-00000003.neonauth.us-east-2.aws.neon.tech/neondb/auth",
            "jwks_url": "https://br-shiny-leaf-00000003.neonauth.us-east-2.aws.neon.tech/neondb/auth/.well-known/jwks.json",
            "pub_client_key": "",
            "secret_server_key": "",
            "schema_name": "neon_auth",
            "table_name": "users_sync",
            "oauth_providers": [
              {
                "id": "microsoft",
                "type": "standard",
                "client_id": "c",
                "client_secret": "s",
                "microsoft_tenant_id": "t"
              },
              {
                "id": "github",
                "type": "shared"
              }
            ],
            "domains": [
              {
                "domain": "https://app.example.com",
                "auth_provider": "better_auth"
              }
            ],
            "email_provider": {
              "type": "standard",
              "host": "smtp.example.com",
              "port": 465,
              "username": "u",
              "password": "pw",
              "sender_email": "a@example.com",
              "sender_name": "A"
            },
            "users": [],
            "allow_localhost": false,
            "email_and_password": {
              "enabled": true,
              "email_verification_method": "otp",
              "require_email_verification": true,
              "auto_sign_in_after_verification": true,
              "send_verification_email_on_sign_up": false,
              "send_verification_email_on_sign_in": false,
              "disable_sign_up": false
            },
            "organization": {
              "enabled": true,
              "organization_limit": 3,
              "membership_limit": 100,
              "creator_role": "owner",
              "send_invitation_email": false
            },
            "magic_link": {
              "enabled": true,
              "expires_in": 30,
              "disable_sign_up": false
            },
            "phone_number": {
              "enabled": true,
              "otp_expires_in": 300
            },
            "webhooks": {
              "enabled": true,
              "webhook_url": "https://app.example.com/hooks",
              "enabled_events": [
                "user.created"
              ],
              "timeout_seconds": 5
            }
          },
          "endpoints": [
            {
              "id": "ep-misty-leaf-00000004",
              "type": "read_write",
              "autoscaling_limit_min_cu": 0.25,
              "autoscaling_limit_max_cu": 0.25,
              "suspend_timeout_seconds": 0,
              "provisioner": "k8s-pod",
              "pooler_enabled": false,
              "disabled": false,
              "passwordless_access": false,
              "created_at": "2026-11-25T04:37:56Z",
              "updated_at": "2026-11-25T04:37:56Z"
            }
          ],
          "role_states": {
            "neondb_owner": {
              "password": "npg_HM5LoFFWNcTA",
              "created_at": "2026-11-25T04:37:56Z"
            }
          }
        },
        {
          "id": "br-calm-leaf-00000009",
          "project_id": "bold-leaf-00000002",
          "parent_id": "br-shiny-leaf-00000003",
          "name": "dev",
          "default": false,
          "protected": true,
          "annotation": {
            "a": "b"
          },
          "created_at": "2026-11-25T04:37:56Z",
          "updated_at": "2026-11-25T04:37:56Z",
          "databases": [
            {
              "id": 1,
              "name": "neondb",
              "owner_name": "neondb_owner",
              "created_at": "2026-11-25T04:37:56Z"
            }
          ],
          "roles": [
            "neondb_owner"
          ],
          "seq": 9,
          "endpoints": [
            {
              "id": "ep-raspy-leaf-00000008",
              "type": "read_write",
              "autoscaling_limit_min_cu": 0.5,
              "autoscaling_limit_max_cu": 2,
              "suspend_timeout_seconds": 0,
              "provisioner": "k8s-pod",
              "pooler_enabled": false,
              "disabled": false,
              "passwordless_access": false,
              "settings": {
                "pg_settings": {
                  "work_mem": "64MB"
                }
              },
              "created_at": "2026-11-25T04:37:56Z",
              "updated_at": "2026-11-25T04:37:56Z"
            }
          ]
        }
      ]
    }
  ]
}`

// A version 3 state file loads as it was written: every read answers what
// it held, and the file written again holds the same values.
func TestStateFileVersion3LoadsAsWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(stateFileV3), 0o600); err != nil {
		t.Fatal(err)
	}
	v := newEnv(t, Options{StateFile: path})
	const p, main = "/projects/bold-leaf-00000002", "/projects/bold-leaf-00000002/branches/br-shiny-leaf-00000003"
	// The bundle holds what the file held; a setting added to the API since
	// answers its default (TestStateFileWithoutASettingLoadsItsDefault).
	wantHeld(t, "GET …/auth/plugins", v.do("GET", main+"/auth/plugins", nil).JSON(), `{
		"organization": {"enabled": true, "organization_limit": 3, "membership_limit": 100, "creator_role": "owner", "send_invitation_email": false},
		"magic_link": {"enabled": true, "expires_in": 30, "disable_sign_up": false},
		"phone_number": {"enabled": true, "otp_expires_in": 300},
		"email_provider": {"type": "standard", "host": "smtp.example.com", "port": 465, "username": "u", "password": "",
			"sender_email": "a@example.com", "sender_name": "A"},
		"email_and_password": {"enabled": true, "email_verification_method": "otp", "require_email_verification": true,
			"auto_sign_in_after_verification": true, "send_verification_email_on_sign_up": false,
			"send_verification_email_on_sign_in": false, "disable_sign_up": false},
		"oauth_providers": [{"id": "microsoft", "type": "standard", "client_id": "c", "client_secret": "s"}, {"id": "github", "type": "shared"}],
		"allow_localhost": false}`)
	wantJSON(t, "GET …/auth/webhooks", v.do("GET", main+"/auth/webhooks", nil).Body,
		`{"enabled": true, "webhook_url": "https://app.example.com/hooks", "enabled_events": ["user.created"], "timeout_seconds": 5}`)
	wantJSON(t, "GET …/auth/domains", v.do("GET", main+"/auth/domains", nil).Body,
		`{"domains": [{"domain": "https://app.example.com", "auth_provider": "better_auth"}]}`)
	endpoints := v.do("GET", p+"/branches/br-calm-leaf-00000009/endpoints", nil).JSON()
	wantJSON(t, "dev's endpoint", dig(t, endpoints, "endpoints", 0, "settings"), `{"pg_settings": {"work_mem": "64MB"}}`)
	wantJSON(t, "dev's endpoint's size", []any{dig(t, endpoints, "endpoints", 0, "autoscaling_limit_min_cu"),
		dig(t, endpoints, "endpoints", 0, "autoscaling_limit_max_cu")}, `[0.5, 2]`)
	wantJSON(t, "the project's settings", dig(t, v.do("GET", "/projects", nil).JSON(), "projects", 0, "settings"),
		`{"allowed_ips": {"ips": [], "protected_branches_only": false}, "enable_logical_replication": false,
		"block_public_connections": false, "block_vpc_connections": false, "hipaa": false}`)

	var written, was map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &written); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(stateFileV3), &was)
	delete(written, "keys") // New adds the bootstrap key
	delete(was, "keys")
	if path, ok := keeps(written, was, "$"); !ok {
		t.Errorf("the state file written again does not hold %s as loaded:\n%s", path, data)
	}
}

// wantHeld fails when got does not hold every value of want (a JSON text):
// objects may have more members.
func wantHeld(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s: not JSON: %v", want, err)
	}
	if path, ok := keeps(got, w, "$"); !ok {
		raw, _ := json.Marshal(got)
		t.Errorf("%s does not hold %s as wanted:\n  %s\nwant at least\n  %s", what, path, raw, want)
	}
}

// keeps reports whether written holds every value of was (objects may have
// more members: settings added since the file was written), and else the
// path of the first value it does not hold.
func keeps(written, was any, path string) (string, bool) {
	switch w := was.(type) {
	case map[string]any:
		got, ok := written.(map[string]any)
		if !ok {
			return path, false
		}
		for k, v := range w {
			if p, ok := keeps(got[k], v, path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		got, ok := written.([]any)
		if !ok || len(got) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := keeps(got[i], w[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	default:
		return path, reflect.DeepEqual(written, was)
	}
}

// A setting a state file lacks (one added to the API since the file was
// written) loads as the API's default, not as Go's zero value: here the
// magic link plugin, whose expiry defaults to 5 minutes.
func TestStateFileWithoutASettingLoadsItsDefault(t *testing.T) {
	var state map[string]any
	if err := json.Unmarshal([]byte(stateFileV3), &state); err != nil {
		t.Fatal(err)
	}
	auth := digObject(t, state, "projects", 0, "branches", 0, "neon_auth")
	delete(auth, "magic_link")
	raw, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	v := newEnv(t, Options{StateFile: path})
	plugins := v.do("GET", "/projects/bold-leaf-00000002/branches/br-shiny-leaf-00000003/auth/plugins", nil).JSON()
	wantJSON(t, "magic_link", dig(t, plugins, "magic_link"), `{"enabled": false, "expires_in": 5, "disable_sign_up": false}`)
}
