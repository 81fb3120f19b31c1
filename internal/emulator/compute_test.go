package emulator

import (
	"net/http"
	"regexp"
	"slices"
	"testing"
)

// digObject is dig for a JSON object.
func digObject(t *testing.T, v any, path ...any) map[string]any {
	t.Helper()
	m, ok := dig(t, v, path...).(map[string]any)
	if !ok {
		t.Fatalf("JSON %v at %v: want an object", v, path)
	}
	return m
}

// digArray is dig for a JSON array.
func digArray(t *testing.T, v any, path ...any) []any {
	t.Helper()
	a, ok := dig(t, v, path...).([]any)
	if !ok {
		t.Fatalf("JSON %v at %v: want an array", v, path)
	}
	return a
}

// endpointIDs lists the ids of the endpoints a list answer holds.
func endpointIDs(t *testing.T, r *response) []string {
	t.Helper()
	wantStatus(t, r, http.StatusOK)
	var out struct{ Endpoints []struct{ ID string } }
	r.Decode(&out)
	ids := []string{}
	for _, ep := range out.Endpoints {
		ids = append(ids, ep.ID)
	}
	return ids
}

// A compute endpoint lives on a branch: created, listed by the branch and
// the project, read, changed, moved, and deleted with it or on its own.
func TestEndpointLifecycle(t *testing.T) {
	v := newEnv(t, Options{})
	p := "/projects/" + v.project
	main := endpointIDs(t, v.do("GET", p+"/branches/"+v.branch+"/endpoints", nil))
	if len(main) != 1 {
		t.Fatalf("the production branch has endpoints %v, want its read_write one", main)
	}
	dev := v.createBranch(map[string]any{"branch": map[string]any{"name": "dev"}})
	if got := endpointIDs(t, v.do("GET", p+"/branches/"+dev+"/endpoints", nil)); len(got) != 0 {
		t.Errorf("a branch created without endpoints has %v", got)
	}

	r := v.do("POST", p+"/endpoints", map[string]any{"endpoint": map[string]any{"branch_id": dev, "type": "read_write",
		"autoscaling_limit_min_cu": 0.25, "autoscaling_limit_max_cu": 1, "suspend_timeout_seconds": 10,
		"settings": map[string]any{"pg_settings": map[string]string{"work_mem": "64MB"}}}})
	wantStatus(t, r, http.StatusCreated)
	id := digString(t, r.JSON(), "endpoint", "id")
	if op := digString(t, r.JSON(), "operations", 0, "endpoint_id"); op != id {
		t.Errorf("the operation names endpoint %q, want %q", op, id)
	}
	ep, _ := dig(t, v.do("GET", p+"/endpoints/"+id, nil).JSON(), "endpoint").(map[string]any)
	if ep["branch_id"] != dev || ep["autoscaling_limit_max_cu"] != float64(1) || ep["suspend_timeout_seconds"] != float64(10) ||
		ep["host"] != id+".us-east-2.aws.neon.tech" || ep["proxy_host"] != "us-east-2.aws.neon.tech" || ep["pooler_mode"] != "transaction" {
		t.Errorf("endpoint = %v", ep)
	}
	wantJSON(t, "settings", ep["settings"], `{"pg_settings":{"work_mem":"64MB"}}`)
	if all := endpointIDs(t, v.do("GET", p+"/endpoints", nil)); !slices.Equal(all, append(main, id)) {
		t.Errorf("the project lists %v, want %v", all, append(main, id))
	}

	r = v.do("PATCH", p+"/endpoints/"+id, map[string]any{"endpoint": map[string]any{"branch_id": dev, "autoscaling_limit_max_cu": 2,
		"disabled": true, "settings": map[string]any{"pg_settings": map[string]string{"max_connections": "50"}}}})
	wantStatus(t, r, http.StatusOK)
	ep, _ = dig(t, r.JSON(), "endpoint").(map[string]any)
	if ep["autoscaling_limit_max_cu"] != float64(2) || ep["disabled"] != true || ep["suspend_timeout_seconds"] != float64(10) {
		t.Errorf("changed endpoint = %v", ep)
	}
	wantJSON(t, "settings", ep["settings"], `{"pg_settings":{"max_connections":"50","work_mem":"64MB"}}`)

	ro := digString(t, v.do("POST", p+"/endpoints", map[string]any{"endpoint": map[string]any{"branch_id": dev, "type": "read_only"}}).JSON(), "endpoint", "id")
	staging := v.createBranch(map[string]any{"branch": map[string]any{"name": "staging"}})
	wantStatus(t, v.do("PATCH", p+"/endpoints/"+ro, map[string]any{"endpoint": map[string]any{"branch_id": staging}}), http.StatusOK)
	if got := endpointIDs(t, v.do("GET", p+"/branches/"+staging+"/endpoints", nil)); !slices.Equal(got, []string{ro}) {
		t.Errorf("after the move staging has %v, want [%s]", got, ro)
	}

	wantStatus(t, v.do("DELETE", p+"/endpoints/"+id, nil), http.StatusOK)
	wantStatus(t, v.do("DELETE", p+"/endpoints/"+id, nil), http.StatusNoContent)
	wantError(t, v.do("GET", p+"/endpoints/"+id, nil), http.StatusNotFound, "endpoint "+id+" not found")
	wantStatus(t, v.do("DELETE", p+"/branches/"+staging, nil), http.StatusOK)
	wantError(t, v.do("GET", p+"/endpoints/"+ro, nil), http.StatusNotFound, "endpoint "+ro+" not found")
	if all := endpointIDs(t, v.do("GET", p+"/endpoints", nil)); !slices.Equal(all, main) {
		t.Errorf("after deleting the branch the project lists %v, want %v", all, main)
	}
}

