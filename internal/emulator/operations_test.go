package emulator

import (
	"net/http"
	"slices"
	"testing"
)

// GET /projects/{project_id}/operations lists what the project's writes
// started, newest first, every one finished: the official Neon provider's
// acceptance tests (acc-import_test.go) poll it until nothing is running.
func TestOperationsListWhatTheProjectsWritesStarted(t *testing.T) {
	v := newEnv(t, Options{})
	created := v.do("POST", "/projects", map[string]any{"project": map[string]any{"name": "ops"}})
	wantStatus(t, created, http.StatusCreated)
	p := "/projects/" + digString(t, created.JSON(), "project", "id")
	branch := digString(t, created.JSON(), "branch", "id")
	wantStatus(t, v.do("POST", p+"/branches/"+branch+"/databases",
		map[string]any{"database": map[string]any{"name": "shop", "owner_name": "neondb_owner"}}), http.StatusCreated)

	actions := func(path string) ([]string, map[string]any) {
		t.Helper()
		r := v.do("GET", path, nil)
		wantStatus(t, r, http.StatusOK)
		var out []string
		for _, op := range digArray(t, r.JSON(), "operations") {
			if status := digString(t, op, "status"); status != "finished" {
				t.Errorf("operation %v has status %q, want finished", op, status)
			}
			out = append(out, digString(t, op, "action"))
		}
		return out, r.JSON()
	}
	all, _ := actions(p + "/operations")
	if want := []string{"apply_config", "start_compute", "create_timeline"}; !slices.Equal(all, want) {
		t.Fatalf("operations = %v, want %v (newest first)", all, want)
	}

	first, page := actions(p + "/operations?limit=2")
	cursor := digString(t, page, "pagination", "cursor")
	rest, page := actions(p + "/operations?limit=2&cursor=" + cursor)
	if got := slices.Concat(first, rest); !slices.Equal(got, all) {
		t.Errorf("pages of 2 = %v then %v, want %v", first, rest, all)
	}
	last, page := actions(p + "/operations?cursor=" + digString(t, page, "pagination", "cursor"))
	if _, paginated := page["pagination"]; len(last) != 0 || paginated {
		t.Errorf("the page past the end = %v (pagination %v), want an empty page without a cursor", last, page["pagination"])
	}
	wantError(t, v.do("GET", p+"/operations?cursor=bm90LWEtY3Vyc29y", nil), http.StatusBadRequest, "cursor: is not a cursor")

	id := digString(t, v.do("GET", p+"/operations?limit=1", nil).JSON(), "operations", 0, "id")
	if got := digString(t, v.do("GET", p+"/operations/"+id, nil).JSON(), "operation", "action"); got != "apply_config" {
		t.Errorf("GET operation %s: action %q, want apply_config", id, got)
	}
	wantError(t, v.do("GET", p+"/operations/00000000-0000-4000-8000-000000000000", nil), http.StatusNotFound, "operation 00000000-0000-4000-8000-000000000000 not found")
	wantError(t, v.do("GET", "/projects/"+v.project+"/operations/"+id, nil), http.StatusNotFound, "operation "+id+" not found")
}

// A project keeps its newest maxOperations operations.
func TestAProjectKeepsItsNewestOperations(t *testing.T) {
	v := newEnv(t, Options{})
	b := "/projects/" + v.project + "/branches/" + v.branch
	for range maxOperations + 2 {
		wantStatus(t, v.do("PATCH", b+"/databases/neondb", map[string]any{"database": map[string]any{"owner_name": "neondb_owner"}}), http.StatusOK)
	}
	r := v.do("GET", "/projects/"+v.project+"/operations?limit=1000", nil)
	wantStatus(t, r, http.StatusOK)
	if n := len(digArray(t, r.JSON(), "operations")); n != maxOperations {
		t.Errorf("%d operations listed after %d writes, want the newest %d", n, maxOperations+2, maxOperations)
	}
}
