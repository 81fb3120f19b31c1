package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
)

// Request bodies are decided by the API reference: what its schema of the
// operation defines is accepted, what it does not define or what breaks its
// rules is refused with a 400 naming the field.
func TestRequestBodiesFollowTheAPIReference(t *testing.T) {
	v := newEnv(t, Options{})
	project := func(fields map[string]any) map[string]any { return map[string]any{"project": fields} }
	br := "/projects/" + v.project + "/branches/" + v.branch
	cases := []struct {
		name, method, path string
		body               any
		wantError          string
	}{
		{"a field the document lacks", "POST", "/projects", project(map[string]any{"history_retention_second": 1}), `project: property "history_retention_second" is unsupported`},
		{"a field the document lacks, deep", "POST", "/projects", project(map[string]any{"settings": map[string]any{"allowed_ips": map[string]any{"ip": "1.2.3.4"}}}),
			`project.settings.allowed_ips: property "ip" is unsupported`},
		{"above the maximum", "POST", "/projects", project(map[string]any{"pg_version": 19}), "project.pg_version: number must be at most 18"},
		{"a string for an integer", "POST", "/projects", project(map[string]any{"pg_version": "17"}), "project.pg_version: value must be an integer"},
		{"a fraction for an integer", "POST", "/projects", project(map[string]any{"history_retention_seconds": 1.5}), "project.history_retention_seconds: value must be an integer"},
		{"below the minimum", "POST", "/projects", project(map[string]any{"history_retention_seconds": -1}), "project.history_retention_seconds: number must be at least 0"},
		{"too short", "POST", "/projects", project(map[string]any{"name": ""}), "project.name: minimum string length is 1"},
		{"against the pattern", "POST", "/projects", project(map[string]any{"org_id": "Org_1"}), `project.org_id: string doesn't match the regular expression "^[a-z0-9-]{1,60}$"`},
		{"not an array", "POST", "/projects", project(map[string]any{"settings": map[string]any{"allowed_ips": map[string]any{"ips": "1.2.3.4"}}}),
			"project.settings.allowed_ips.ips: value must be an array"},
		{"not a boolean", "POST", "/projects", project(map[string]any{"store_passwords": "yes"}), "project.store_passwords: value must be a boolean"},
		{"a required field missing, deep", "POST", "/projects", project(map[string]any{"settings": map[string]any{
			"maintenance_window": map[string]any{"weekdays": []int{1}, "start_time": "07:00"}}}), "project.settings.maintenance_window.end_time: is required"},
		{"below a number's minimum", "POST", "/projects", project(map[string]any{"default_endpoint_settings": map[string]any{"autoscaling_limit_min_cu": 0.1}}),
			"project.default_endpoint_settings.autoscaling_limit_min_cu: number must be at least 0.25"},
		{"not in the enum", "POST", "/projects", project(map[string]any{"settings": map[string]any{"audit_log_level": "loud"}}),
			`project.settings.audit_log_level: value is not one of the allowed values ["base","extended","full"]`},
		{"null where the document does not allow it", "POST", "/projects", project(map[string]any{"name": nil}), "project.name: Value is not nullable"},
		{"the required object missing", "POST", "/projects", map[string]any{}, "project: is required"},
		{"not an object", "POST", "/projects", []any{}, "request body: must be a JSON object"},
		{"a map value of the wrong type", "POST", "/projects/" + v.project + "/branches", map[string]any{"endpoints": []any{map[string]any{"type": "read_only",
			"settings": map[string]any{"pg_settings": map[string]any{"work_mem": 64}}}}}, "endpoints[0].settings.pg_settings.work_mem: value must be a string"},
		{"too many map entries", "POST", "/projects/" + v.project + "/branches", map[string]any{"annotation_value": fiftyOne()},
			"annotation_value: there must be at most 50 properties"},
		{"not a date-time", "PATCH", br, map[string]any{"branch": map[string]any{"expires_at": "tomorrow"}},
			"branch.expires_at: must be an RFC 3339 time such as 2025-06-09T18:02:16Z"},
		{"a date-time Go cannot read", "PATCH", br, map[string]any{"branch": map[string]any{"expires_at": "2099-01-01T00:00:00+25:00"}},
			"branch.expires_at: must be an RFC 3339 time such as 2025-06-09T18:02:16Z"},
		{"an endpoint type the enum lacks", "POST", "/projects/" + v.project + "/endpoints", map[string]any{"endpoint": map[string]any{"branch_id": v.branch, "type": "primary"}},
			`endpoint.type: value is not one of the allowed values ["read_only","read_write"]`},
		{"an endpoint without its branch", "POST", "/projects/" + v.project + "/endpoints", map[string]any{"endpoint": map[string]any{"type": "read_only"}},
			"endpoint.branch_id: is required"},
		{"a role without a name", "POST", br + "/roles", map[string]any{"role": map[string]any{"no_login": true}}, "role.name: is required"},
		{"a database field the document lacks", "POST", br + "/databases", map[string]any{"database": map[string]any{"name": "a", "owner_name": "neondb_owner", "encoding": "UTF8"}},
			`database: property "encoding" is unsupported`},
	}
	before := len(v.e.ProjectIDs())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, v.do(tc.method, tc.path, tc.body), http.StatusBadRequest, tc.wantError)
		})
	}
	if after := len(v.e.ProjectIDs()); after != before {
		t.Errorf("refused requests created %d projects", after-before)
	}
}

