package emulator

import (
	"net/http"
	"regexp"
	"testing"
	"time"
)

var projectIDPattern = regexp.MustCompile(`^[a-z0-9-]{1,60}$`)

func TestProjectListCarriesEveryProjectField(t *testing.T) {
	v := newEnv(t, Options{})
	r := v.do("GET", "/projects", nil)
	wantStatus(t, r, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	projects, _ := r.JSON()["projects"].([]any)
	if len(projects) != 1 {
		t.Fatalf("projects = %v", projects)
	}
	p, _ := dig(t, projects, 0).(map[string]any)
	want := map[string]any{
		"id": v.project, "platform_id": "aws", "region_id": "aws-us-east-2", "provisioner": "k8s-pod",
		"pg_version": float64(17), "locked": false, "proxy_host": "us-east-2.aws.neon.tech", "cpu_used_sec": float64(0),
	}
	for k, w := range want {
		if p[k] != w {
			t.Errorf("%s = %#v, want %#v", k, p[k], w)
		}
	}
	for _, k := range []string{"name", "created_at", "updated_at", "branch_logical_size_limit", "owner_id", "org_id"} {
		if _, ok := p[k]; !ok {
			t.Errorf("field %s missing", k)
		}
	}
	for _, k := range []string{"created_at", "updated_at"} {
		ts, _ := p[k].(string)
		if parsed, err := time.Parse(time.RFC3339, ts); err != nil || parsed.Location() != time.UTC {
			t.Errorf("%s = %q is not RFC 3339 UTC", k, ts)
		}
	}
	if !projectIDPattern.MatchString(v.project) {
		t.Errorf("project id %q does not match %s", v.project, projectIDPattern)
	}
}

func TestProjectListPaginatesWithAnOpaqueCursor(t *testing.T) {
	v := newEnv(t, Options{SeedProjects: 25})
	seen := map[string]int{}
	cursor := ""
	var pages []int
	for i := 0; i < 10; i++ {
		path := "/projects?limit=10"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		var out struct {
			Projects   []Project
			Pagination *struct{ Cursor string }
		}
		r := v.do("GET", path, nil)
		wantStatus(t, r, http.StatusOK)
		r.Decode(&out)
		if len(out.Projects) == 0 {
			if out.Pagination != nil {
				t.Errorf("empty page has pagination %+v", out.Pagination)
			}
			break
		}
		pages = append(pages, len(out.Projects))
		for _, p := range out.Projects {
			seen[p.ID]++
		}
		if out.Pagination == nil || out.Pagination.Cursor == "" {
			t.Fatal("non-empty page without cursor")
		}
		cursor = out.Pagination.Cursor
	}
	if len(pages) != 3 || pages[0] != 10 || pages[1] != 10 || pages[2] != 5 {
		t.Errorf("page sizes = %v, want [10 10 5]", pages)
	}
	if len(seen) != 25 {
		t.Errorf("saw %d distinct projects, want 25", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("project %s listed %d times", id, n)
		}
	}
}

func TestProjectListDefaultsToTenAndOrdersByCreation(t *testing.T) {
	v := newEnv(t, Options{SeedProjects: 12})
	var out struct{ Projects []Project }
	v.do("GET", "/projects", nil).Decode(&out)
	ids := v.e.ProjectIDs()
	if len(out.Projects) != 10 {
		t.Fatalf("got %d projects, want the default limit 10", len(out.Projects))
	}
	for i, p := range out.Projects {
		if p.ID != ids[i] {
			t.Errorf("projects[%d] = %s, want %s", i, p.ID, ids[i])
		}
	}
}

func TestProjectListQueryValidation(t *testing.T) {
	v := newEnv(t, Options{})
	for _, q := range []string{"limit=0", "limit=401", "limit=-1", "limit=ten"} {
		wantError(t, v.do("GET", "/projects?"+q, nil), http.StatusBadRequest, "limit: ")
	}
	wantStatus(t, v.do("GET", "/projects?limit=400", nil), http.StatusOK)
	wantStatus(t, v.do("GET", "/projects?limit=1", nil), http.StatusOK)
	wantError(t, v.do("GET", "/projects?cursor=garbage!", nil), http.StatusBadRequest, "cursor: ")
}

func TestProjectListSearchMatchesPartOfNameOrID(t *testing.T) {
	v := newEnv(t, Options{})
	a, _ := v.e.CreateProject("Billing Service")
	_, _ = v.e.CreateProject("frontend")
	cases := map[string][]string{
		"billing":          {a.ID},
		a.ID[len(a.ID)-8:]: {a.ID},
		"nothing-matches":  {},
	}
	for q, want := range cases {
		var out struct{ Projects []Project }
		v.do("GET", "/projects?search="+q, nil).Decode(&out)
		if len(out.Projects) != len(want) {
			t.Errorf("search %q: %d results, want %d", q, len(out.Projects), len(want))
			continue
		}
		for i := range want {
			if out.Projects[i].ID != want[i] {
				t.Errorf("search %q: got %s", q, out.Projects[i].ID)
			}
		}
	}
}

func TestCreateAndDeleteProject(t *testing.T) {
	v := newEnv(t, Options{})
	r := v.do("POST", "/projects", map[string]any{"project": map[string]any{"name": "new one"}})
	wantStatus(t, r, http.StatusCreated)
	var out struct {
		Project Project
		Branch  struct {
			ID      string
			Default bool
		}
	}
	r.Decode(&out)
	if out.Project.Name != "new one" || !projectIDPattern.MatchString(out.Project.ID) || !out.Branch.Default {
		t.Fatalf("created %+v", out)
	}
	wantError(t, v.do("POST", "/projects", map[string]any{"project": map[string]any{"name": ""}}), http.StatusBadRequest, "project.name: ")
	wantError(t, v.do("POST", "/projects", map[string]any{"project": map[string]any{"colour": "red"}}), http.StatusBadRequest, "project.colour: unknown field")

	wantStatus(t, v.do("DELETE", "/projects/"+out.Project.ID, nil), http.StatusOK)
	wantError(t, v.do("DELETE", "/projects/"+out.Project.ID, nil), http.StatusNotFound, "project not found")
	wantError(t, v.do("GET", "/projects/"+out.Project.ID, nil), http.StatusNotFound, "project not found")
}

func TestBranchListShowsTheDefaultBranch(t *testing.T) {
	v := newEnv(t, Options{})
	dev, err := v.e.AddBranch(v.project, "dev")
	if err != nil {
		t.Fatal(err)
	}
	r := v.do("GET", "/projects/"+v.project+"/branches?sort_by=created_at&sort_order=asc", nil)
	wantStatus(t, r, http.StatusOK)
	var out struct {
		Branches []map[string]any
	}
	r.Decode(&out)
	if len(out.Branches) != 2 {
		t.Fatalf("branches = %v", out.Branches)
	}
	main, other := out.Branches[0], out.Branches[1]
	if main["id"] != v.branch || main["name"] != "main" || main["default"] != true || main["project_id"] != v.project ||
		main["current_state"] != "ready" || main["protected"] != false {
		t.Errorf("main branch = %v", main)
	}
	if other["id"] != dev || other["default"] != false || other["parent_id"] != v.branch {
		t.Errorf("dev branch = %v", other)
	}
	for _, b := range out.Branches {
		id, _ := b["id"].(string)
		if !regexp.MustCompile(`^br-[a-z0-9-]{1,57}$`).MatchString(id) {
			t.Errorf("branch id %q", id)
		}
		for _, k := range []string{"created_at", "updated_at"} {
			if _, ok := b[k]; !ok {
				t.Errorf("branch field %s missing", k)
			}
		}
	}
	wantStatus(t, v.do("GET", "/projects/"+v.project+"/branches/"+dev, nil), http.StatusOK)
	wantError(t, v.do("GET", "/projects/"+v.project+"/branches/br-nope", nil), http.StatusNotFound, "branch not found")
}

func TestProjectIDsAreDeterministic(t *testing.T) {
	a := newEnv(t, Options{SeedProjects: 3})
	b := newEnv(t, Options{SeedProjects: 3})
	ia, ib := a.e.ProjectIDs(), b.e.ProjectIDs()
	for i := range ia {
		if ia[i] != ib[i] {
			t.Errorf("ids differ: %v vs %v", ia, ib)
		}
	}
}
