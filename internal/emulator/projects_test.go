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
		"id": v.project, "platform_id": "aws", "region_id": "aws-us-east-2", "provisioner": "k8s-neonvm",
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
	wantError(t, v.do("POST", "/projects", map[string]any{"project": map[string]any{"colour": "red"}}), http.StatusBadRequest, `project: property "colour" is unsupported`)

	wantStatus(t, v.do("DELETE", "/projects/"+out.Project.ID, nil), http.StatusOK)
	wantError(t, v.do("DELETE", "/projects/"+out.Project.ID, nil), http.StatusNotFound, "project not found")
	wantError(t, v.do("GET", "/projects/"+out.Project.ID, nil), http.StatusNotFound, "project not found")
}

// A deleted project answers 404 like one the key cannot see, but stays
// listed by GET /projects?recoverable=true for its 7-day recovery window
// (the reference, DELETE /projects/{project_id}), and only there.
func TestDeletedProjectIsListedAsRecoverable(t *testing.T) {
	v := newEnv(t, Options{SeedProjects: 2})
	ids := v.e.ProjectIDs()
	listed := func(query string) []string {
		var out struct{ Projects []Project }
		r := v.do("GET", "/projects?"+query, nil)
		wantStatus(t, r, http.StatusOK)
		r.Decode(&out)
		var got []string
		for _, p := range out.Projects {
			got = append(got, p.ID)
		}
		return got
	}
	if got := listed("recoverable=true"); len(got) != 0 {
		t.Fatalf("recoverable before any delete: %v", got)
	}
	wantStatus(t, v.do("DELETE", "/projects/"+ids[1], nil), http.StatusOK)
	wantError(t, v.do("GET", "/projects/"+ids[1]+"/branches", nil), http.StatusNotFound, "project not found")
	if got := listed("recoverable=true&search=" + ids[1]); len(got) != 1 || got[0] != ids[1] {
		t.Errorf("recoverable projects matching %s: %v", ids[1], got)
	}
	if got := listed("recoverable=true&search=" + ids[0]); len(got) != 0 {
		t.Errorf("a live project is listed as recoverable: %v", got)
	}
	if got := listed("search=" + ids[1]); len(got) != 0 {
		t.Errorf("the deleted project is in the list of live ones: %v", got)
	}
	v.e.mu.Lock()
	v.e.st.Deleted[0].DeletedAt = now().Add(-recoveryWindow)
	v.e.mu.Unlock()
	if got := listed("recoverable=true"); len(got) != 0 {
		t.Errorf("recoverable after the recovery window: %v", got)
	}
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

// What the official Neon provider sends for a neon_project with all its
// arguments is kept and read back: a GET after the POST gives back what was
// set, since the provider plans against it.
func TestCreateProjectKeepsEveryFieldItModels(t *testing.T) {
	v := newEnv(t, Options{})
	r := v.do("POST", "/projects", officialProjectCreate())
	wantStatus(t, r, http.StatusCreated)
	created := r.JSON()
	id := digString(t, created, "project", "id")
	got, _ := dig(t, v.do("GET", "/projects/"+id, nil).JSON(), "project").(map[string]any)
	want := map[string]any{
		"name": "everything", "region_id": "aws-eu-central-1", "platform_id": "aws", "proxy_host": "eu-central-1.aws.neon.tech",
		"pg_version": float64(16), "provisioner": "k8s-neonvm", "store_passwords": true, "history_retention_seconds": float64(0),
		"org_id": "org-someone-else-123",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("project.%s = %#v, want %#v", k, got[k], w)
		}
	}
	wantJSON(t, "settings", got["settings"], `{"allowed_ips":{"ips":["1.2.3.4/24","99.1.20.93"],"protected_branches_only":true},`+
		`"block_public_connections":false,"block_vpc_connections":false,"enable_logical_replication":true,"hipaa":false,`+
		`"maintenance_window":{"end_time":"08:00","start_time":"07:00","weekdays":[6,7]},"quota":{"active_time_seconds":3600,"logical_size_bytes":1073741824}}`)
	wantJSON(t, "default_endpoint_settings", got["default_endpoint_settings"],
		`{"autoscaling_limit_max_cu":1,"autoscaling_limit_min_cu":0.5,"suspend_timeout_seconds":300}`)

	branch, _ := created["branch"].(map[string]any)
	if branch["name"] != "production" || branch["default"] != true {
		t.Errorf("default branch = %v", branch)
	}
	b := "/projects/" + id + "/branches/" + digString(t, created, "branch", "id")
	if ann := digString(t, v.do("GET", b, nil).JSON(), "annotation", "value", "owner"); ann != "platform" {
		t.Errorf("annotation owner = %q", ann)
	}
	if db := digObject(t, v.do("GET", b+"/databases", nil).JSON(), "databases", 0); db["name"] != "baz" || db["owner_name"] != "qux" {
		t.Errorf("database = %v", db)
	}
	password := digString(t, created, "roles", 0, "password")
	if name := digString(t, created, "roles", 0, "name"); name != "qux" || password == "" {
		t.Errorf("role %q with password %q", name, password)
	}
	if revealed := digString(t, v.do("GET", b+"/roles/qux/reveal_password", nil).JSON(), "password"); revealed != password {
		t.Errorf("revealed password %q, created with %q", revealed, password)
	}
	ep, _ := dig(t, created, "endpoints", 0).(map[string]any)
	if ep["type"] != "read_write" || ep["autoscaling_limit_min_cu"] != 0.5 || ep["autoscaling_limit_max_cu"] != float64(1) ||
		ep["suspend_timeout_seconds"] != float64(300) || ep["region_id"] != "aws-eu-central-1" ||
		!regexp.MustCompile(`^ep-[a-z]+-[a-z]+-[0-9]{8}\.eu-central-1\.aws\.neon\.tech$`).MatchString(digString(t, ep, "host")) {
		t.Errorf("default endpoint = %v", ep)
	}
	uri := digString(t, created, "connection_uris", 0, "connection_uri")
	if wantURI := "postgresql://qux:" + password + "@" + digString(t, ep, "host") + "/baz?sslmode=require"; uri != wantURI {
		t.Errorf("connection_uri = %q, want %q", uri, wantURI)
	}
}