func TestEndpointRefusals(t *testing.T) {
	v := newEnv(t, Options{})
	p := "/projects/" + v.project
	dev := v.createBranch(map[string]any{"branch": map[string]any{"name": "dev"}})
	create := func(fields map[string]any) *response {
		return v.do("POST", p+"/endpoints", map[string]any{"endpoint": fields})
	}
	wantError(t, create(map[string]any{"branch_id": "br-nope", "type": "read_only"}), http.StatusNotFound,
		"endpoint.branch_id: branch br-nope does not exist in project "+v.project)
	wantError(t, create(map[string]any{"branch_id": v.branch, "type": "read_write"}), http.StatusConflict,
		"branch "+v.branch+" already has a read_write endpoint")
	wantError(t, create(map[string]any{"branch_id": dev, "type": "read_only", "region_id": "aws-eu-central-1"}), http.StatusBadRequest,
		"endpoint.region_id: must be the project's region aws-us-east-2")
	wantError(t, create(map[string]any{"branch_id": dev, "type": "read_only", "autoscaling_limit_min_cu": 2, "autoscaling_limit_max_cu": 1}),
		http.StatusBadRequest, "endpoint.autoscaling_limit_max_cu: must not be less than autoscaling_limit_min_cu (2)")
	rw := digString(t, create(map[string]any{"branch_id": dev, "type": "read_write"}).JSON(), "endpoint", "id")
	wantError(t, v.do("PATCH", p+"/endpoints/"+rw, map[string]any{"endpoint": map[string]any{"branch_id": v.branch}}), http.StatusConflict,
		"branch "+v.branch+" already has a read_write endpoint")
	wantError(t, v.do("PATCH", p+"/endpoints/ep-nope", map[string]any{"endpoint": map[string]any{"disabled": true}}), http.StatusNotFound, "endpoint ep-nope not found")
	wantError(t, v.do("GET", "/projects/"+v.project+"/branches/br-nope/endpoints", nil), http.StatusNotFound, "branch not found")
	if got := endpointIDs(t, v.do("GET", p+"/branches/"+dev+"/endpoints", nil)); !slices.Equal(got, []string{rw}) {
		t.Errorf("dev has %v after the refusals, want [%s]", got, rw)
	}
}

