package emulator

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

const seedHCL = `
project "app" {
  id = "app-project-00000001"
  branch "main" {
    neon_auth {
      domains = ["https://App.Example.com/"]
    }
  }
  branch "preview" {
    id     = "br-preview-00000002"
    parent = "main"
    neon_auth {
      domains = ["https://pr-1.preview.example.com"]
    }
  }
  branch "legacy" {
    init_source = "schema-only"
    neon_auth {
      auth_provider = "stack"
    }
  }
}

project "other" {}

api_key "ci" {
  token   = "ciprojectkeyciprojectkey0001"
  type    = "project"
  project = "app"
}

api_key "admin" {
  token = "adminkeyadminkeyadminkey0001"
  type  = "organization"
}
`

// The same seed in HCL's JSON form.
const seedJSON = `{
  "project": {
    "app": {
      "id": "app-project-00000001",
      "branch": {
        "main": {"neon_auth": {"domains": ["https://App.Example.com/"]}},
        "preview": {"id": "br-preview-00000002", "parent": "main", "neon_auth": {"domains": ["https://pr-1.preview.example.com"]}},
        "legacy": {"init_source": "schema-only", "neon_auth": {"auth_provider": "stack"}}
      }
    },
    "other": {}
  },
  "api_key": {
    "ci": {"token": "ciprojectkeyciprojectkey0001", "type": "project", "project": "app"},
    "admin": {"token": "adminkeyadminkeyadminkey0001", "type": "organization"}
  }
}`

