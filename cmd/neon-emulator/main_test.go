package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// instance is a running emulator command.
type instance struct {
	t       *testing.T
	baseURL string
	lines   []string
	stderr  *lockedBuffer
	stop    func() error
}

// start runs the command in-process and waits for its readiness line(s).
func start(t *testing.T, wantLines int, args ...string) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	stderr := &lockedBuffer{}
	go func() {
		err := run(ctx, args, pw, stderr)
		pw.CloseWithError(io.EOF)
		done <- err
	}()
	sc := bufio.NewScanner(pr)
	var lines []string
	for len(lines) < wantLines && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < wantLines {
		cancel()
		t.Fatalf("readiness lines = %q; run: %v", lines, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { _ = stop() })
	base, ok := strings.CutPrefix(lines[0], "NEON_API_BASE_URL=")
	if !ok || !regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+/api/v2/$`).MatchString(base) {
		t.Fatalf("first line = %q", lines[0])
	}
	return &instance{t: t, baseURL: base, lines: lines, stderr: stderr, stop: stop}
}

func (in *instance) call(key, method, path string, body any) (int, map[string]any) {
	in.t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, in.baseURL+strings.TrimPrefix(path, "/"), rd)
	if err != nil {
		in.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		in.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestRunServesTheAPIAndKeepsStateAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	ready := filepath.Join(dir, "ready.env")
	const key = "test-bootstrap-key"
	args := []string{"-bootstrap-key", key, "-state-file", state, "-ready-file", ready, "-projects", "2"}

	first := start(t, 1, args...)
	content, err := os.ReadFile(ready)
	if err != nil || string(content) != first.lines[0]+"\n" {
		t.Errorf("ready file = %q, %v; want the readiness line", content, err)
	}
	status, body := first.call(key, "GET", "/projects", nil)
	projects, _ := body["projects"].([]any)
	if status != http.StatusOK || len(projects) != 2 {
		t.Fatalf("GET /projects = %d %v", status, body)
	}
	projectID := projects[0].(map[string]any)["id"].(string)
	_, body = first.call(key, "GET", "/projects/"+projectID+"/branches", nil)
	branchID := body["branches"].([]any)[0].(map[string]any)["id"].(string)
	status, body = first.call(key, "POST", "/projects/auth/create", map[string]any{
		"auth_provider": "stack", "project_id": projectID, "branch_id": branchID,
		"database_name": "neondb", "role_name": "neondb_owner",
	})
	if status != http.StatusCreated {
		t.Fatalf("create integration = %d %v", status, body)
	}
	if err := first.stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if _, err := os.Stat(ready); !os.IsNotExist(err) {
		t.Errorf("ready file left after shutdown: %v", err)
	}

	second := start(t, 1, args...)
	status, body = second.call(key, "GET", "/projects/"+projectID+"/auth/integrations", nil)
	data, _ := body["data"].([]any)
	if status != http.StatusOK || len(data) != 1 {
		t.Fatalf("after restart: %d %v", status, body)
	}
	if err := second.stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

func TestRunPrintsAGeneratedKey(t *testing.T) {
	t.Setenv("NEON_EMULATOR_BOOTSTRAP_KEY", "")
	in := start(t, 2)
	key, ok := strings.CutPrefix(in.lines[1], "NEON_API_KEY=")
	if !ok || key == "" {
		t.Fatalf("second line = %q", in.lines[1])
	}
	if status, _ := in.call(key, "GET", "/projects", nil); status != http.StatusOK {
		t.Errorf("GET /projects with the printed key = %d", status)
	}
	if status, _ := in.call("wrong", "GET", "/projects", nil); status != http.StatusUnauthorized {
		t.Errorf("GET /projects with a wrong key = %d", status)
	}
}

func TestRunTakesTheKeyFromTheEnvironment(t *testing.T) {
	t.Setenv("NEON_EMULATOR_BOOTSTRAP_KEY", "env-key")
	in := start(t, 1)
	if status, _ := in.call("env-key", "GET", "/projects", nil); status != http.StatusOK {
		t.Errorf("GET /projects with the env key = %d", status)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-listen", "not-an-address"}, {"-projects", "-1"}} {
		if err := run(context.Background(), args, &out, io.Discard); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

func TestCallDrivesARunningEmulator(t *testing.T) {
	em, err := emulator.New(emulator.Options{SeedProjects: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(em)
	defer srv.Close()
	var out strings.Builder
	if err := call(t.Context(), []string{"-key", em.BootstrapKey(), "GET", srv.URL + "/api/v2/projects"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), em.ProjectIDs()[0]) {
		t.Fatalf("GET /projects printed %q", out.String())
	}
	out.Reset()
	err = call(t.Context(), []string{"-key", "wrong", "GET", srv.URL + "/api/v2/projects"}, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong key: %v, want a 401 error", err)
	}
	if err := call(t.Context(), []string{"POST", srv.URL + "/_emulator/stats/reset"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
}

func TestValidateLogsEveryViolationWithoutValues(t *testing.T) {
	const key = "validate-test-key"
	in := start(t, 1, "-bootstrap-key", key, "-validate")
	status, _ := in.call(key, "POST", "/projects/auth/create", map[string]any{
		"auth_provider": "auth0", "project_id": "p-1", "branch_id": "br-1", "role_name": "secret-looking-role",
	})
	if status != http.StatusBadRequest {
		t.Errorf("status = %d, want 400", status)
	}
	if status, _ := in.call(key, "GET", "/projects", nil); status != http.StatusOK {
		t.Errorf("GET /projects = %d", status)
	}
	if err := in.stop(); err != nil {
		t.Fatal(err)
	}
	logged := in.stderr.String()
	if !strings.Contains(logged, "OpenAPI violation") || !strings.Contains(logged, "/auth_provider") ||
		!strings.Contains(logged, "route=/projects/auth/create") {
		t.Errorf("stderr = %q, want the violation of POST /projects/auth/create", logged)
	}
	if n := strings.Count(logged, "OpenAPI violation"); n != 1 {
		t.Errorf("%d violations logged, want 1 (GET /projects conforms): %s", n, logged)
	}
	for _, value := range []string{"auth0", "secret-looking-role", key} {
		if strings.Contains(logged, value) {
			t.Errorf("stderr shows the value %q: %s", value, logged)
		}
	}
}