func fiftyOne() map[string]string {
	m := map[string]string{}
	for i := range 51 {
		m[fmt.Sprintf("k%d", i)] = "v"
	}
	return m
}

// Every route that reads a body still accepts every top-level field the
// document defines for it: none is refused as unsupported.
func TestEveryRouteAcceptsTheTopLevelFieldsOfTheReference(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	params := strings.NewReplacer("{project_id}", v.project, "{branch_id}", v.branch, "{auth_provider}", "better_auth",
		"{oauth_provider_id}", "google", "{auth_user_id}", uuid.NewString(), "{endpoint_id}", "ep-none", "{database_name}", "neondb",
		"{role_name}", "neondb_owner")
	ops, err := referenceOperations()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, rt := range apiRoutes() {
		s := bodySchema(ops[rt.key])
		if s == nil {
			continue
		}
		method, template, _ := strings.Cut(rt.key, " ")
		for name, field := range s.Properties {
			r := v.do(method, params.Replace(template), map[string]any{name: sampleOf(field.Value, 0)})
			if r.Status == http.StatusBadRequest && strings.Contains(errorMessage(r), fmt.Sprintf("property %q is unsupported", name)) {
				t.Errorf("%s refuses %q, a field the API reference defines: %s", rt.key, name, r.Body)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("checked %d fields; the document defines more", checked)
	}
	t.Logf("%d top-level fields of the reference sent to their routes", checked)
}

// A body with every field the document defines, down to the last nested
// one, passes the check of every route that reads a body: the emulator
// refuses no field the reference has.
func TestABodyWithEveryFieldOfTheReferencePassesTheCheck(t *testing.T) {
	ops, err := referenceOperations()
	if err != nil {
		t.Fatal(err)
	}
	var routes []string
	for _, rt := range apiRoutes() {
		s := bodySchema(ops[rt.key])
		if s == nil {
			continue
		}
		data, _ := json.Marshal(sampleOf(s, 0))
		req := httptest.NewRequest(http.MethodPost, "http://emulator/", nil)
		if err := checkBody(req, ops[rt.key].body, data); err != nil {
			t.Errorf("%s: a body with every field of the reference is refused: %v\nbody: %s", rt.key, err, data)
		}
		routes = append(routes, rt.key)
	}
	t.Logf("%d routes checked", len(routes))
	for _, want := range []string{"POST /projects", "PATCH /projects/{project_id}", "POST /projects/{project_id}/branches",
		"POST /projects/{project_id}/endpoints", "POST /projects/{project_id}/branches/{branch_id}/roles"} {
		if !slices.Contains(routes, want) {
			t.Errorf("%s has no request body in the reference", want)
		}
	}
}

// bodySchema is the JSON schema of an operation's request body; nil when it
// has none.
func bodySchema(op referenceOperation) *openapi3.Schema {
	if op.body == nil || op.body.Content.Get(jsonMediaType) == nil {
		return nil
	}
	return op.body.Content.Get(jsonMediaType).Schema.Value
}

// sampleOf makes a valid value of s with every property it defines.
func sampleOf(s *openapi3.Schema, depth int) any {
	switch {
	case len(s.Enum) > 0:
		return s.Enum[0]
	case len(s.OneOf) > 0:
		return sampleOf(s.OneOf[0].Value, depth)
	case s.Type.Is(openapi3.TypeObject) || len(s.Properties) > 0:
		out := map[string]any{}
		if depth > 6 {
			return out
		}
		for name, p := range s.Properties {
			out[name] = sampleOf(p.Value, depth+1)
		}
		if add := s.AdditionalProperties.Schema; add != nil && len(s.Properties) == 0 {
			out["key"] = sampleOf(add.Value, depth+1)
		}
		return out
	case s.Type.Is(openapi3.TypeArray):
		if s.Items == nil || s.Items.Value == nil {
			return []any{}
		}
		return []any{sampleOf(s.Items.Value, depth+1)}
	case s.Type.Is(openapi3.TypeInteger), s.Type.Is(openapi3.TypeNumber):
		if s.Min != nil {
			return *s.Min
		}
		return 1
	case s.Type.Is(openapi3.TypeBoolean):
		return true
	}
	return sampleString(s)
}

func sampleString(s *openapi3.Schema) string {
	if s.Format == "date-time" {
		return "2099-01-02T03:04:05Z"
	}
	candidates := []string{"sample", "a-1", "br-sample-1", "https://example.com", "a@example.com"}
	for _, c := range candidates {
		if (s.Pattern == "" || regexp.MustCompile(s.Pattern).MatchString(c)) && (s.Format != "email" || validEmail(c)) {
			return c
		}
	}
	return "sample"
}
