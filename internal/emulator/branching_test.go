package emulator

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// Neon Auth branches with the database: a branch created from a parent with
// Better Auth starts with an independent copy of it.

// domainsOf is a branch's trusted domains, space-separated, in list order.
func domainsOf(a BranchAuth) string {
	var out []string
	for _, d := range a.Domains {
		out = append(out, d.Domain)
	}
	return strings.Join(out, " ")
}

// configureEverything gives a branch's Better Auth a value of every kind
// that branching copies, through the API.
func (v *env) configureEverything(branch string) {
	v.t.Helper()
	base := v.branchAuthPath(branch)
	v.enableOn(branch, "better_auth")
	for _, w := range []struct {
		method, path string
		body         any
	}{
		{"PATCH", "/config", map[string]any{"name": "Acme"}},
		{"PATCH", "/allow_localhost", map[string]any{"allow_localhost": false}},
		{"POST", "/domains", map[string]any{"domain": "https://app.example.com", "auth_provider": "better_auth"}},
		{"POST", "/oauth_providers", map[string]any{"id": "google", "client_id": "prod-cid", "client_secret": "prod-secret"}},
		{"POST", "/oauth_providers", map[string]any{"id": "github"}},
		{"PATCH", "/email_provider", map[string]any{"type": "standard", "host": "smtp.example.com", "port": 465, "username": "mailer",
			"password": "smtp-secret", "sender_email": "auth@example.com", "sender_name": "Acme"}},
	} {
		r := v.do(w.method, base+w.path, w.body)
		if r.Status >= 300 {
			v.t.Fatalf("%s %s = %d %s", w.method, w.path, r.Status, r.Body)
		}
	}
	v.writeEverySetting(branch, func(s settingSpec) any { return s.example })
	r := v.do("POST", base+"/users", map[string]any{"email": "ada@example.com", "name": "Ada"})
	wantStatus(v.t, r, http.StatusCreated)
	wantStatus(v.t, v.do("PUT", base+"/users/"+digString(v.t, r.JSON(), "id")+"/role", map[string]any{"roles": []string{"admin"}}), http.StatusOK)
	wantStatus(v.t, v.do("POST", base+"/email_provider/test", map[string]any{"recipient_email": "ops@example.com"}), http.StatusOK)
}

// writeEverySetting writes each Better Auth setting of a branch with the
// body pick takes from its spec.
func (v *env) writeEverySetting(branch string, pick func(settingSpec) any) {
	v.t.Helper()
	for _, st := range betterauth.Settings {
		r := v.do(st.Write, v.settingPath(branch, st), pick(specOf(v.t, st)))
		if r.Status >= 300 {
			v.t.Fatalf("%s %s = %d %s", st.Write, st.Path, r.Status, r.Body)
		}
	}
}

// lastChange is the last successful write of a spec's steps: a change from
// its example.
func lastChange(s settingSpec) any {
	var body any
	for _, step := range s.steps {
		if step.error == "" {
			body = step.body
		}
	}
	return body
}

// authJSON is a branch's whole Neon Auth as stored, for byte-for-byte
// comparisons.
func (v *env) authJSON(branch string) string {
	v.t.Helper()
	a, ok := v.e.BranchAuth(v.project, branch)
	if !ok {
		v.t.Fatalf("branch %s has no Neon Auth", branch)
	}
	b, err := json.Marshal(a)
	if err != nil {
		v.t.Fatal(err)
	}
	return string(b)
}

func TestANewBranchStartsWithACopyOfItsParentsBetterAuth(t *testing.T) {
	v := newEnv(t, Options{})
	v.configureEverything(v.branch)
	parent, _ := v.e.BranchAuth(v.project, v.branch)
	preview := v.createBranch(map[string]any{"branch": map[string]any{"name": "preview"}})
	child, ok := v.e.BranchAuth(v.project, preview)
	if !ok {
		t.Fatal("the preview branch has no Neon Auth")
	}

	// Its own auth endpoint and auth project; everything else as the parent
	// had it when the branch was made, test emails aside (they are a log of
	// mails sent, not auth data).
	if child.BranchID != preview || child.BaseURL == parent.BaseURL || !strings.HasPrefix(child.BaseURL, "https://"+preview+".neonauth.") ||
		child.JWKSURL != child.BaseURL+"/.well-known/jwks.json" || child.AuthProviderProjectID == parent.AuthProviderProjectID {
		t.Errorf("child integration = %+v; want its own branch id, base_url, jwks_url and auth project", child.Integration)
	}
	if len(child.TestEmails) != 0 || len(parent.TestEmails) != 1 {
		t.Errorf("test emails: parent %d, child %d; want 1 and 0", len(parent.TestEmails), len(child.TestEmails))
	}
	want := parent
	want.Integration = child.Integration
	want.Name, want.DBName = parent.Name, parent.DBName
	want.TestEmails = nil
	if !reflect.DeepEqual(child, want) {
		t.Errorf("child Neon Auth =\n%+v\nwant the parent's\n%+v", child, want)
	}
	if child.Name != "Acme" || child.AllowLocalhost || domainsOf(child) != "https://app.example.com" ||
		child.OAuthProviders[0].ClientSecret != "prod-secret" || child.EmailProvider.Password != "smtp-secret" ||
		len(child.Users) != 1 || child.Users[0].ID != parent.Users[0].ID || !slices.Equal(child.Users[0].Roles, []string{"admin"}) ||
		reflect.DeepEqual(child.Settings, defaultSettings()) {
		t.Errorf("child Neon Auth = %+v; want every part copied", child)
	}

	// The API tells the same: GET …/auth answers the child's own endpoint,
	// and the lists answer the copies.
	got := v.do("GET", v.branchAuthPath(preview), nil).JSON()
	if got["branch_id"] != preview || got["base_url"] != child.BaseURL || got["name"] != "Acme" {
		t.Errorf("GET …/auth of the child = %v", got)
	}
	if body := string(v.do("GET", v.branchAuthPath(preview)+"/domains", nil).Body); !strings.Contains(body, "https://app.example.com") {
		t.Errorf("domains of the child = %s", body)
	}
}

