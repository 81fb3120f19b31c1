package emulator

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The JWKS a project trusts: added once per URL and branch scope, listed
// with what was asked (and the default roles), verified without the
// network unless told to fetch, and deleted by id.

func (v *env) addJWKS(body map[string]any) *response {
	v.t.Helper()
	return v.do("POST", "/projects/"+v.project+"/jwks", body)
}

func TestJWKSAddListDelete(t *testing.T) {
	v := newEnv(t, Options{})
	const google = "https://www.googleapis.com/oauth2/v3/certs"
	r := v.addJWKS(map[string]any{"jwks_url": google, "provider_name": "Google"})
	wantStatus(t, r, http.StatusCreated)
	var added neonapi.JWKSCreationOperation
	r.Decode(&added)
	j := added.JWKS
	switch {
	case j.ProjectID != v.project || j.JWKSURL != google || j.ProviderName != "Google":
		t.Errorf("added %+v, want the project, URL and provider asked for", j)
	case j.BranchID != nil || j.JwtAudience != nil:
		t.Errorf("added with branch_id %v and jwt_audience %v that were not asked for", j.BranchID, j.JwtAudience)
	case strings.Join(*j.RoleNames, ",") != "authenticator,authenticated,anonymous":
		t.Errorf("role_names %v, want the default roles", *j.RoleNames)
	}
	for _, op := range added.Operations {
		if op.Status != neonapi.OperationStatusFinished || op.Action != neonapi.OperationActionApplyConfig {
			t.Errorf("operation %+v: want a finished apply_config", op)
		}
	}
	if len(added.Operations) == 0 {
		t.Error("no operation: the computes apply the configuration")
	}
	wantStatus(t, v.addJWKS(map[string]any{"jwks_url": google, "provider_name": "Google"}), http.StatusConflict)
	// The same URL for one branch is another scope.
	wantStatus(t, v.addJWKS(map[string]any{"jwks_url": google, "provider_name": "Google", "branch_id": v.branch}), http.StatusCreated)
	var list neonapi.ProjectJWKSResponse
	v.do("GET", "/projects/"+v.project+"/jwks", nil).Decode(&list)
	if len(list.JWKS) != 2 || list.JWKS[0].ID != j.ID {
		t.Fatalf("listed %+v, want the two added, in order", list.JWKS)
	}
	wantStatus(t, v.do("DELETE", "/projects/"+v.project+"/jwks/"+j.ID, nil), http.StatusOK)
	wantStatus(t, v.do("DELETE", "/projects/"+v.project+"/jwks/"+j.ID, nil), http.StatusNotFound)
	wantStatus(t, v.addJWKS(map[string]any{"jwks_url": google, "provider_name": "Google", "branch_id": "br-nope"}), http.StatusNotFound)
}

// Offline, a bare origin and a Neon Auth JWKS that no integration publishes
// are refused; the JWKS of an integration the emulator serves is accepted.
func TestJWKSIsVerifiedOffline(t *testing.T) {
	v := newEnv(t, Options{})
	for _, bad := range []string{"https://bar.com", "https://bar.com/", "http://example.com/jwks.json", "not a url",
		"https://" + v.branch + ".neonauth.us-east-2.aws.neon.tech/neondb/auth/.well-known/jwks.json"} {
		if r := v.addJWKS(map[string]any{"jwks_url": bad, "provider_name": "foo"}); r.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", bad, r.Status, r.Body)
		}
	}
	v.enableOn(v.branch, "better_auth")
	auth, _ := v.e.BranchAuth(v.project, v.branch)
	wantStatus(t, v.addJWKS(map[string]any{"jwks_url": auth.JWKSURL, "provider_name": "Neon Auth"}), http.StatusCreated)
}

// With a client to fetch with, the URL must answer a key set.
func TestJWKSIsFetchedWhenToldTo(t *testing.T) {
	idp := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/jwks.json":
			_, _ = w.Write([]byte(`{"keys":[{"kty":"RSA","kid":"1","n":"AQAB","e":"AQAB"}]}`))
		case "/empty.json":
			_, _ = w.Write([]byte(`{"keys":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer idp.Close()
	v := newEnv(t, Options{FetchJWKS: idp.Client()})
	for path, want := range map[string]int{"/.well-known/jwks.json": http.StatusCreated, "/empty.json": http.StatusBadRequest,
		"/missing.json": http.StatusBadRequest} {
		if r := v.addJWKS(map[string]any{"jwks_url": idp.URL + path, "provider_name": "IdP"}); r.Status != want {
			t.Errorf("%s: %d %s, want %d", path, r.Status, r.Body, want)
		}
	}
}