// POST …/branches with endpoints makes them: what neon CLI and the
// official provider's users ask for a preview branch.
func TestCreateBranchWithEndpoints(t *testing.T) {
	v := newEnv(t, Options{})
	path := "/projects/" + v.project + "/branches"
	r := v.do("POST", path, map[string]any{"branch": map[string]any{"name": "preview"},
		"endpoints": []any{map[string]any{"type": "read_write", "autoscaling_limit_min_cu": 0.5}, map[string]any{"type": "read_only"}}})
	wantStatus(t, r, http.StatusCreated)
	created := r.JSON()
	id := digString(t, created, "branch", "id")
	rw, _ := dig(t, created, "endpoints", 0).(map[string]any)
	if rw["type"] != "read_write" || rw["branch_id"] != id || rw["autoscaling_limit_min_cu"] != 0.5 || rw["autoscaling_limit_max_cu"] != 0.5 {
		t.Errorf("read_write endpoint = %v", rw)
	}
	if typ := digString(t, created, "endpoints", 1, "type"); typ != "read_only" {
		t.Errorf("second endpoint is %s", typ)
	}
	ops, _ := created["operations"].([]any)
	if len(ops) != 3 {
		t.Errorf("operations = %v, want create_branch and a start_compute per endpoint", ops)
	}
	uri := digString(t, created, "connection_uris", 0, "connection_uri")
	if want := "@" + digString(t, rw, "host") + "/neondb?sslmode=require"; !regexp.MustCompile(`^postgresql://neondb_owner:npg_[A-Za-z0-9]{12}` + regexp.QuoteMeta(want) + `$`).MatchString(uri) {
		t.Errorf("connection_uri = %q", uri)
	}
	if got := endpointIDs(t, v.do("GET", path+"/"+id+"/endpoints", nil)); len(got) != 2 {
		t.Errorf("the branch lists endpoints %v", got)
	}

	wantError(t, v.do("POST", path, map[string]any{"branch": map[string]any{"name": "two"},
		"endpoints": []any{map[string]any{"type": "read_write"}, map[string]any{"type": "read_write"}}}),
		http.StatusBadRequest, "endpoints[1].type: a branch can have only one read_write endpoint")
	wantError(t, v.do("POST", path, map[string]any{"endpoints": []any{map[string]any{"type": "read_only", "autoscaling_limit_min_cu": 1, "autoscaling_limit_max_cu": 0.5}}}),
		http.StatusBadRequest, "endpoints[0].autoscaling_limit_max_cu: must not be less than")
	if n := len(v.e.Branches(v.project)); n != 2 {
		t.Errorf("%d branches after the refusals, want 2", n)
	}
}

// A new branch's roles are copies of its parent's, passwords included; a
// role made on either afterwards is its own.
func TestBranchRolesKeepTheirParentsPasswords(t *testing.T) {
	v := newEnv(t, Options{})
	reveal := func(branch, role string) string {
		t.Helper()
		r := v.do("GET", "/projects/"+v.project+"/branches/"+branch+"/roles/"+role+"/reveal_password", nil)
		wantStatus(t, r, http.StatusOK)
		return digString(t, r.JSON(), "password")
	}
	parent := reveal(v.branch, "neondb_owner")
	dev := v.createBranch(map[string]any{"branch": map[string]any{"name": "dev"}})
	if got := reveal(dev, "neondb_owner"); got != parent {
		t.Errorf("dev's neondb_owner has password %q, its parent's is %q", got, parent)
	}
	schemaOnly := v.createBranch(map[string]any{"branch": map[string]any{"name": "schema", "init_source": "schema-only"}})
	if got := reveal(schemaOnly, "neondb_owner"); got != parent {
		t.Errorf("a schema-only branch (a root, without parent_id) has %q, want the password of the branch it came from, %q", got, parent)
	}
	seeded, err := v.e.AddBranch(v.project, "seeded")
	if err != nil {
		t.Fatal(err)
	}
	if got := reveal(seeded, "neondb_owner"); got != parent {
		t.Errorf("a branch added by the Go API reads %q, want its parent's %q", got, parent)
	}
	rootless, err := v.e.CreateBranch(v.project, BranchOptions{Name: "schema-go", InitSource: "schema-only"})
	if err != nil {
		t.Fatal(err)
	}
	if got := reveal(rootless.ID, "neondb_owner"); got != parent {
		t.Errorf("a schema-only branch made by the Go API has %q, want the password of the branch it came from, %q", got, parent)
	}
	r := v.do("POST", "/projects/"+v.project+"/branches/"+seeded+"/roles", map[string]any{"role": map[string]any{"name": "app"}})
	wantStatus(t, r, http.StatusCreated)
	if got := reveal(seeded, "neondb_owner"); got != parent {
		t.Errorf("after a new role, neondb_owner reads %q, want %q", got, parent)
	}
	wantError(t, v.do("GET", "/projects/"+v.project+"/branches/"+v.branch+"/roles/app", nil), http.StatusNotFound, "role app not found")
}