// A project created with nothing but a name has Neon's defaults: a day of
// history, the settings every project has, main with neondb owned by
// neondb_owner, and a read_write endpoint whose role password is stored.
func TestCreateProjectDefaults(t *testing.T) {
	v := newEnv(t, Options{})
	r := v.do("POST", "/projects", map[string]any{"project": map[string]any{"name": "plain"}})
	wantStatus(t, r, http.StatusCreated)
	created := r.JSON()
	p, _ := created["project"].(map[string]any)
	if p["history_retention_seconds"] != float64(86400) || p["region_id"] != "aws-us-east-2" || p["store_passwords"] != true {
		t.Errorf("project = %v", p)
	}
	if _, ok := p["default_endpoint_settings"]; ok {
		t.Errorf("default_endpoint_settings = %v, want none (none was set)", p["default_endpoint_settings"])
	}
	wantJSON(t, "settings", p["settings"], `{"allowed_ips":{"ips":[],"protected_branches_only":false},"block_public_connections":false,`+
		`"block_vpc_connections":false,"enable_logical_replication":false,"hipaa":false}`)
	if digString(t, created, "branch", "name") != "main" || digString(t, created, "roles", 0, "name") != "neondb_owner" ||
		digString(t, created, "databases", 0, "name") != "neondb" || digString(t, created, "endpoints", 0, "type") != "read_write" {
		t.Errorf("created = %s", r.Body)
	}
	ep, _ := dig(t, created, "endpoints", 0).(map[string]any)
	if ep["autoscaling_limit_min_cu"] != 0.25 || ep["autoscaling_limit_max_cu"] != 0.25 || ep["current_state"] != "idle" {
		t.Errorf("endpoint = %v", ep)
	}

	r = v.do("POST", "/projects", map[string]any{"project": map[string]any{"branch": map[string]any{"database_name": "shop"}}})
	wantStatus(t, r, http.StatusCreated)
	if owner := digString(t, r.JSON(), "databases", 0, "owner_name"); owner != "shop_owner" {
		t.Errorf("the owner of database shop is %q, want shop_owner ({database_name}_owner)", owner)
	}
	if name, id := digString(t, r.JSON(), "project", "name"), digString(t, r.JSON(), "project", "id"); name != id {
		t.Errorf("a project without a name is named %q, want its id %q", name, id)
	}
}

func TestCreateProjectRefusals(t *testing.T) {
	v := newEnv(t, Options{})
	cases := map[string]struct {
		project   map[string]any
		wantError string
	}{
		"an empty role name":     {map[string]any{"branch": map[string]any{"role_name": ""}}, "project.branch.role_name: must not be empty"},
		"an empty database name": {map[string]any{"branch": map[string]any{"database_name": ""}}, "project.branch.database_name: must not be empty"},
		"a maximum below the minimum": {map[string]any{"default_endpoint_settings": map[string]any{"autoscaling_limit_min_cu": 2, "autoscaling_limit_max_cu": 1}},
			"project.default_endpoint_settings.autoscaling_limit_max_cu: must not be less than autoscaling_limit_min_cu (2)"},
		"a deprecated maximum below the minimum": {map[string]any{"autoscaling_limit_min_cu": 2, "autoscaling_limit_max_cu": 1},
			"project.default_endpoint_settings.autoscaling_limit_max_cu: must not be less than"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			wantError(t, v.do("POST", "/projects", map[string]any{"project": tc.project}), http.StatusBadRequest, tc.wantError)
		})
	}
	if n := len(v.e.ProjectIDs()); n != 1 {
		t.Errorf("%d projects, want the seeded one only", n)
	}
}

