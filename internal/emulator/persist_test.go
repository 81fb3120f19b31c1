package emulator

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
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

func TestFailedStateWriteLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "state.json")
	if err := saveState(missing, newState()); err == nil {
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
	if err := saveState(target, newState()); err == nil {
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
