package apispec

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fixedHandler answers every request with status and body.
func fixedHandler(status int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	})
}

// send passes one request through the validator in front of h.
func send(t *testing.T, h http.Handler, method, path, body string, auth bool) []Violation {
	t.Helper()
	v, err := NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "http://emulator"+path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth {
		req.Header.Set("Authorization", "Bearer some-api-key")
	}
	v.Middleware(h).ServeHTTP(httptest.NewRecorder(), req)
	return v.Violations()
}

// secrets are the values the cases below put into bodies: no violation may
// quote them.
var secrets = []string{"hunter2-secret", "oauth-client-secret", "not-a-port", "auth0"}

func wantViolations(t *testing.T, got []Violation, kind string, fragments ...string) {
	t.Helper()
	if len(got) == 0 {
		t.Fatalf("no violation found, want a %s violation mentioning %q", kind, fragments)
	}
	var all []string
	for _, v := range got {
		s := v.String()
		all = append(all, s)
		for _, secret := range secrets {
			if strings.Contains(s, secret) {
				t.Errorf("violation %q quotes the value %q", s, secret)
			}
		}
	}
	joined := strings.Join(all, "\n")
	for _, f := range fragments {
		if !strings.Contains(joined, f) {
			t.Errorf("violations\n%s\ndo not mention %q", joined, f)
		}
	}
	if got[0].Kind != kind {
		t.Errorf("kind = %q, want %q", got[0].Kind, kind)
	}
}

func TestTheDocumentLoadsAndValidates(t *testing.T) {
	doc, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	if doc.Paths.Find("/projects/{project_id}/branches/{branch_id}/auth") == nil {
		t.Error("the branch-scoped Neon Auth path is missing")
	}
	again, _ := Document()
	if again != doc {
		t.Error("the document is loaded more than once")
	}
}

func TestConformingTrafficHasNoViolation(t *testing.T) {
	got := send(t, fixedHandler(http.StatusOK, `{"providers":[{"id":"google","type":"shared"}]}`),
		"GET", "/api/v2/projects/p-1/auth/oauth_providers", "", true)
	if len(got) != 0 {
		t.Errorf("violations = %v", got)
	}
	got = send(t, fixedHandler(http.StatusNotFound, `{"code":"","message":"project not found","request_id":"r-1"}`),
		"GET", "/api/v2/projects/p-1/auth/oauth_providers", "", true)
	if len(got) != 0 {
		t.Errorf("an error in the GeneralError format: violations = %v", got)
	}
}

func TestTheValidatorCatchesABrokenResponse(t *testing.T) {
	cases := []struct {
		name, method, path, body string
		response                 string
		status                   int
		fragments                []string
	}{
		{
			name: "a value outside its enum", method: "GET", path: "/api/v2/projects/p-1/auth/oauth_providers", status: 200,
			response:  `{"providers":[{"id":"google","type":"custom","client_secret":"oauth-client-secret"}]}`,
			fragments: []string{"GET /projects/{project_id}/auth/oauth_providers → 200", "/providers/0/type", "enum"},
		},
		{
			name: "a required field missing", method: "GET", path: "/api/v2/projects/p-1/branches/br-1/auth/email_provider", status: 200,
			response:  `{"type":"standard","port":587,"username":"u","password":"hunter2-secret","sender_email":"a@example.com","sender_name":"A"}`,
			fragments: []string{`property "host" is missing`},
		},
		{
			name: "a required list missing", method: "GET", path: "/api/v2/projects", status: 200,
			response:  `{"projects":[]}`,
			fragments: []string{`"applications"`, `"integrations"`},
		},
		{
			name: "an error body not in the GeneralError format", method: "GET", path: "/api/v2/projects/p-1", status: 404,
			response:  `{"error":"not found"}`,
			fragments: []string{`property "message" is missing`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := send(t, fixedHandler(tc.status, tc.response), tc.method, tc.path, tc.body, true)
			wantViolations(t, got, "response", tc.fragments...)
		})
	}
}

func TestTheValidatorCatchesABrokenRequest(t *testing.T) {
	ok := fixedHandler(http.StatusOK, "")
	t.Run("a wrongly typed body field", func(t *testing.T) {
		body := `{"type":"standard","host":"smtp.example.com","port":"not-a-port","username":"u","password":"hunter2-secret","sender_email":"a@example.com","sender_name":"A"}`
		got := send(t, fixedHandler(http.StatusBadRequest, `{"code":"","message":"port: must be an integer"}`),
			"PATCH", "/api/v2/projects/p-1/auth/email_server", body, true)
		wantViolations(t, got, "request", "request body", "/port")
	})
	t.Run("a value outside its enum", func(t *testing.T) {
		got := send(t, ok, "POST", "/api/v2/projects/auth/create", `{"auth_provider":"auth0","project_id":"p-1","branch_id":"br-1"}`, true)
		wantViolations(t, got, "request", "/auth_provider")
	})
	t.Run("no API key", func(t *testing.T) {
		got := send(t, ok, "GET", "/api/v2/projects", "", false)
		wantViolations(t, got, "request", "security: ")
	})
	t.Run("a path the API does not have", func(t *testing.T) {
		got := send(t, fixedHandler(http.StatusNotFound, `{"code":"","message":"not found"}`), "GET", "/api/v2/projects/p-1/nothing", "", true)
		wantViolations(t, got, "request", "/api/v2/projects/p-1/nothing", "no such path")
	})
	t.Run("a body where the operation takes none", func(t *testing.T) {
		got := send(t, fixedHandler(http.StatusOK, `{"providers":[]}`), "GET", "/api/v2/projects/p-1/auth/oauth_providers", `{"x":1}`, true)
		wantViolations(t, got, "request", "request body")
	})
}

func TestOtherPathsAndCutConnectionsAreNotValidated(t *testing.T) {
	if got := send(t, fixedHandler(http.StatusOK, `not json`), "GET", "/_emulator/healthz", "", false); len(got) != 0 {
		t.Errorf("the control surface was validated: %v", got)
	}
	v, err := NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	cut := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		hj, ok := w.(http.Hijacker)
		if !ok {
			t.Error("the response writer cannot be hijacked")
			return
		}
		conn, _, err := hj.Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		_ = conn.Close()
	})
	srv := httptest.NewServer(v.Middleware(cut))
	defer srv.Close()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/api/v2/projects", nil)
	req.Header.Set("Authorization", "Bearer k")
	if resp, err := srv.Client().Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatal("the connection was not cut")
	}
	if got := v.Violations(); len(got) != 0 {
		t.Errorf("a cut connection was validated: %v", got)
	}
}

func TestViolationsAreReportedAsTheyHappen(t *testing.T) {
	var reported []Violation
	v, err := NewValidator(func(x Violation) { reported = append(reported, x) })
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "http://emulator/api/v2/projects", nil)
	v.Middleware(fixedHandler(http.StatusOK, `{}`)).ServeHTTP(httptest.NewRecorder(), req)
	if len(reported) == 0 || len(reported) != len(v.Violations()) {
		t.Errorf("reported %v, recorded %v", reported, v.Violations())
	}
	v.Reset()
	if len(v.Violations()) != 0 {
		t.Error("Reset kept violations")
	}
}