// Databases and roles of a branch: created, listed, read, changed and
// deleted as the official provider's neon_role and neon_database do.
func TestDatabasesAndRoles(t *testing.T) {
	v := newEnv(t, Options{})
	b := "/projects/" + v.project + "/branches/" + v.createBranch(map[string]any{"branch": map[string]any{"name": "dev"}})

	r := v.do("POST", b+"/roles", map[string]any{"role": map[string]any{"name": "app"}})
	wantStatus(t, r, http.StatusCreated)
	password := digString(t, r.JSON(), "role", "password")
	if revealed := digString(t, v.do("GET", b+"/roles/app/reveal_password", nil).JSON(), "password"); revealed != password || password == "" {
		t.Errorf("revealed %q, created with %q", revealed, password)
	}
	if role := digObject(t, v.do("GET", b+"/roles/app", nil).JSON(), "role"); role["name"] != "app" || role["password"] != nil {
		t.Errorf("GET role = %v (a read never shows the password)", role)
	}
	wantError(t, v.do("POST", b+"/roles", map[string]any{"role": map[string]any{"name": "app"}}), http.StatusConflict, "role app already exists")
	wantError(t, v.do("POST", b+"/roles", map[string]any{"role": map[string]any{"name": ""}}), http.StatusBadRequest, "role.name: must not be empty")
	r = v.do("POST", b+"/roles", map[string]any{"role": map[string]any{"name": "nologin", "no_login": true}})
	if wantStatus(t, r, http.StatusCreated); dig(t, r.JSON(), "role", "password") != nil {
		t.Errorf("a no_login role got a password: %s", r.Body)
	}
	wantError(t, v.do("GET", b+"/roles/nologin/reveal_password", nil), http.StatusNotFound, "role nologin on branch")

	r = v.do("POST", b+"/databases", map[string]any{"database": map[string]any{"name": "shop", "owner_name": "app"}})
	wantStatus(t, r, http.StatusCreated)
	if db := digObject(t, r.JSON(), "database"); db["id"] != float64(2) || db["owner_name"] != "app" {
		t.Errorf("database = %v", db)
	}
	wantError(t, v.do("POST", b+"/databases", map[string]any{"database": map[string]any{"name": "shop", "owner_name": "app"}}), http.StatusConflict, "database shop already exists")
	wantError(t, v.do("POST", b+"/databases", map[string]any{"database": map[string]any{"name": "x", "owner_name": "ghost"}}), http.StatusNotFound,
		"database.owner_name: role ghost does not exist")
	wantError(t, v.do("DELETE", b+"/roles/app", nil), http.StatusConflict, "role app owns database shop")

	wantStatus(t, v.do("PATCH", b+"/databases/shop", map[string]any{"database": map[string]any{"name": "store", "owner_name": "neondb_owner"}}), http.StatusOK)
	wantError(t, v.do("GET", b+"/databases/shop", nil), http.StatusNotFound, "database shop not found")
	if db := digObject(t, v.do("GET", b+"/databases/store", nil).JSON(), "database"); db["owner_name"] != "neondb_owner" || db["id"] != float64(2) {
		t.Errorf("renamed database = %v", db)
	}
	var names []string
	for _, role := range digArray(t, v.do("GET", b+"/roles", nil).JSON(), "roles") {
		names = append(names, digString(t, role, "name"))
	}
	if !slices.Equal(names, []string{"neondb_owner", "app", "nologin"}) {
		t.Errorf("roles = %v", names)
	}

	wantStatus(t, v.do("DELETE", b+"/databases/store", nil), http.StatusOK)
	wantStatus(t, v.do("DELETE", b+"/databases/store", nil), http.StatusNoContent)
	wantStatus(t, v.do("DELETE", b+"/roles/app", nil), http.StatusOK)
	wantStatus(t, v.do("DELETE", b+"/roles/app", nil), http.StatusNoContent)
	wantError(t, v.do("GET", b+"/roles/app/reveal_password", nil), http.StatusNotFound, "role app not found")
	if dbs := digArray(t, v.do("GET", b+"/databases", nil).JSON(), "databases"); len(dbs) != 1 {
		t.Errorf("databases = %v, want neondb only", dbs)
	}
}

