package emulator

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// createBranch creates a branch through the API and returns its id.
func (v *env) createBranch(body any) string {
	v.t.Helper()
	r := v.do("POST", "/projects/"+v.project+"/branches", body)
	wantStatus(v.t, r, http.StatusCreated)
	id, _ := r.JSON()["branch"].(map[string]any)["id"].(string)
	return id
}

func TestCreateBranch(t *testing.T) {
	v := newEnv(t, Options{})
	path := "/projects/" + v.project + "/branches"

	t.Run("without a body: a child of the production branch, named after its id", func(t *testing.T) {
		r := v.do("POST", path, nil)
		wantStatus(t, r, http.StatusCreated)
		var out struct {
			Branch     map[string]any
			Endpoints  []any
			Operations []map[string]any
			Roles      []map[string]any
			Databases  []map[string]any
		}
		r.Decode(&out)
		if out.Branch["parent_id"] != v.branch || out.Branch["name"] != out.Branch["id"] || out.Branch["default"] != false {
			t.Errorf("branch = %v", out.Branch)
		}
		if len(out.Endpoints) != 0 || len(out.Operations) != 1 || out.Operations[0]["status"] != "finished" ||
			out.Operations[0]["action"] != "create_branch" {
			t.Errorf("endpoints %v, operations %v", out.Endpoints, out.Operations)
		}
		if len(out.Roles) != 1 || out.Roles[0]["name"] != "neondb_owner" || len(out.Databases) != 1 || out.Databases[0]["name"] != "neondb" {
			t.Errorf("roles %v, databases %v: want the parent's", out.Roles, out.Databases)
		}
	})
	t.Run("a named child of another branch, with a copy of its Neon Auth", func(t *testing.T) {
		v.enableOn(v.branch, "better_auth")
		parent := v.createBranch(map[string]any{"branch": map[string]any{"name": "staging"}})
		child := v.createBranch(map[string]any{"branch": map[string]any{"name": "feature", "parent_id": parent, "protected": true}, "endpoints": []any{}})
		got, _ := dig(t, v.do("GET", path+"/"+child, nil).JSON(), "branch").(map[string]any)
		if got["name"] != "feature" || got["parent_id"] != parent || got["protected"] != true {
			t.Errorf("branch = %v", got)
		}
		if a, ok := v.e.BranchAuth(v.project, child); !ok || a.AuthProvider != "better_auth" || a.BranchID != child {
			t.Errorf("the child's Neon Auth = %+v, %v; want a copy of its parent's Better Auth", a.Integration, ok)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		cases := []struct {
			name   string
			body   any
			status int
			prefix string
		}{
			{"a name taken", map[string]any{"branch": map[string]any{"name": "main"}}, 409, `a branch named "main" already exists`},
			{"an unknown parent", map[string]any{"branch": map[string]any{"parent_id": "br-nope"}}, 404, "branch.parent_id: "},
			{"an empty name", map[string]any{"branch": map[string]any{"name": ""}}, 400, "branch.name: "},
			{"a long name", map[string]any{"branch": map[string]any{"name": strings.Repeat("b", 257)}}, 400, "branch.name: "},
			{"an endpoint without type", map[string]any{"endpoints": []any{map[string]any{}}}, 400, "endpoints[0].type: is required"},
			{"an endpoint of an unknown type", map[string]any{"endpoints": []any{map[string]any{"type": "primary"}}}, 400, "endpoints[0].type: value is not one of the allowed values"},
			{"a malformed LSN", map[string]any{"branch": map[string]any{"parent_lsn": "yesterday"}}, 400, "branch.parent_lsn: "},
			{"a malformed timestamp", map[string]any{"branch": map[string]any{"parent_timestamp": "26/02/2024"}}, 400, "branch.parent_timestamp: "},
			{"an LSN and a timestamp", map[string]any{"branch": map[string]any{"parent_lsn": "0/1F00000", "parent_timestamp": "2024-02-26T12:00:00Z"}}, 400, "branch.parent_timestamp: give either"},
			{"an unknown init source", map[string]any{"branch": map[string]any{"init_source": "empty"}}, 400, "branch.init_source: "},
			{"an expiry in the past", map[string]any{"branch": map[string]any{"expires_at": "2020-01-01T00:00:00Z"}}, 400, "branch.expires_at: must be in the future"},
			{"archived not a boolean", map[string]any{"branch": map[string]any{"archived": "yes"}}, 400, "branch.archived: "},
			{"an annotation value not a string", map[string]any{"annotation_value": map[string]any{"k": 1}}, 400, "annotation_value.k: value must be a string"},
			{"an unknown field", map[string]any{"branch": map[string]any{"colour": "red"}}, 400, `branch: property "colour" is unsupported`},
			{"branch not an object", map[string]any{"branch": "dev"}, 400, "branch: value must be an object"},
		}
		before := len(v.e.Branches(v.project))
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, v.do("POST", path, tc.body), tc.status, tc.prefix)
			})
		}
		if after := len(v.e.Branches(v.project)); after != before {
			t.Errorf("refused requests created %d branches", after-before)
		}
	})
}

