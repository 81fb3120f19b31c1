package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// env is an emulator with one seeded project, driven in-process.
type env struct {
	t       *testing.T
	e       *Emulator
	key     string // bootstrap (personal admin) key
	project string // first seeded project
	branch  string // its default branch
	// handler serves the requests; the emulator itself unless a test puts
	// middleware in front of it.
	handler http.Handler
}

func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	if opts.AccountRequestsPerMinute == 0 {
		opts.AccountRequestsPerMinute = -1 // most tests are not about limits
	}
	if opts.RouteRequestsPerSecond == 0 {
		opts.RouteRequestsPerSecond = -1
	}
	e, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	project := e.ProjectIDs()[0]
	branch, err := e.DefaultBranchID(project)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, e: e, key: e.BootstrapKey(), project: project, branch: branch, handler: e}
}

// response is a recorded response.
type response struct {
	t      *testing.T
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map.
func (r *response) JSON() map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		r.t.Fatalf("body %q is not a JSON object: %v", r.Body, err)
	}
	return m
}

// Decode decodes the body into v.
func (r *response) Decode(v any) {
	r.t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.t.Fatalf("decode %q: %v", r.Body, err)
	}
}

// Message returns the message of an error body.
func (r *response) Message() string {
	r.t.Helper()
	var eb neonapi.GeneralError
	r.Decode(&eb)
	return eb.Message
}

// call sends an API request with key (no Authorization header when key is "").
// body may be nil, a string (sent raw) or a value to marshal.
func (v *env) call(key, method, path string, body any) *response {
	v.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			v.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req := httptest.NewRequest(method, "http://emulator"+apiPrefix+path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	v.handler.ServeHTTP(rec, req)
	return &response{t: v.t, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// do sends an API request with the bootstrap key.
func (v *env) do(method, path string, body any) *response {
	v.t.Helper()
	return v.call(v.key, method, path, body)
}

// control sends a control-surface request.
func (v *env) control(method, path string, body any) *response {
	v.t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req := httptest.NewRequest(method, "http://emulator"+controlPrefix+path, rd)
	rec := httptest.NewRecorder()
	v.e.ServeHTTP(rec, req)
	return &response{t: v.t, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// integrate creates the stack integration on the env's project.
func (v *env) integrate() map[string]any {
	v.t.Helper()
	r := v.do("POST", "/projects/auth/create", v.createBody(v.project))
	wantStatus(v.t, r, http.StatusCreated)
	return r.JSON()
}

func (v *env) createBody(project string) map[string]any {
	branch, _ := v.e.DefaultBranchID(project)
	return map[string]any{
		"auth_provider": "stack", "project_id": project, "branch_id": branch,
		"database_name": "neondb", "role_name": "neondb_owner",
	}
}

func wantStatus(t *testing.T, r *response, want int) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, want, r.Body)
	}
}

// wantError checks status, the error body format and that the message
// starts with prefix.
func wantError(t *testing.T, r *response, status int, prefix string) {
	t.Helper()
	wantStatus(t, r, status)
	var eb map[string]any
	if err := json.Unmarshal(r.Body, &eb); err != nil {
		t.Fatalf("error body %q is not JSON: %v", r.Body, err)
	}
	if code, ok := eb["code"].(string); !ok || code != "" {
		t.Errorf("code = %#v, want \"\"", eb["code"])
	}
	if id, _ := eb["request_id"].(string); id == "" || id != r.Header.Get("X-Request-Id") {
		t.Errorf("request_id = %q, header X-Request-Id = %q", id, r.Header.Get("X-Request-Id"))
	}
	if msg, _ := eb["message"].(string); !strings.HasPrefix(msg, prefix) {
		t.Errorf("message = %q, want prefix %q", msg, prefix)
	}
}

// wantJSON fails unless got (JSON bytes, or a value to encode) and want are
// the same JSON value: members in any order, numbers by value.
func wantJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	raw, ok := got.([]byte)
	if r, isRaw := got.(json.RawMessage); isRaw {
		raw, ok = r, true
	}
	if !ok {
		var err error
		if raw, err = json.Marshal(got); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	var g, w any
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Errorf("%s = %s: not JSON: %v", what, raw, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s: not JSON: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s =\n  %s\nwant\n  %s", what, bytes.TrimSpace(raw), want)
	}
}

func wantNoBody(t *testing.T, r *response) {
	t.Helper()
	if len(r.Body) != 0 {
		t.Errorf("body = %q, want none", r.Body)
	}
}

// dig walks decoded JSON by object keys and array indexes, failing the test
// where the shape is not what the path expects.
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, step := range path {
		switch k := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("JSON %v: want an object to find %q in", v, k)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("JSON %v: want an array with an element %d", v, k)
			}
			v = a[k]
		}
	}
	return v
}

// digString is dig for a string.
func digString(t *testing.T, v any, path ...any) string {
	t.Helper()
	s, ok := dig(t, v, path...).(string)
	if !ok {
		t.Fatalf("JSON %v at %v: want a string", v, path)
	}
	return s
}

// digNumber is dig for a number.
func digNumber(t *testing.T, v any, path ...any) float64 {
	t.Helper()
	n, ok := dig(t, v, path...).(float64)
	if !ok {
		t.Fatalf("JSON %v at %v: want a number", v, path)
	}
	return n
}

// digID is dig for an integer id, in decimal as a path holds it.
func digID(t *testing.T, v any, path ...any) string {
	t.Helper()
	return strconv.FormatFloat(digNumber(t, v, path...), 'f', 0, 64)
}

// transportClone is a clone of http.DefaultTransport.
func transportClone(t *testing.T) *http.Transport {
	t.Helper()
	tr, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		t.Fatalf("http.DefaultTransport is a %T", http.DefaultTransport)
	}
	return tr.Clone()
}
