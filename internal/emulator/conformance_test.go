package emulator

import (
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// TestEveryRouteConformsToTheOpenAPIDocument drives every route of the
// router, in both Neon Auth families, through the whole lifecycle with valid
// requests, behind the validator of internal/apispec: no request and no
// response (errors included) may break
// internal/apispec/neon-api-v2-2026-07-13.openapi.json.
func TestEveryRouteConformsToTheOpenAPIDocument(t *testing.T) {
	validator, err := apispec.NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	v := newEnv(t, Options{SeedProjects: 2})
	v.handler = validator.Middleware(v.e)
	step := func(t *testing.T, method, path string, body any, want int) *response {
		t.Helper()
		r := v.do(method, path, body)
		wantStatus(t, r, want)
		return r
	}
	p := "/projects/" + v.project

	t.Run("projects and branches", func(t *testing.T) {
		step(t, "GET", "/projects", nil, http.StatusOK)
		step(t, "GET", "/projects?limit=1&search=seed", nil, http.StatusOK)
		created := step(t, "POST", "/projects", map[string]any{"project": map[string]any{"name": "conformance", "pg_version": 17}}, http.StatusCreated)
		id := digString(t, created.JSON(), "project", "id")
		step(t, "GET", "/projects/"+id, nil, http.StatusOK)
		step(t, "DELETE", "/projects/"+id, nil, http.StatusOK)
		everything := step(t, "POST", "/projects", officialProjectCreate(), http.StatusCreated)
		id = digString(t, everything.JSON(), "project", "id")
		step(t, "PATCH", "/projects/"+id, map[string]any{"project": map[string]any{"name": "renamed", "history_retention_seconds": 0,
			"settings": map[string]any{"allowed_ips": map[string]any{"ips": []string{"10.0.0.1"}}}}}, http.StatusOK)
		step(t, "GET", "/projects/"+id, nil, http.StatusOK)
		step(t, "GET", "/projects", nil, http.StatusOK)
		step(t, "DELETE", "/projects/"+id, nil, http.StatusOK)
		step(t, "GET", "/projects/"+id, nil, http.StatusNotFound)
		step(t, "GET", p+"/branches", nil, http.StatusOK)
		step(t, "POST", p+"/branches", nil, http.StatusCreated)
		step(t, "POST", p+"/branches", map[string]any{"branch": map[string]any{"name": "feature", "parent_id": v.branch}, "endpoints": []any{}}, http.StatusCreated)
		page := step(t, "GET", p+"/branches?limit=1&sort_by=name&sort_order=asc", nil, http.StatusOK)
		next := digString(t, page.JSON(), "pagination", "next")
		step(t, "GET", p+"/branches?limit=1&sort_by=name&sort_order=asc&cursor="+next, nil, http.StatusOK)
		step(t, "GET", p+"/branches?search=feat&include_deleted=false", nil, http.StatusOK)
		step(t, "GET", p+"/branches/"+v.branch, nil, http.StatusOK)
		step(t, "DELETE", p+"/branches/"+v.branch, nil, http.StatusConflict)
		step(t, "GET", p+"/branches/br-nope", nil, http.StatusNotFound)
		// Injected faults answer in the error format too.
		for _, status := range []int{http.StatusServiceUnavailable, http.StatusLocked, http.StatusTooManyRequests} {
			v.e.SetFaults(Faults{Rate: 1, Statuses: []int{status}, Routes: []string{"GET /projects"}})
			step(t, "GET", "/projects", nil, status)
		}
		v.e.SetFaults(Faults{})
	})

	t.Run("operations, permissions and API keys", func(t *testing.T) {
		ops := step(t, "GET", p+"/operations", nil, http.StatusOK)
		step(t, "GET", p+"/operations?limit=1&cursor="+digString(t, ops.JSON(), "pagination", "cursor"), nil, http.StatusOK)
		step(t, "GET", p+"/operations/"+digString(t, ops.JSON(), "operations", 0, "id"), nil, http.StatusOK)
		step(t, "GET", p+"/operations/00000000-0000-4000-8000-000000000000", nil, http.StatusNotFound)
		grant := step(t, "POST", p+"/permissions", map[string]any{"email": "member@example.com"}, http.StatusOK)
		step(t, "POST", p+"/permissions", map[string]any{"email": "member@example.com"}, http.StatusConflict)
		step(t, "GET", p+"/permissions", nil, http.StatusOK)
		step(t, "DELETE", p+"/permissions/"+digString(t, grant.JSON(), "id"), nil, http.StatusOK)
		step(t, "DELETE", p+"/permissions/"+digString(t, grant.JSON(), "id"), nil, http.StatusNotFound)
		key := step(t, "POST", "/api_keys", map[string]any{"key_name": "conformance"}, http.StatusOK)
		v.do("GET", "/projects", nil) // the bootstrap key's use shows in the list
		step(t, "GET", "/api_keys", nil, http.StatusOK)
		id := digID(t, key.JSON(), "id")
		step(t, "DELETE", "/api_keys/"+id, nil, http.StatusOK)
		step(t, "DELETE", "/api_keys/"+id, nil, http.StatusNotFound)
		org := "/organizations/" + digString(t, step(t, "GET", p, nil, http.StatusOK).JSON(), "project", "org_id") + "/api_keys"
		scoped := step(t, "POST", org, map[string]any{"key_name": "scoped", "project_id": v.project}, http.StatusOK)
		step(t, "POST", org, map[string]any{"key_name": "admin"}, http.StatusOK)
		step(t, "GET", org, nil, http.StatusOK)
		step(t, "DELETE", org+"/"+digID(t, scoped.JSON(), "id"), nil, http.StatusOK)
		step(t, "GET", "/organizations/org-nope/api_keys", nil, http.StatusNotFound)
	})

	t.Run("computes, databases and roles", func(t *testing.T) {
		created := step(t, "POST", p+"/branches", map[string]any{"branch": map[string]any{"name": "compute"},
			"endpoints": []any{map[string]any{"type": "read_write", "autoscaling_limit_min_cu": 0.5, "autoscaling_limit_max_cu": 2}}}, http.StatusCreated)
		br := p + "/branches/" + digString(t, created.JSON(), "branch", "id")
		step(t, "PATCH", br, map[string]any{"branch": map[string]any{"name": "compute-2", "protected": false, "expires_at": nil}}, http.StatusOK)
		step(t, "GET", br+"/endpoints", nil, http.StatusOK)
		step(t, "GET", p+"/endpoints", nil, http.StatusOK)
		ro := step(t, "POST", p+"/endpoints", map[string]any{"endpoint": map[string]any{"branch_id": digString(t, created.JSON(), "branch", "id"),
			"type": "read_only", "settings": map[string]any{"pg_settings": map[string]string{"work_mem": "64MB"}}}}, http.StatusCreated)
		ep := p + "/endpoints/" + digString(t, ro.JSON(), "endpoint", "id")
		step(t, "GET", ep, nil, http.StatusOK)
		step(t, "PATCH", ep, map[string]any{"endpoint": map[string]any{"suspend_timeout_seconds": -1, "disabled": true}}, http.StatusOK)
		step(t, "DELETE", ep, nil, http.StatusOK)
		step(t, "DELETE", ep, nil, http.StatusNoContent)
		step(t, "GET", ep, nil, http.StatusNotFound)

		step(t, "POST", br+"/roles", map[string]any{"role": map[string]any{"name": "app"}}, http.StatusCreated)
		step(t, "POST", br+"/roles", map[string]any{"role": map[string]any{"name": "app"}}, http.StatusConflict)
		step(t, "GET", br+"/roles", nil, http.StatusOK)
		step(t, "GET", br+"/roles/app", nil, http.StatusOK)
		step(t, "GET", br+"/roles/app/reveal_password", nil, http.StatusOK)
		step(t, "POST", br+"/databases", map[string]any{"database": map[string]any{"name": "shop", "owner_name": "app"}}, http.StatusCreated)
		step(t, "GET", br+"/databases", nil, http.StatusOK)
		step(t, "GET", br+"/databases/shop", nil, http.StatusOK)
		step(t, "DELETE", br+"/roles/app", nil, http.StatusConflict)
		step(t, "PATCH", br+"/databases/shop", map[string]any{"database": map[string]any{"name": "store", "owner_name": "neondb_owner"}}, http.StatusOK)
		step(t, "DELETE", br+"/databases/store", nil, http.StatusOK)
		step(t, "DELETE", br+"/databases/store", nil, http.StatusNoContent)
		step(t, "DELETE", br+"/roles/app", nil, http.StatusOK)
		step(t, "DELETE", br+"/roles/app", nil, http.StatusNoContent)
		step(t, "GET", br+"/roles/app/reveal_password", nil, http.StatusNotFound)
		step(t, "DELETE", br, nil, http.StatusOK)
	})

	t.Run("the Data API and JWKS", func(t *testing.T) {
		created := step(t, "POST", p+"/branches", map[string]any{"branch": map[string]any{"name": "data-api"},
			"endpoints": []any{map[string]any{"type": "read_write"}}}, http.StatusCreated)
		br := p + "/branches/" + digString(t, created.JSON(), "branch", "id")
		api := br + "/data-api/neondb"
		step(t, "GET", api, nil, http.StatusNotFound)
		step(t, "POST", api, map[string]any{"auth_provider": "neon_auth"}, http.StatusBadRequest)
		step(t, "POST", br+"/auth", map[string]any{"auth_provider": "better_auth"}, http.StatusCreated)
		step(t, "POST", api, map[string]any{"auth_provider": "neon_auth", "add_default_grants": true,
			"settings": map[string]any{"db_schemas": []string{"public", "api"}, "db_max_rows": 500, "openapi_mode": "ignore-privileges"}}, http.StatusCreated)
		step(t, "POST", api, nil, http.StatusConflict)
		step(t, "GET", api, nil, http.StatusOK)
		step(t, "PATCH", api, map[string]any{"settings": map[string]any{"server_cors_allowed_origins": "https://app.example.com",
			"server_timing_enabled": true, "jwt_cache_max_lifetime": 60, "db_extra_search_path": "extensions"}}, http.StatusCreated)
		step(t, "PATCH", api, nil, http.StatusCreated)
		step(t, "PATCH", api, map[string]any{"settings": map[string]any{"openapi_mode": "follow-privileges"}}, http.StatusBadRequest)
		step(t, "DELETE", api, nil, http.StatusOK)
		step(t, "DELETE", api, nil, http.StatusNotFound)
		step(t, "POST", br+"/data-api/nope", nil, http.StatusNotFound)
		step(t, "POST", api, map[string]any{"auth_provider": "external", "jwks_url": "https://www.googleapis.com/oauth2/v3/certs",
			"provider_name": "Google", "jwt_audience": "app", "skip_auth_schema": true}, http.StatusCreated)
		step(t, "GET", api, nil, http.StatusOK)

		step(t, "GET", p+"/jwks", nil, http.StatusOK)
		added := step(t, "POST", p+"/jwks", map[string]any{"jwks_url": "https://www.googleapis.com/oauth2/v3/certs", "provider_name": "Google"}, http.StatusCreated)
		step(t, "POST", p+"/jwks", map[string]any{"jwks_url": "https://www.googleapis.com/oauth2/v3/certs", "provider_name": "Google"}, http.StatusConflict)
		step(t, "POST", p+"/jwks", map[string]any{"jwks_url": "https://clerk.example.com/.well-known/jwks.json", "provider_name": "Clerk",
			"branch_id": digString(t, created.JSON(), "branch", "id"), "jwt_audience": "app", "role_names": []string{"authenticated"},
			"skip_role_creation": true}, http.StatusCreated)
		step(t, "POST", p+"/jwks", map[string]any{"jwks_url": "https://bar.com", "provider_name": "foo"}, http.StatusBadRequest)
		step(t, "GET", p+"/jwks", nil, http.StatusOK)
		step(t, "DELETE", p+"/jwks/"+digString(t, added.JSON(), "jwks", "id"), nil, http.StatusOK)
		step(t, "DELETE", p+"/jwks/"+digString(t, added.JSON(), "jwks", "id"), nil, http.StatusNotFound)
	})

	t.Run("project-level family", func(t *testing.T) {
		step(t, "GET", p+"/auth/integrations", nil, http.StatusOK)
		step(t, "POST", "/projects/auth/create", v.createBody(v.project), http.StatusCreated)
		step(t, "POST", "/projects/auth/create", v.createBody(v.project), http.StatusConflict)
		step(t, "GET", p+"/auth/integrations", nil, http.StatusOK)
		step(t, "POST", "/projects/auth/keys", map[string]any{"project_id": v.project, "auth_provider": "stack"}, http.StatusCreated)

		driveListedKinds(t, v, true, "/projects/{project_id}/auth", p+"/auth", "stack")

		step(t, "GET", p+"/auth/email_server", nil, http.StatusOK)
		step(t, "PATCH", p+"/auth/email_server", standardEmail(), http.StatusOK)
		step(t, "GET", p+"/auth/email_server", nil, http.StatusOK)
		step(t, "PATCH", p+"/auth/email_server", map[string]any{"type": "shared"}, http.StatusOK)

		user := step(t, "POST", "/projects/auth/user", map[string]any{"project_id": v.project, "auth_provider": "stack", "email": "ada@example.com", "name": "Ada"}, http.StatusCreated)
		step(t, "DELETE", p+"/auth/users/"+digString(t, user.JSON(), "id"), nil, http.StatusNoContent)
		step(t, "POST", "/projects/auth/transfer_ownership", map[string]any{"project_id": v.project, "auth_provider": "stack"}, http.StatusOK)
		if err := v.e.ConfirmTransfer(v.project, "stack"); err != nil {
			t.Fatal(err)
		}
		step(t, "GET", p+"/auth/integrations", nil, http.StatusOK)
		step(t, "DELETE", p+"/auth/integration/stack", map[string]any{"delete_data": true}, http.StatusOK)
		step(t, "GET", p+"/auth/domains", nil, http.StatusNotFound)
	})

	t.Run("branch family", func(t *testing.T) {
		created := step(t, "POST", p+"/branches", map[string]any{"branch": map[string]any{"name": "dev", "init_source": "parent-data"},
			"endpoints": []any{map[string]any{"type": "read_write"}}, "annotation_value": map[string]string{"created-by": "neonctl"}}, http.StatusCreated)
		dev := digString(t, created.JSON(), "branch", "id")
		step(t, "GET", p+"/branches/"+dev, nil, http.StatusOK)
		step(t, "GET", p+"/branches", nil, http.StatusOK)
		b := p + "/branches/" + dev + "/auth"
		step(t, "GET", b, nil, http.StatusNotFound)
		step(t, "POST", b, map[string]any{"auth_provider": "better_auth", "database_name": "neondb"}, http.StatusCreated)
		step(t, "GET", b, nil, http.StatusOK)

		driveListedKinds(t, v, false, "/projects/{project_id}/branches/{branch_id}/auth", b, "better_auth")

		step(t, "GET", b+"/email_provider", nil, http.StatusNotFound)
		step(t, "PATCH", b+"/email_provider", standardEmail(), http.StatusOK)
		step(t, "PATCH", b+"/email_provider", map[string]any{"type": "standard", "sender_name": "Shop"}, http.StatusOK)
		step(t, "GET", b+"/email_provider", nil, http.StatusOK)
		step(t, "POST", b+"/email_provider/test", map[string]any{"recipient_email": "ops@example.com"}, http.StatusOK)
		step(t, "POST", b+"/send_test_email", map[string]any{"host": "smtp.example.com", "port": 587, "username": "u", "password": "p",
			"sender_email": "from@example.com", "sender_name": "A", "recipient_email": "ops@example.com"}, http.StatusOK)
		if err := v.e.RemoveEmailProvider(v.project, dev); err != nil {
			t.Fatal(err)
		}
		step(t, "GET", b+"/email_provider", nil, http.StatusNotFound)
		step(t, "PATCH", b+"/email_provider", map[string]any{"type": "shared", "sender_email": "noreply@example.com", "sender_name": "Shop"}, http.StatusOK)

		user := step(t, "POST", b+"/users", map[string]any{"email": "ada@example.com", "name": "Ada"}, http.StatusCreated)
		id := digString(t, user.JSON(), "id")
		step(t, "PUT", b+"/users/"+id+"/role", map[string]any{"roles": []string{"admin"}}, http.StatusOK)
		step(t, "DELETE", b+"/users/"+id, nil, http.StatusNoContent)

		step(t, "GET", b+"/allow_localhost", nil, http.StatusOK)
		step(t, "PATCH", b+"/allow_localhost", map[string]any{"allow_localhost": false}, http.StatusOK)
		step(t, "PATCH", b+"/config", map[string]any{"name": "Shop auth"}, http.StatusOK)
		step(t, "GET", b+"/plugins", nil, http.StatusOK)
		for _, st := range betterauth.Settings {
			if st.Read {
				step(t, "GET", b+"/"+st.Path, nil, http.StatusOK)
			}
			step(t, st.Write, b+"/"+st.Path, specOf(t, st).example, http.StatusOK)
		}
		step(t, "GET", b+"/plugins", nil, http.StatusOK)

		step(t, "DELETE", b, nil, http.StatusOK)
		step(t, "GET", b+"/plugins", nil, http.StatusNotFound)
		step(t, "POST", b, map[string]any{"auth_provider": "stack"}, http.StatusCreated)
		step(t, "DELETE", p+"/branches/"+dev+"?hard_delete=true", nil, http.StatusOK)
		step(t, "DELETE", p+"/branches/"+dev, nil, http.StatusNoContent)
		step(t, "GET", b, nil, http.StatusNotFound)
	})

	stats := v.e.Stats()
	for _, rt := range apiRoutes() {
		if !slices.ContainsFunc(mapKeys(stats.Requests[rt.key]), func(s int) bool { return s >= 200 && s < 300 }) {
			t.Errorf("%s was not driven to a 2xx", rt.key)
		}
	}
	found := validator.Violations()
	for _, x := range found {
		t.Errorf("OpenAPI violation: %s", x)
	}
	t.Logf("%d requests over %d routes, %d OpenAPI violations", stats.Total, len(apiRoutes()), len(found))
}

// driveListedKinds calls every route of each list-backed kind under auth
// (the routes' template of a Neon Auth's path; projectLevel: the deprecated
// family's, of the kinds that have it) and at (that path), on an
// integration of provider, as its description's example says: the held
// item added, then each route's request, each answered with a 2xx.
func driveListedKinds(t *testing.T, v *env, projectLevel bool, auth, at, provider string) {
	t.Helper()
	for _, k := range listedKinds {
		if projectLevel && !k.projectLevel {
			continue
		}
		ex := k.example
		want2xx(t, v.do("POST", at+"/"+k.path, ex.body(ex.held, provider)))
		for _, r := range ex.requests(k, auth, at, provider, ex.addedID) {
			var body any
			if r.body != nil {
				body = r.body
			}
			want2xx(t, v.do(r.method, r.path, body))
		}
	}
}

// officialProjectCreate is a ProjectCreateRequest with every field the
// official Neon provider (neondatabase/neon) sends for a neon_project with
// all its arguments set.
func officialProjectCreate() map[string]any {
	return map[string]any{"project": map[string]any{
		"name": "everything", "region_id": "aws-eu-central-1", "pg_version": 16, "provisioner": "k8s-neonvm",
		"store_passwords": true, "history_retention_seconds": 0, "org_id": "org-someone-else-123",
		"default_endpoint_settings": map[string]any{"autoscaling_limit_min_cu": 0.5, "autoscaling_limit_max_cu": 1, "suspend_timeout_seconds": 300},
		"settings": map[string]any{
			"quota":                      map[string]any{"active_time_seconds": 3600, "logical_size_bytes": 1 << 30},
			"allowed_ips":                map[string]any{"ips": []string{"1.2.3.4/24", "99.1.20.93"}, "protected_branches_only": true},
			"enable_logical_replication": true, "block_public_connections": false, "block_vpc_connections": false, "hipaa": false,
			"maintenance_window": map[string]any{"weekdays": []int{6, 7}, "start_time": "07:00", "end_time": "08:00"},
		},
		"branch": map[string]any{"name": "production", "role_name": "qux", "database_name": "baz",
			"annotations": map[string]string{"owner": "platform"}},
	}}
}

func standardEmail() map[string]any {
	return map[string]any{
		"type": "standard", "host": "smtp.example.com", "port": 587, "username": "mailer",
		"password": "smtp-password", "sender_email": "noreply@example.com", "sender_name": "Example",
	}
}

func mapKeys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Package neonapi has the types of every operation the emulator serves: the
// operations of its configuration (internal/apispec/neonapi/oapi-codegen.yaml,
// and those of the Better Auth settings) are those of the emulator's routes.
func TestTheGeneratedTypesCoverEveryServedOperation(t *testing.T) {
	doc, err := apispec.Document()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile("../apispec/neonapi/oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	listed, err := apispec.BranchAuthOperationIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^    - (\w+)$`).FindAllStringSubmatch(string(cfg), -1) {
		listed = append(listed, m[1])
	}
	var served []string
	for _, rt := range apiRoutes() {
		method, path, _ := strings.Cut(rt.key, " ")
		op := doc.Paths.Value(path).GetOperation(method)
		if op == nil {
			t.Errorf("the emulator serves %s, which the reference does not have", rt.key)
			continue
		}
		served = append(served, op.OperationID)
	}
	slices.Sort(listed)
	slices.Sort(served)
	if served = slices.Compact(served); !slices.Equal(listed, served) {
		t.Errorf("oapi-codegen.yaml lists\n  %s\nthe emulator serves\n  %s", strings.Join(listed, " "), strings.Join(served, " "))
	}
}