// What neon CLI sends (branches create: a read_write endpoint, an
// annotation) and the other fields of BranchCreateRequest are accepted:
// annotation_value, init_source and expires_at are stored and returned as
// the OpenAPI describes; the rest is ignored.
func TestCreateBranchAcceptsEveryFieldOfTheRequest(t *testing.T) {
	v := newEnv(t, Options{})
	path := "/projects/" + v.project + "/branches"
	expires := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Second).Format(time.RFC3339)
	r := v.do("POST", path, map[string]any{
		"branch": map[string]any{"name": "preview", "parent_lsn": "0/1F00000", "archived": false, "init_source": "schema-only",
			"expires_at": expires, "protected": false},
		"endpoints":        []any{map[string]any{"type": "read_write", "autoscaling_limit_min_cu": 0.25, "suspend_timeout_seconds": 300}},
		"annotation_value": map[string]string{"github-commit-ref": "feature/x", "created-by": "neonctl"},
	})
	wantStatus(t, r, http.StatusCreated)
	id := digString(t, r.JSON(), "branch", "id")
	got := v.do("GET", path+"/"+id, nil).JSON()
	branch, _ := got["branch"].(map[string]any)
	if branch["init_source"] != "schema-only" || branch["expires_at"] != expires {
		t.Errorf("branch = %v", branch)
	}
	ann, _ := got["annotation"].(map[string]any)
	if value, _ := ann["value"].(map[string]any); value["github-commit-ref"] != "feature/x" || value["created-by"] != "neonctl" {
		t.Errorf("annotation = %v", ann)
	}
	list := v.do("GET", path, nil).JSON()
	anns, _ := list["annotations"].(map[string]any)
	if a, _ := anns[id].(map[string]any); a == nil || fmt.Sprint(a["value"]) != fmt.Sprint(map[string]any{"created-by": "neonctl", "github-commit-ref": "feature/x"}) {
		t.Errorf("annotations of the list = %v", anns)
	}
	r = v.do("POST", path, map[string]any{"branch": map[string]any{"name": "at-a-time", "parent_timestamp": "2024-02-26T12:00:00Z"}})
	wantStatus(t, r, http.StatusCreated)
}

func TestDeleteBranch(t *testing.T) {
	v := newEnv(t, Options{})
	path := "/projects/" + v.project + "/branches/"

	t.Run("its Neon Auth goes with it", func(t *testing.T) {
		dev := v.createBranch(map[string]any{"branch": map[string]any{"name": "dev"}})
		v.enableOn(dev, "better_auth")
		wantStatus(t, v.do("POST", v.branchAuthPath(dev)+"/users", map[string]any{"email": "a@example.com"}), http.StatusCreated)
		r := v.do("DELETE", path+dev, nil)
		wantStatus(t, r, http.StatusOK)
		var out struct {
			Branch     map[string]any
			Operations []map[string]any
		}
		r.Decode(&out)
		if out.Branch["id"] != dev || len(out.Operations) != 1 || out.Operations[0]["action"] != "delete_timeline" {
			t.Errorf("response = %s", r.Body)
		}
		if _, ok := v.e.BranchAuth(v.project, dev); ok {
			t.Error("Neon Auth of the deleted branch is still there")
		}
		wantError(t, v.do("GET", v.branchAuthPath(dev), nil), http.StatusNotFound, "branch not found")
		wantError(t, v.do("GET", path+dev, nil), http.StatusNotFound, "branch not found")
		for _, b := range v.e.Branches(v.project) {
			if b.ID == dev {
				t.Error("the branch is still listed")
			}
		}
	})
	t.Run("a branch that is gone answers 204", func(t *testing.T) {
		r := v.do("DELETE", path+"br-never-existed", nil)
		wantStatus(t, r, http.StatusNoContent)
		wantNoBody(t, r)
	})
	t.Run("refused as on Neon", func(t *testing.T) {
		v.enableOn(v.branch, "stack")
		wantError(t, v.do("DELETE", path+v.branch, nil), http.StatusConflict, "branch "+v.branch+" is the default branch")
		parent := v.createBranch(map[string]any{"branch": map[string]any{"name": "parent"}})
		child := v.createBranch(map[string]any{"branch": map[string]any{"name": "child", "parent_id": parent}})
		wantError(t, v.do("DELETE", path+parent, nil), http.StatusConflict, "branch "+parent+" has child branches")
		wantStatus(t, v.do("DELETE", path+child, nil), http.StatusOK)
		wantStatus(t, v.do("DELETE", path+parent, nil), http.StatusOK)
		protected := v.createBranch(map[string]any{"branch": map[string]any{"name": "keep", "protected": true}})
		wantError(t, v.do("DELETE", path+protected, nil), http.StatusConflict, "branch "+protected+" is protected")
		wantError(t, v.do("DELETE", path+protected+"?hard_delete=maybe", nil), http.StatusBadRequest, "hard_delete: ")
		if _, ok := v.e.BranchAuth(v.project, v.branch); !ok {
			t.Error("the production branch lost its Neon Auth")
		}
	})
}

