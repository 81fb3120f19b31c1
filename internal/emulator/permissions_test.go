package emulator

import (
	"net/http"
	"testing"
)

// A project is shared with an account by its email, listed, and no longer
// shared once the grant is revoked, as the official Neon provider's
// acceptance test of neon_project_permission does
// (acc_project_permission_test.go).
func TestProjectPermissionsAreGrantedListedAndRevoked(t *testing.T) {
	v := newEnv(t, Options{})
	p := "/projects/" + v.project + "/permissions"
	emails := func() []string {
		t.Helper()
		var out []string
		for _, g := range digArray(t, v.do("GET", p, nil).JSON(), "project_permissions") {
			out = append(out, digString(t, g, "granted_to_email"))
		}
		return out
	}
	if got := emails(); len(got) != 0 {
		t.Fatalf("a new project is shared with %v", got)
	}
	r := v.do("POST", p, map[string]any{"email": "foo@bar.baz"})
	wantStatus(t, r, http.StatusOK)
	grant := r.JSON()
	id := digString(t, grant, "id")
	if grant["granted_to_email"] != "foo@bar.baz" || digString(t, grant, "granted_at") == "" || grant["revoked_at"] != nil {
		t.Errorf("grant = %v", grant)
	}
	wantStatus(t, v.do("POST", p, map[string]any{"email": "other@bar.baz"}), http.StatusOK)
	wantError(t, v.do("POST", p, map[string]any{"email": "Foo@Bar.baz"}), http.StatusConflict, "project "+v.project+" is already shared with that email")
	if got := emails(); len(got) != 2 || got[0] != "foo@bar.baz" || got[1] != "other@bar.baz" {
		t.Errorf("shared with %v", got)
	}

	r = v.do("DELETE", p+"/"+id, nil)
	wantStatus(t, r, http.StatusOK)
	if revoked := r.JSON(); revoked["id"] != id || digString(t, revoked, "revoked_at") == "" {
		t.Errorf("revoked = %v", revoked)
	}
	if got := emails(); len(got) != 1 || got[0] != "other@bar.baz" {
		t.Errorf("after the revocation, shared with %v", got)
	}
	wantError(t, v.do("DELETE", p+"/"+id, nil), http.StatusNotFound, "permission "+id+" not found")
	wantError(t, v.do("POST", p, map[string]any{"email": "not-an-email"}), http.StatusBadRequest, "email")
	wantError(t, v.do("GET", "/projects/no-such-project/permissions", nil), http.StatusNotFound, "project not found")
}