// A database made after another was deleted gets an id of its own, as on
// Neon: the official provider's acceptance test of neon_database
// (acc_database_test.go) checks that a database re-created under a new name
// has a new id.
func TestADeletedDatabasesIDIsNeverGivenAgain(t *testing.T) {
	v := newEnv(t, Options{})
	b := "/projects/" + v.project + "/branches/" + v.branch
	create := func(name string) float64 {
		t.Helper()
		r := v.do("POST", b+"/databases", map[string]any{"database": map[string]any{"name": name, "owner_name": "neondb_owner"}})
		wantStatus(t, r, http.StatusCreated)
		id, _ := dig(t, r.JSON(), "database", "id").(float64)
		return id
	}
	foo := create("foo")
	wantStatus(t, v.do("DELETE", b+"/databases/foo", nil), http.StatusOK)
	if bar := create("bar"); bar == foo {
		t.Errorf("bar got id %v, the id of the deleted foo", bar)
	}
	child := "/projects/" + v.project + "/branches/" + v.createBranch(map[string]any{"branch": map[string]any{"name": "dev"}})
	r := v.do("POST", child+"/databases", map[string]any{"database": map[string]any{"name": "baz", "owner_name": "neondb_owner"}})
	wantStatus(t, r, http.StatusCreated)
	if id := dig(t, r.JSON(), "database", "id"); id == foo {
		t.Errorf("a child branch's new database got id %v, which its parent gave and deleted", id)
	}
}

// A project that does not store passwords does not reveal them (412), but
// still hands the password out once, when it makes the role.
func TestPasswordsOfAProjectThatDoesNotStoreThem(t *testing.T) {
	v := newEnv(t, Options{})
	r := v.do("POST", "/projects", map[string]any{"project": map[string]any{"store_passwords": false}})
	wantStatus(t, r, http.StatusCreated)
	created := r.JSON()
	if digString(t, created, "roles", 0, "password") == "" || len(digArray(t, created, "connection_uris")) != 1 {
		t.Errorf("created = %s", r.Body)
	}
	b := "/projects/" + digString(t, created, "project", "id") + "/branches/" + digString(t, created, "branch", "id")
	wantError(t, v.do("GET", b+"/roles/neondb_owner/reveal_password", nil), http.StatusPreconditionFailed, "project ")
}

// PATCH …/branches/{branch_id}: a new name, protection and expiry.
func TestUpdateBranch(t *testing.T) {
	v := newEnv(t, Options{})
	path := "/projects/" + v.project + "/branches/"
	dev := v.createBranch(map[string]any{"branch": map[string]any{"name": "dev", "expires_at": "2099-01-01T00:00:00Z"}})
	r := v.do("PATCH", path+dev, map[string]any{"branch": map[string]any{"name": "feature", "protected": true}})
	wantStatus(t, r, http.StatusOK)
	b, _ := dig(t, v.do("GET", path+dev, nil).JSON(), "branch").(map[string]any)
	if b["name"] != "feature" || b["protected"] != true || b["expires_at"] != "2099-01-01T00:00:00Z" {
		t.Errorf("branch = %v", b)
	}
	wantStatus(t, v.do("PATCH", path+dev, map[string]any{"branch": map[string]any{"expires_at": nil}}), http.StatusOK)
	if b, _ := dig(t, v.do("GET", path+dev, nil).JSON(), "branch").(map[string]any); b["expires_at"] != nil {
		t.Errorf("expires_at = %v after null, want none", b["expires_at"])
	}
	wantError(t, v.do("PATCH", path+dev, map[string]any{"branch": map[string]any{"name": "main"}}), http.StatusConflict, `a branch named "main" already exists`)
	wantError(t, v.do("PATCH", path+dev, map[string]any{"branch": map[string]any{"expires_at": "2020-01-01T00:00:00Z"}}), http.StatusBadRequest,
		"branch.expires_at: must be in the future")
	wantError(t, v.do("PATCH", path+"br-nope", map[string]any{"branch": map[string]any{"protected": false}}), http.StatusNotFound, "branch not found")
	wantError(t, v.do("PATCH", path+dev, map[string]any{}), http.StatusBadRequest, "branch: is required")
}