func TestBranchListSortsAndPages(t *testing.T) {
	v := newEnv(t, Options{})
	names := []string{"delta", "alpha", "echo", "charlie"} // created in this order, after main
	ids := map[string]string{"main": v.branch}
	for _, n := range names {
		ids[n] = v.createBranch(map[string]any{"branch": map[string]any{"name": n}})
	}
	list := func(query string) (got []string, next string) {
		t.Helper()
		r := v.do("GET", "/projects/"+v.project+"/branches"+query, nil)
		wantStatus(t, r, http.StatusOK)
		var out struct {
			Branches   []struct{ Name string }
			Pagination *struct{ Next, SortBy, SortOrder string }
		}
		r.Decode(&out)
		for _, b := range out.Branches {
			got = append(got, b.Name)
		}
		if out.Pagination != nil {
			next = out.Pagination.Next
		}
		return got, next
	}

	cases := []struct{ query, want string }{
		{"", "charlie echo alpha delta main"}, // updated_at desc: the newest first
		{"?sort_by=name&sort_order=asc", "alpha charlie delta echo main"},
		{"?sort_by=name", "main echo delta charlie alpha"},
		{"?sort_by=created_at&sort_order=asc", "main delta alpha echo charlie"},
		{"?search=LPH", "alpha"}, // any case
		{"?search=" + ids["echo"], "echo"},
	}
	for _, tc := range cases {
		if got, _ := list(tc.query); strings.Join(got, " ") != tc.want {
			t.Errorf("GET branches%s = %v, want %s", tc.query, got, tc.want)
		}
	}

	t.Run("pages of 2 visit every branch once, in order", func(t *testing.T) {
		var all []string
		query := "?limit=2&sort_by=name&sort_order=asc"
		for i := 0; i < 10; i++ {
			page, next := list(query)
			all = append(all, page...)
			if next == "" {
				break
			}
			query = "?limit=2&sort_by=name&sort_order=asc&cursor=" + next
		}
		if want := []string{"alpha", "charlie", "delta", "echo", "main"}; !slices.Equal(all, want) {
			t.Errorf("pages = %v, want %v", all, want)
		}
	})
	t.Run("a page whose last branch was deleted still goes on", func(t *testing.T) {
		page, next := list("?limit=1&sort_by=name&sort_order=asc")
		if len(page) != 1 || page[0] != "alpha" {
			t.Fatalf("first page = %v", page)
		}
		wantStatus(t, v.do("DELETE", "/projects/"+v.project+"/branches/"+ids["alpha"], nil), http.StatusOK)
		if page, _ := list("?limit=1&sort_by=name&sort_order=asc&cursor=" + next); len(page) != 1 || page[0] != "charlie" {
			t.Errorf("next page = %v, want [charlie]", page)
		}
	})
	t.Run("bad queries", func(t *testing.T) {
		_, next := list("?limit=1&sort_by=name")
		for query, prefix := range map[string]string{
			"?sort_by=size":                      "sort_by: ",
			"?sort_order=up":                     "sort_order: ",
			"?limit=0":                           "limit: ",
			"?limit=10001":                       "limit: ",
			"?cursor=nope":                       "cursor: ",
			"?sort_by=created_at&cursor=" + next: "cursor: belongs to the order sort_by=name",
			"?include_deleted=perhaps":           "include_deleted: ",
		} {
			wantError(t, v.do("GET", "/projects/"+v.project+"/branches"+query, nil), http.StatusBadRequest, prefix)
		}
	})
}
