package emulator

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRouting(t *testing.T) {
	v := newEnv(t, Options{})
	t.Run("unknown path is 404", func(t *testing.T) {
		wantError(t, v.do("GET", "/projects/"+v.project+"/nothing", nil), http.StatusNotFound, "not found")
		wantError(t, v.do("GET", "/projects/", nil), http.StatusNotFound, "")
	})
	t.Run("wrong method is 405 with Allow", func(t *testing.T) {
		r := v.do("PUT", "/projects/"+v.project+"/auth/domains", nil)
		wantError(t, r, http.StatusMethodNotAllowed, "")
		// A GET route takes HEAD too, as every ServeMux pattern with GET does.
		if got := r.Header.Get("Allow"); got != "DELETE, GET, HEAD, POST" {
			t.Errorf("Allow = %q", got)
		}
		wantError(t, v.do("GET", "/projects/auth/create", nil), http.StatusMethodNotAllowed, "")
	})
	t.Run("outside /api/v2 is 404", func(t *testing.T) {
		rec := httptest.NewRecorder()
		v.e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://emulator/api/v1/projects", nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("status = %d", rec.Code)
		}
	})
	t.Run("literal segments win over parameters", func(t *testing.T) {
		// POST /projects/auth/keys must not be taken for a project "auth".
		wantError(t, v.do("POST", "/projects/auth/keys", map[string]any{"project_id": v.project, "auth_provider": "stack"}),
			http.StatusNotFound, "integration with auth provider stack not found")
	})
}

func TestRequestBodyRules(t *testing.T) {
	v := newEnv(t, Options{})
	v.integrate()
	path := "/projects/" + v.project + "/auth/domains"
	postAs := func(contentType, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "http://emulator/api/v2"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+v.key)
		req.Header.Set("Content-Type", contentType)
		rec := httptest.NewRecorder()
		v.e.ServeHTTP(rec, req)
		return rec
	}
	t.Run("JSON content type is required", func(t *testing.T) {
		if rec := postAs("application/x-www-form-urlencoded", "domain=https://a.example.com&auth_provider=stack"); rec.Code != http.StatusUnsupportedMediaType {
			t.Errorf("status = %d, body %s", rec.Code, rec.Body)
		}
	})
	t.Run("charset parameter is fine", func(t *testing.T) {
		if rec := postAs("application/json; charset=utf-8", `{"domain":"https://a.example.com","auth_provider":"stack"}`); rec.Code != http.StatusCreated {
			t.Errorf("status = %d, body %s", rec.Code, rec.Body)
		}
	})
	t.Run("bodies over 1 MiB are refused", func(t *testing.T) {
		big := `{"domain":"https://b.example.com","auth_provider":"stack","pad":"` + strings.Repeat("x", 1<<20) + `"}`
		wantError(t, v.do("POST", path, big), http.StatusRequestEntityTooLarge, "")
	})
	t.Run("trailing data is refused", func(t *testing.T) {
		wantError(t, v.do("POST", path, `{"domain":"https://c.example.com","auth_provider":"stack"} {}`), http.StatusBadRequest, "")
	})
	t.Run("null counts as absent", func(t *testing.T) {
		wantError(t, v.do("POST", path, `{"domain":null,"auth_provider":"stack"}`), http.StatusBadRequest, "domain: is required")
	})
}