func TestTheCopiesAreIndependentInBothDirections(t *testing.T) {
	v := newEnv(t, Options{})
	v.configureEverything(v.branch)
	preview := v.createBranch(map[string]any{"branch": map[string]any{"name": "preview"}})
	parentBefore, childBefore := v.authJSON(v.branch), v.authJSON(preview)

	t.Run("a change on the child leaves the parent as it was", func(t *testing.T) {
		base := v.branchAuthPath(preview)
		wantStatus(t, v.do("DELETE", base+"/domains", map[string]any{"auth_provider": "better_auth",
			"domains": []map[string]any{{"domain": "https://app.example.com"}}}), http.StatusOK)
		wantStatus(t, v.do("POST", base+"/domains", map[string]any{"domain": "https://pr-1.example.com", "auth_provider": "better_auth"}), http.StatusCreated)
		wantStatus(t, v.do("DELETE", base+"/oauth_providers/github", nil), http.StatusOK)
		wantStatus(t, v.do("PATCH", base+"/oauth_providers/google", map[string]any{"client_id": "pr-cid", "client_secret": "pr-secret"}), http.StatusOK)
		v.writeEverySetting(preview, lastChange)
		wantStatus(t, v.do("PATCH", base+"/config", map[string]any{"name": "Acme preview"}), http.StatusOK)
		wantStatus(t, v.do("POST", base+"/users", map[string]any{"email": "tester@example.com"}), http.StatusCreated)
		if got := v.authJSON(v.branch); got != parentBefore {
			t.Errorf("the parent changed:\nbefore %s\nafter  %s", parentBefore, got)
		}
		if got := v.authJSON(preview); got == childBefore {
			t.Error("the child did not change")
		}
	})
	t.Run("a change on the parent leaves the child as it was", func(t *testing.T) {
		childNow := v.authJSON(preview)
		base := v.branchAuthPath(v.branch)
		wantStatus(t, v.do("POST", base+"/domains", map[string]any{"domain": "https://admin.example.com", "auth_provider": "better_auth"}), http.StatusCreated)
		v.writeEverySetting(v.branch, lastChange)
		wantStatus(t, v.do("POST", base+"/users", map[string]any{"email": "bob@example.com"}), http.StatusCreated)
		if got := v.authJSON(preview); got != childNow {
			t.Errorf("the child changed:\nbefore %s\nafter  %s", childNow, got)
		}
	})
	t.Run("disabling the child's Neon Auth leaves the parent's", func(t *testing.T) {
		parentNow := v.authJSON(v.branch)
		wantStatus(t, v.do("DELETE", v.branchAuthPath(preview), nil), http.StatusOK)
		if got := v.authJSON(v.branch); got != parentNow {
			t.Errorf("the parent changed:\nbefore %s\nafter  %s", parentNow, got)
		}
	})
}

func TestAGrandchildCopiesItsParentNotTheRoot(t *testing.T) {
	v := newEnv(t, Options{})
	v.configureEverything(v.branch)
	staging := v.createBranch(map[string]any{"branch": map[string]any{"name": "staging"}})
	wantStatus(t, v.do("POST", v.branchAuthPath(staging)+"/domains", map[string]any{"domain": "https://staging.example.com", "auth_provider": "better_auth"}), http.StatusCreated)
	feature := v.createBranch(map[string]any{"branch": map[string]any{"name": "feature", "parent_id": staging}})
	a, _ := v.e.BranchAuth(v.project, feature)
	if domainsOf(a) != "https://app.example.com https://staging.example.com" {
		t.Errorf("domains of the grandchild = %q; want staging's", domainsOf(a))
	}
}