// PATCH /projects/{project_id} changes what it names and keeps the rest:
// settings and default_endpoint_settings merge into what the project has.
func TestUpdateProject(t *testing.T) {
	v := newEnv(t, Options{})
	path := "/projects/" + v.project
	r := v.do("PATCH", path, map[string]any{"project": map[string]any{"name": "renamed", "history_retention_seconds": 0,
		"settings":                  map[string]any{"allowed_ips": map[string]any{"ips": []string{"10.0.0.0/8"}}, "hipaa": true},
		"default_endpoint_settings": map[string]any{"autoscaling_limit_min_cu": 1}}})
	wantStatus(t, r, http.StatusOK)
	if ops, _ := r.JSON()["operations"].([]any); ops == nil {
		t.Errorf("operations missing: %s", r.Body)
	}
	wantStatus(t, v.do("PATCH", path, map[string]any{"project": map[string]any{"default_endpoint_settings": map[string]any{"suspend_timeout_seconds": 600}}}), http.StatusOK)
	p, _ := dig(t, v.do("GET", path, nil).JSON(), "project").(map[string]any)
	if p["name"] != "renamed" || p["history_retention_seconds"] != float64(0) {
		t.Errorf("project = %v", p)
	}
	wantJSON(t, "settings", p["settings"], `{"allowed_ips":{"ips":["10.0.0.0/8"],"protected_branches_only":false},"block_public_connections":false,`+
		`"block_vpc_connections":false,"enable_logical_replication":false,"hipaa":true}`)
	wantJSON(t, "default_endpoint_settings", p["default_endpoint_settings"], `{"autoscaling_limit_min_cu":1,"suspend_timeout_seconds":600}`)

	wantError(t, v.do("PATCH", path, map[string]any{"project": map[string]any{"default_endpoint_settings": map[string]any{"autoscaling_limit_max_cu": 0.5}}}),
		http.StatusBadRequest, "project.default_endpoint_settings.autoscaling_limit_max_cu: must not be less than autoscaling_limit_min_cu (1)")
	wantError(t, v.do("PATCH", path, map[string]any{"project": map[string]any{"region_id": "aws-eu-central-1"}}),
		http.StatusBadRequest, `project: property "region_id" is unsupported`)
	wantError(t, v.do("PATCH", "/projects/no-such-project", map[string]any{"project": map[string]any{"name": "x"}}), http.StatusNotFound, "project not found")
}

// Logical replication can be turned on, never off again (the reference:
// "Once enabled, logical replication cannot be disabled"; the official
// provider's acceptance test expects a 400). Sending true again, or settings
// without it, is accepted.
func TestLogicalReplicationCannotBeTurnedOff(t *testing.T) {
	v := newEnv(t, Options{})
	path := "/projects/" + v.project
	settings := func(s map[string]any) map[string]any { return map[string]any{"project": map[string]any{"settings": s}} }
	wantStatus(t, v.do("PATCH", path, settings(map[string]any{"enable_logical_replication": false})), http.StatusOK)
	wantStatus(t, v.do("PATCH", path, settings(map[string]any{"enable_logical_replication": true})), http.StatusOK)
	wantStatus(t, v.do("PATCH", path, settings(map[string]any{"enable_logical_replication": true})), http.StatusOK)
	wantStatus(t, v.do("PATCH", path, settings(map[string]any{"hipaa": true})), http.StatusOK)
	wantError(t, v.do("PATCH", path, settings(map[string]any{"enable_logical_replication": false})), http.StatusBadRequest,
		"project.settings.enable_logical_replication: logical replication cannot be disabled once it is enabled")
	if on := dig(t, v.do("GET", path, nil).JSON(), "project", "settings", "enable_logical_replication"); on != true {
		t.Errorf("enable_logical_replication = %v after the refused change, want true", on)
	}
}

// HIPAA compliance too stays on once enabled: the official Neon provider's
// TestAccHIPAA (acc-org_test.go) expects "disabling HIPAA is not allowed".
func TestHIPAACannotBeTurnedOff(t *testing.T) {
	v := newEnv(t, Options{})
	path := "/projects/" + v.project
	settings := func(s map[string]any) map[string]any { return map[string]any{"project": map[string]any{"settings": s}} }
	wantStatus(t, v.do("PATCH", path, settings(map[string]any{"hipaa": false})), http.StatusOK)
	wantStatus(t, v.do("PATCH", path, settings(map[string]any{"hipaa": true})), http.StatusOK)
	wantStatus(t, v.do("PATCH", path, map[string]any{"project": map[string]any{"name": "renamed"}}), http.StatusOK)
	wantError(t, v.do("PATCH", path, settings(map[string]any{"hipaa": false})), http.StatusBadRequest,
		"project.settings.hipaa: disabling HIPAA is not allowed")
	if on := dig(t, v.do("GET", path, nil).JSON(), "project", "settings", "hipaa"); on != true {
		t.Errorf("hipaa = %v after the refused change, want true", on)
	}
}