func TestSeedInHCLOrJSONIsTheStartingState(t *testing.T) {
	for name, src := range map[string]string{"seed.hcl": seedHCL, "seed.json": seedJSON} {
		t.Run(name, func(t *testing.T) {
			s, err := ParseSeed(name, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			v := newEnv(t, Options{Seed: s})
			checkSeededState(t, v)
		})
	}
}

// checkSeededState checks the state seedHCL describes, through the API.
func checkSeededState(t *testing.T, v *env) {
	t.Helper()
	if got := v.e.ProjectIDs(); len(got) != 2 || got[0] != "app-project-00000001" {
		t.Fatalf("projects = %v; want app-project-00000001 and one generated id", got)
	}
	// The project key sees its project only; the organization key both.
	for key, want := range map[string]int{"ciprojectkeyciprojectkey0001": 1, "adminkeyadminkeyadminkey0001": 2} {
		r := v.call(key, "GET", "/projects", nil)
		projects, _ := r.JSON()["projects"].([]any)
		if r.Status != http.StatusOK || len(projects) != want {
			t.Errorf("GET /projects with the seeded key = %d, %d projects; want 200, %d", r.Status, len(projects), want)
		}
	}
	branches := v.e.Branches("app-project-00000001")
	if len(branches) != 3 || branches[1].ID != "br-preview-00000002" || branches[1].ParentID != branches[0].ID || branches[1].Name != "preview" {
		t.Fatalf("branches = %+v", branches)
	}
	main, ok := v.e.BranchAuth("app-project-00000001", branches[0].ID)
	if !ok || main.AuthProvider != authProviderBetterAuth || len(main.Domains) != 1 || main.Domains[0].Domain != "https://app.example.com" {
		t.Errorf("Neon Auth of main = %+v, %v; want better_auth with the canonical domain", main.Integration, main.Domains)
	}
	// The child starts with a copy of main's Better Auth, with its own
	// endpoint named after its fixed id, and the domain its block pre-sets.
	preview, ok := v.e.BranchAuth("app-project-00000001", "br-preview-00000002")
	if !ok || preview.AuthProvider != authProviderBetterAuth || preview.BranchID != "br-preview-00000002" ||
		!strings.HasPrefix(preview.BaseURL, "https://br-preview-00000002.") ||
		domainsOf(preview) != "https://app.example.com https://pr-1.preview.example.com" {
		t.Errorf("Neon Auth of preview = %+v, %v; want main's copied, on its own endpoint, with the pre-set domain", preview.Integration, preview.Domains)
	}
	// A schema-only branch is a root branch: no parent, no copy; its own
	// block enables Stack Auth.
	legacy, ok := v.e.BranchAuth("app-project-00000001", branches[2].ID)
	if branches[2].ParentID != "" || branches[2].InitSource != "schema-only" || !ok || legacy.AuthProvider != authProviderStack ||
		legacy.PubClientKey == "" || len(legacy.Domains) != 0 {
		t.Errorf("legacy branch = %+v, Neon Auth %+v; want a root branch with its own Stack Auth", branches[2], legacy.Integration)
	}
	r := v.call("ciprojectkeyciprojectkey0001", "GET", "/projects/app-project-00000001/branches/"+branches[2].ID+"/auth", nil)
	if r.Status != http.StatusOK || r.JSON()["auth_provider"] != authProviderStack {
		t.Errorf("GET branch auth = %d %s", r.Status, r.Body)
	}
}

func TestSeedMistakesAreReportedWithTheirLine(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"syntax.hcl", `project "a" {
  id =
}
`, []string{"syntax.hcl:2:"}},
		{"unknown.hcl", `project "a" {
  region = "x"
}
`, []string{"unknown.hcl:2:3", `"region"`}},
		{"dup.hcl", `project "a" {}

project "a" {}
`, []string{"dup.hcl:3:", `project "a" is already defined at line 1`}},
		{"provider.hcl", `project "a" {
  branch "main" {
    neon_auth {
      auth_provider = "okta"
    }
  }
}
`, []string{"provider.hcl:4:23", `auth_provider must be one of mock, stack, better_auth, got "okta"`}},
		{"domain.hcl", `project "a" {
  branch "main" {
    neon_auth {
      domains = ["ftp://x"]
    }
  }
}
`, []string{"domain.hcl:4:", `domain "ftp://x"`}},
		{"parent.hcl", `project "a" {
  branch "b" {
    parent = "nope"
  }
}
`, []string{"parent.hcl:3:14", `parent "nope" must be "main" or a branch defined above it`}},
		{"inherits.hcl", `project "a" {
  branch "main" {
    neon_auth {}
  }
  branch "b" {
    neon_auth {
      auth_provider = "stack"
    }
  }
}
`, []string{"inherits.hcl:7:23", `branch "b" starts with a copy of the Better Auth of its parent "main"`, `init_source = "schema-only"`}},
		{"initsource.hcl", `project "a" {
  branch "b" {
    init_source = "empty"
  }
}
`, []string{"initsource.hcl:3:19", `init_source must be "parent-data" or "schema-only", got "empty"`}},
		{"keytype.hcl", `api_key "k" {
  token = "0123456789abcdef0"
  type  = "admin"
}
`, []string{"keytype.hcl:3:11", `type must be "personal", "organization" or "project"`}},
		{"short.hcl", `api_key "k" {
  token = "short"
  type  = "personal"
}
`, []string{"short.hcl:2:11", "at least 16 characters"}},
		{"keyproject.hcl", `project "a" {}
api_key "k" {
  token   = "0123456789abcdef0"
  type    = "project"
  project = "b"
}
`, []string{"keyproject.hcl:5:13", `needs project = the label of a project block ("a")`}},
		{"missing.hcl", `api_key "k" {
  type = "personal"
}
`, []string{"missing.hcl:1:", `"token" is required`}},
		{"dupid.hcl", `project "a" {
  id = "same"
}
project "b" {
  id = "same"
}
`, []string{"dupid.hcl:5:8", "already used at line 2"}},
		{"bad.json", `{
  "project": {
    "a": {"size": 3}
  }
}`, []string{"bad.json:3:", `"size"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSeed(tc.name, []byte(tc.src))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error = %q; want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestResetGoesBackToTheSeed(t *testing.T) {
	s, err := ParseSeed("seed.hcl", []byte(seedHCL))
	if err != nil {
		t.Fatal(err)
	}
	v := newEnv(t, Options{Seed: s})
	if _, err := v.e.CreateProject("later"); err != nil {
		t.Fatal(err)
	}
	if err := v.e.RevokeKey("ciprojectkeyciprojectkey0001"); err != nil {
		t.Fatal(err)
	}
	if err := v.e.disableBranchAuth("app-project-00000001", "br-preview-00000002"); err != nil {
		t.Fatal(err)
	}
	if r := v.control("POST", "/reset", nil); r.Status != http.StatusNoContent {
		t.Fatalf("POST /_emulator/reset = %d %s", r.Status, r.Body)
	}
	checkSeededState(t, v)
	if r := v.call(v.key, "GET", "/projects", nil); r.Status != http.StatusOK {
		t.Errorf("the bootstrap key after a reset: %d", r.Status)
	}
}

func TestSeedLoadedAtRunTimeBecomesTheResetPoint(t *testing.T) {
	v := newEnv(t, Options{})
	if r := v.putSeed(seedHCL); r.Status != http.StatusNoContent {
		t.Fatalf("PUT /_emulator/seed = %d %s", r.Status, r.Body)
	}
	checkSeededState(t, v)
	r := v.putSeed(`project "a" {
  nope = 1
}
`)
	if r.Status != http.StatusBadRequest || !strings.Contains(r.Message(), "seed.hcl:2:3") {
		t.Errorf("PUT of a bad seed = %d %q; want 400 naming line 2", r.Status, r.Body)
	}
	if _, err := v.e.CreateProject("later"); err != nil {
		t.Fatal(err)
	}
	v.control("POST", "/reset", nil)
	checkSeededState(t, v)
}

// putSeed sends a seed as it is (not JSON-encoded) to PUT /_emulator/seed.
func (v *env) putSeed(src string) *response {
	req := httptest.NewRequest(http.MethodPut, "http://emulator"+controlPrefix+"/seed", strings.NewReader(src))
	rec := httptest.NewRecorder()
	v.e.ServeHTTP(rec, req)
	return &response{t: v.t, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

func TestSeedAppliesOnlyToANewStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s, err := ParseSeed("seed.hcl", []byte(seedHCL))
	if err != nil {
		t.Fatal(err)
	}
	first, err := New(Options{StateFile: path, Seed: s})
	if err != nil {
		t.Fatal(err)
	}
	p, err := first.CreateProject("added-after-the-seed")
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	other, err := ParseSeed("other.hcl", []byte(`project "different" {}`))
	if err != nil {
		t.Fatal(err)
	}
	second, err := New(Options{StateFile: path, Seed: other})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	ids := second.ProjectIDs()
	if len(ids) != 3 || ids[0] != "app-project-00000001" || ids[2] != p.ID {
		t.Errorf("projects after a restart with another seed = %v; want the state file's three", ids)
	}
}

// A seed's Data APIs and JWKS: a branch made from one with a Data API starts
// with a copy, and the JWKS are the project's.
func TestSeedDataAPIsAndJWKS(t *testing.T) {
	seed, err := ParseSeed("seed.hcl", []byte(`
project "app" {
  branch "main" {
    neon_auth {}
    data_api "neondb" {
      auth_provider = "neon_auth"
    }
  }
  branch "preview" {}
  branch "external" {
    init_source = "schema-only"
    data_api "neondb" {
      auth_provider = "external"
      jwks_url      = "https://example.clerk.accounts.dev/.well-known/jwks.json"
      provider_name = "Clerk"
    }
  }
  jwks "Clerk" {
    jwks_url = "https://example.clerk.accounts.dev/.well-known/jwks.json"
  }
  jwks "Auth0" {
    jwks_url = "https://example.eu.auth0.com/.well-known/jwks.json"
    branch   = "preview"
  }
}
`))
	if err != nil {
		t.Fatal(err)
	}
	v := newEnv(t, Options{Seed: seed})
	for _, b := range v.e.Branches(v.project) {
		if _, status := v.dataAPIOf(b.ID, "neondb"); status != http.StatusOK {
			t.Errorf("branch %s: GET …/data-api/neondb = %d, want 200", b.Name, status)
		}
	}
	var list struct {
		JWKS []struct {
			ProviderName string  `json:"provider_name"`
			BranchID     *string `json:"branch_id"`
		} `json:"jwks"`
	}
	v.do("GET", "/projects/"+v.project+"/jwks", nil).Decode(&list)
	if len(list.JWKS) != 2 || list.JWKS[0].BranchID != nil || list.JWKS[1].BranchID == nil {
		t.Errorf("the project's JWKS: %+v, want Clerk's for every branch and Auth0's for preview", list.JWKS)
	}
}

func TestSeedDataAPIMistakes(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"a database seeds lack", `project "p" {
  branch "main" {
    data_api "shop" {}
  }
}`, `a seed branch has the database "neondb" only, not "shop"`},
		{"neon_auth without Neon Auth", `project "p" {
  branch "main" {
    data_api "neondb" {
      auth_provider = "neon_auth"
    }
  }
}`, `branch "main" has no Neon Auth for auth_provider = "neon_auth"`},
		{"external without a JWKS URL", `project "p" {
  branch "main" {
    data_api "neondb" {
      auth_provider = "external"
    }
  }
}`, `auth_provider "external" needs jwks_url`},
		{"a Data API the branch inherits", `project "p" {
  branch "main" {
    data_api "neondb" {}
  }
  branch "preview" {
    data_api "neondb" {}
  }
}`, `branch "preview" starts with a copy of the Data API of neondb on its parent "main"`},
		{"a JWKS of an unknown branch", `project "p" {
  jwks "Clerk" {
    jwks_url = "https://example.clerk.accounts.dev/.well-known/jwks.json"
    branch   = "nope"
  }
}`, `branch "nope" is no branch of project "p"`},
	} {
		_, err := ParseSeed("seed.hcl", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "seed.hcl:") {
			t.Errorf("%s: %v, want an error with its line saying %q", c.name, err, c.want)
		}
	}
}