// What Neon does not document, the emulator decides (see BranchAuth.inheritedBy
// and state.addBranch): a Stack Auth integration is a project outside the
// database and is not copied; a schema-only branch is a root branch, which
// copies no data, so no Neon Auth.
func TestBranchesThatStartWithoutNeonAuth(t *testing.T) {
	t.Run("from a Stack Auth parent", func(t *testing.T) {
		v := newEnv(t, Options{})
		v.integrate()
		preview := v.createBranch(map[string]any{"branch": map[string]any{"name": "preview"}})
		if _, ok := v.e.BranchAuth(v.project, preview); ok {
			t.Error("the branch of a Stack Auth parent has Neon Auth")
		}
		wantError(t, v.do("GET", v.branchAuthPath(preview), nil), http.StatusNotFound, "Neon Auth is not enabled")
	})
	t.Run("schema-only", func(t *testing.T) {
		v := newEnv(t, Options{})
		v.configureEverything(v.branch)
		id := v.createBranch(map[string]any{"branch": map[string]any{"name": "schema", "init_source": "schema-only"}})
		got, _ := dig(t, v.do("GET", "/projects/"+v.project+"/branches/"+id, nil).JSON(), "branch").(map[string]any)
		if _, hasParent := got["parent_id"]; hasParent || got["init_source"] != "schema-only" {
			t.Errorf("branch = %v; want a root branch (no parent_id)", got)
		}
		if _, ok := v.e.BranchAuth(v.project, id); ok {
			t.Error("the schema-only branch has Neon Auth")
		}
		if bs := v.e.Branches(v.project); len(bs[1].Databases) != 1 || len(bs[1].Roles) != 1 {
			t.Errorf("schema-only branch = %+v; want the parent's databases and roles", bs[1])
		}
	})
}

func TestTheControlSurfacePresetsDomainsOnANewBranch(t *testing.T) {
	v := newEnv(t, Options{})
	path := "/projects/" + v.project + "/branches"
	wantError(t, v.control("POST", path, map[string]any{"name": "pr-1", "domains": []string{"https://pr-1.vercel.app"}}),
		http.StatusBadRequest, "emulator: invalid argument: domains: the new branch starts without Neon Auth")

	v.configureEverything(v.branch)
	parentBefore := v.authJSON(v.branch)
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		prefix string
	}{
		{"a domain that is not an origin", map[string]any{"name": "x", "domains": []string{"https://a.example.com/path"}}, 400, "emulator: invalid argument: domains[0]: "},
		{"an unknown parent", map[string]any{"parent_id": "br-nope", "domains": []string{"https://a.example.com"}}, 404, "emulator: not found: parent branch"},
		{"a name taken", map[string]any{"name": "main"}, 409, `emulator: already exists: a branch named "main"`},
		{"an unknown field", map[string]any{"colour": "red"}, 400, "invalid JSON body"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantError(t, v.control("POST", path, tc.body), tc.status, tc.prefix) })
	}
	if n := len(v.e.Branches(v.project)); n != 1 {
		t.Fatalf("refused requests created branches: %d", n)
	}

	r := v.control("POST", path, map[string]any{"name": "pr-1", "domains": []string{"https://PR-1.vercel.app/", "https://app.example.com"}})
	wantStatus(t, r, http.StatusCreated)
	id := digString(t, r.JSON(), "branch", "id")
	if digString(t, r.JSON(), "neon_auth", "email_provider", "password") != maskSet {
		t.Errorf("the answer shows a secret unmasked: %s", r.Body)
	}
	a, _ := v.e.BranchAuth(v.project, id)
	if domainsOf(a) != "https://app.example.com https://pr-1.vercel.app" {
		t.Errorf("domains = %q; want the inherited one and the pre-set one, canonical, once each", domainsOf(a))
	}
	if got := v.authJSON(v.branch); got != parentBefore {
		t.Errorf("the parent changed:\nbefore %s\nafter  %s", parentBefore, got)
	}
}

// A seed creates the default branch first, so a branch declared above it
// still copies its Neon Auth; a schema-only branch of the seed copies none.
func TestASeedBranchCopiesItsParentWhereverItIsDeclared(t *testing.T) {
	s, err := ParseSeed("seed.hcl", []byte(`
project "app" {
  branch "pr-1" {
    neon_auth {
      domains = ["https://pr-1.example.com"]
    }
  }
  branch "schema" {
    init_source = "schema-only"
  }
  branch "main" {
    neon_auth {
      domains = ["https://app.example.com"]
    }
  }
}
`))
	if err != nil {
		t.Fatal(err)
	}
	v := newEnv(t, Options{Seed: s})
	bs := v.e.Branches(v.project)
	if len(bs) != 3 || bs[1].Name != "pr-1" || bs[1].ParentID != bs[0].ID || bs[2].ParentID != "" {
		t.Fatalf("branches = %+v", bs)
	}
	if a, ok := v.e.BranchAuth(v.project, bs[1].ID); !ok || domainsOf(a) != "https://app.example.com https://pr-1.example.com" {
		t.Errorf("pr-1 Neon Auth = %v, domains %q; want main's copy with its own domain", ok, domainsOf(a))
	}
	if _, ok := v.e.BranchAuth(v.project, bs[2].ID); ok {
		t.Error("the schema-only branch has Neon Auth")
	}
}
