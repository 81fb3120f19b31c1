package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
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
		{"a field the document lacks", "POST", "/projects", project(map[string]any{"history_retention_second": 1}), "project.history_retention_second: unknown field"},
		{"a field the document lacks, deep", "POST", "/projects", project(map[string]any{"settings": map[string]any{"allowed_ips": map[string]any{"ip": "1.2.3.4"}}}),
			"project.settings.allowed_ips.ip: unknown field"},
		{"above the maximum", "POST", "/projects", project(map[string]any{"pg_version": 19}), "project.pg_version: must be from 14 to 18"},
		{"a string for an integer", "POST", "/projects", project(map[string]any{"pg_version": "17"}), "project.pg_version: must be an integer"},
		{"a fraction for an integer", "POST", "/projects", project(map[string]any{"history_retention_seconds": 1.5}), "project.history_retention_seconds: must be an integer"},
		{"below the minimum", "POST", "/projects", project(map[string]any{"history_retention_seconds": -1}), "project.history_retention_seconds: must be from 0 to 2592000"},
		{"too short", "POST", "/projects", project(map[string]any{"name": ""}), "project.name: must be 1 to 256 characters"},
		{"against the pattern", "POST", "/projects", project(map[string]any{"org_id": "Org_1"}), "project.org_id: must match ^[a-z0-9-]{1,60}$"},
		{"not an array", "POST", "/projects", project(map[string]any{"settings": map[string]any{"allowed_ips": map[string]any{"ips": "1.2.3.4"}}}),
			"project.settings.allowed_ips.ips: must be an array"},
		{"not a boolean", "POST", "/projects", project(map[string]any{"store_passwords": "yes"}), "project.store_passwords: must be a boolean"},
		{"a required field missing, deep", "POST", "/projects", project(map[string]any{"settings": map[string]any{
			"maintenance_window": map[string]any{"weekdays": []int{1}, "start_time": "07:00"}}}), "project.settings.maintenance_window.end_time: is required"},
		{"below a number's minimum", "POST", "/projects", project(map[string]any{"default_endpoint_settings": map[string]any{"autoscaling_limit_min_cu": 0.1}}),
			"project.default_endpoint_settings.autoscaling_limit_min_cu: must be at least 0.25"},
		{"not in the enum", "POST", "/projects", project(map[string]any{"settings": map[string]any{"audit_log_level": "loud"}}),
			"project.settings.audit_log_level: must be one of base, extended, full"},
		{"null where the document does not allow it", "POST", "/projects", project(map[string]any{"name": nil}), "project.name: must not be null"},
		{"the required object missing", "POST", "/projects", map[string]any{}, "project: is required"},
		{"not an object", "POST", "/projects", []any{}, "request body: must be a JSON object"},
		{"a map value of the wrong type", "POST", "/projects/" + v.project + "/branches", map[string]any{"endpoints": []any{map[string]any{"type": "read_only",
			"settings": map[string]any{"pg_settings": map[string]any{"work_mem": 64}}}}}, "endpoints[0].settings.pg_settings.work_mem: must be a string"},
		{"too many map entries", "POST", "/projects/" + v.project + "/branches", map[string]any{"annotation_value": fiftyOne()},
			"annotation_value: must have at most 50 properties, got 51"},
		{"not a date-time", "PATCH", br, map[string]any{"branch": map[string]any{"expires_at": "tomorrow"}},
			"branch.expires_at: must be an RFC 3339 time such as 2025-06-09T18:02:16Z"},
		{"an endpoint type the enum lacks", "POST", "/projects/" + v.project + "/endpoints", map[string]any{"endpoint": map[string]any{"branch_id": v.branch, "type": "primary"}},
			"endpoint.type: must be one of read_only, read_write"},
		{"an endpoint without its branch", "POST", "/projects/" + v.project + "/endpoints", map[string]any{"endpoint": map[string]any{"type": "read_only"}},
			"endpoint.branch_id: is required"},
		{"a role without a name", "POST", br + "/roles", map[string]any{"role": map[string]any{"no_login": true}}, "role.name: is required"},
		{"a database field the document lacks", "POST", br + "/databases", map[string]any{"database": map[string]any{"name": "a", "owner_name": "neondb_owner", "encoding": "UTF8"}},
			"database.encoding: unknown field"},
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

// Every route whose body the handler reads field by field (Neon Auth)
// still accepts every top-level field the document defines for it: none is
// refused as unknown.
func TestEveryRouteAcceptsTheTopLevelFieldsOfTheReference(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	params := strings.NewReplacer("{project_id}", v.project, "{branch_id}", v.branch, "{auth_provider}", "better_auth",
		"{oauth_provider_id}", "google", "{auth_user_id}", newUUID(), "{endpoint_id}", "ep-none", "{database_name}", "neondb",
		"{role_name}", "neondb_owner")
	checked := 0
	for _, rt := range newAPIRouter().routes {
		s := bodySchema(rt)
		if s == nil {
			continue
		}
		for name, field := range shapeOf(s).props {
			r := v.do(rt.method, params.Replace(rt.template), map[string]any{name: sampleOf(field, 0)})
			if r.Status == http.StatusBadRequest && strings.HasPrefix(errorMessage(r), name+": unknown field") {
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
// one, passes the check of every route that reads its body through the
// document: the emulator refuses no field the reference has.
func TestABodyWithEveryFieldOfTheReferencePassesTheCheck(t *testing.T) {
	var routes []string
	for _, rt := range newAPIRouter().routes {
		s := bodySchema(rt)
		if s == nil {
			continue
		}
		sample := sampleOf(s, 0)
		data, _ := json.Marshal(sample)
		var decoded any
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.UseNumber()
		if err := dec.Decode(&decoded); err != nil {
			t.Fatal(err)
		}
		if err := checkValue("", s, decoded); err != nil {
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

// sampleOf makes a valid value of s with every property it defines.
func sampleOf(s *openapi3.Schema, depth int) any {
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	if len(s.OneOf) > 0 {
		return sampleOf(s.OneOf[0].Value, depth)
	}
	switch schemaType(s) {
	case "object":
		out := map[string]any{}
		if depth > 6 {
			return out
		}
		sh := shapeOf(s)
		for name, p := range sh.props {
			out[name] = sampleOf(p, depth+1)
		}
		if sh.additional != nil && len(sh.props) == 0 {
			out["key"] = sampleOf(sh.additional, depth+1)
		}
		return out
	case "array":
		if s.Items == nil || s.Items.Value == nil {
			return []any{}
		}
		return []any{sampleOf(s.Items.Value, depth+1)}
	case "integer", "number":
		if s.Min != nil {
			return *s.Min
		}
		return 1
	case "boolean":
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
		if s.Pattern == "" || regexp.MustCompile(s.Pattern).MatchString(c) {
			return c
		}
	}
	return "sample"
}
