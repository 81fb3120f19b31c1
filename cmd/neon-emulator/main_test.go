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
	"time"

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
	if !ok || !regexp.MustCompile(`^https?://127\.0\.0\.1:[0-9]+/api/v2/$`).MatchString(base) {
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
	first0, _ := projects[0].(map[string]any)
	projectID, _ := first0["id"].(string)
	_, body = first.call(key, "GET", "/projects/"+projectID+"/branches", nil)
	branches, _ := body["branches"].([]any)
	if len(branches) == 0 {
		t.Fatalf("GET branches = %v", body)
	}
	b0, _ := branches[0].(map[string]any)
	branchID, _ := b0["id"].(string)
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

func TestLatencyFromTheEnvironmentHoldsEveryAPIRequest(t *testing.T) {
	t.Setenv("NEON_EMULATOR_BOOTSTRAP_KEY", "env-key")
	t.Setenv("NEON_EMULATOR_LATENCY", "60ms")
	in := start(t, 1)
	began := time.Now()
	if status, _ := in.call("env-key", "GET", "/projects", nil); status != http.StatusOK {
		t.Fatalf("GET /projects = %d", status)
	}
	if took := time.Since(began); took < 60*time.Millisecond {
		t.Errorf("GET /projects with NEON_EMULATOR_LATENCY=60ms took %v, want ≥ 60ms", took)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-listen", "not-an-address"}, {"-projects", "-1"},
		{"-rate-limit-reading", "leaky"}, {"-deviate", "delete-everything"}, {"-latency", "-80ms"}} {
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

// control sends a control-surface request to base (a NEON_API_BASE_URL) with
// the control token ("" → no Authorization header) and returns the status.
func control(t *testing.T, base, token, method, path string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, strings.TrimSuffix(base, "api/v2/")+"_emulator"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// readyValue returns the value of a KEY=value ready line.
func readyValue(t *testing.T, lines []string, key string) string {
	t.Helper()
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, key+"="); ok {
			return v
		}
	}
	t.Fatalf("no %s line in %q", key, lines)
	return ""
}

func TestAWildcardListenPutsTheControlSurfaceBehindAToken(t *testing.T) {
	t.Setenv(controlTokenEnv, "")
	for _, listen := range []string{"0.0.0.0:0", ":0"} {
		t.Run(listen, func(t *testing.T) {
			ready := filepath.Join(t.TempDir(), "ready.env")
			const key = "wildcard-test-key"
			in := start(t, 3, "-listen", listen, "-bootstrap-key", key, "-ready-file", ready)
			token := readyValue(t, in.lines, "NEON_EMULATOR_CONTROL_TOKEN")
			remote := readyValue(t, in.lines, "NEON_EMULATOR_REMOTE_BASE_URLS")
			if content, _ := os.ReadFile(ready); string(content) != strings.Join(in.lines, "\n")+"\n" {
				t.Errorf("ready file = %q, want the printed lines", content)
			}
			if len(token) < 32 {
				t.Fatalf("control token %q is too short", token)
			}
			port := in.baseURL[strings.LastIndex(strings.TrimSuffix(in.baseURL, "/api/v2/"), ":"):]
			var remotes []string
			if remote != "" {
				remotes = strings.Split(remote, ",")
			}
			for _, r := range remotes {
				if !strings.HasSuffix(r, port) || strings.Contains(r, "127.0.0.1") || strings.Contains(r, "[::1]") {
					t.Errorf("remote base URL %q: want a non-loopback address with the port (%s)", r, port)
				}
			}

			// The printed base URL is usable from this host, and so is the
			// first address printed for other hosts.
			for _, base := range append([]string{in.baseURL}, remotes[:min(len(remotes), 1)]...) {
				t.Run(base, func(t *testing.T) {
					other := &instance{t: t, baseURL: base}
					if status, _ := other.call(key, "GET", "/projects", nil); status != http.StatusOK {
						t.Errorf("GET /projects = %d", status)
					}
					for name, tok := range map[string]string{"without a token": "", "with a wrong token": token + "0"} {
						if status := control(t, base, tok, "GET", "/stats"); status != http.StatusUnauthorized {
							t.Errorf("a control request %s: %d, want 401", name, status)
						}
					}
					if status := control(t, base, token, "GET", "/stats"); status != http.StatusOK {
						t.Errorf("a control request with the token: %d, want 200", status)
					}
				})
			}

			t.Run("call sends the token from the environment", func(t *testing.T) {
				url := strings.TrimSuffix(in.baseURL, "api/v2/") + "_emulator/stats"
				if err := call(t.Context(), []string{"GET", url}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "401") {
					t.Errorf("without the token: %v, want a 401 error", err)
				}
				t.Setenv(controlTokenEnv, token)
				if err := call(t.Context(), []string{"GET", url}, io.Discard, io.Discard); err != nil {
					t.Errorf("with the token: %v", err)
				}
			})
		})
	}
}

func TestALoopbackControlSurfaceIsOpenUnlessATokenIsGiven(t *testing.T) {
	t.Setenv(controlTokenEnv, "")
	t.Run("no token", func(t *testing.T) {
		in := start(t, 1, "-bootstrap-key", "k")
		if status := control(t, in.baseURL, "", "GET", "/stats"); status != http.StatusOK {
			t.Errorf("control request = %d, want 200", status)
		}
	})
	t.Run("a token given", func(t *testing.T) {
		t.Setenv(controlTokenEnv, "given-control-token")
		in := start(t, 1, "-bootstrap-key", "k")
		for _, l := range in.lines {
			if strings.Contains(l, "given-control-token") {
				t.Errorf("a given token is printed: %q", l)
			}
		}
		if status := control(t, in.baseURL, "", "GET", "/stats"); status != http.StatusUnauthorized {
			t.Errorf("control request without the token = %d, want 401", status)
		}
		if status := control(t, in.baseURL, "given-control-token", "GET", "/stats"); status != http.StatusOK {
			t.Errorf("control request with the token = %d, want 200", status)
		}
	})
}

func TestHelpTellsHowTheControlSurfaceIsProtected(t *testing.T) {
	t.Setenv("NEON_EMULATOR_BOOTSTRAP_KEY", "secret-bootstrap-from-env")
	t.Setenv(controlTokenEnv, "secret-control-from-env")
	var out strings.Builder
	if err := run(t.Context(), []string{"-help"}, io.Discard, &out); err == nil {
		t.Fatal("-help did not return flag.ErrHelp")
	}
	help := out.String()
	for _, want := range []string{"-control-token", "NEON_EMULATOR_CONTROL_TOKEN", "loopback-only", "Authorization: Bearer <control token>",
		"401", "NEON_EMULATOR_REMOTE_BASE_URLS", "-validate"} {
		if !strings.Contains(help, want) {
			t.Errorf("-help does not mention %q", want)
		}
	}
	for _, secret := range []string{"secret-bootstrap-from-env", "secret-control-from-env"} {
		if strings.Contains(help, secret) {
			t.Errorf("-help shows %q from the environment", secret)
		}
	}
}

// A call answered 429 is sent again after the Retry-After the emulator
// names: a script reading the emulator right after an apply shares the
// account's rate limit with it.
func TestCallWaitsOutTheRateLimit(t *testing.T) {
	em, err := emulator.New(emulator.Options{SeedProjects: 1, AccountRequestsPerMinute: 600})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(em)
	defer srv.Close()
	args := []string{"-key", em.BootstrapKey(), "GET", srv.URL + "/api/v2/projects"}
	for range 50 {
		if err := call(t.Context(), args, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	if got := em.Stats().RateLimited; got == 0 {
		t.Fatal("the emulator answered no 429: the test did not reach the rate limit")
	}
}

// -deviate (or NEON_EMULATOR_DEVIATE) makes the emulator answer as another
// description of the service says: here DELETE of an OAuth provider
// answers 204.
func TestRunDeviatesWhenAskedTo(t *testing.T) {
	t.Setenv("NEON_EMULATOR_DEVIATE", "oauth-provider-delete-204")
	in := start(t, 1, "-bootstrap-key", "deviate-key")
	status, body := in.call("deviate-key", "GET", "/projects", nil)
	projects, _ := body["projects"].([]any)
	if status != http.StatusOK || len(projects) != 1 {
		t.Fatalf("GET /projects = %d %v", status, body)
	}
	project, _ := projects[0].(map[string]any)["id"].(string)
	branches := "/projects/" + project + "/branches"
	_, listed := in.call("deviate-key", "GET", branches, nil)
	branch, _ := listed["branches"].([]any)[0].(map[string]any)["id"].(string)
	auth := branches + "/" + branch + "/auth"
	if status, _ := in.call("deviate-key", "POST", auth, map[string]any{"auth_provider": "better_auth"}); status != http.StatusCreated {
		t.Fatalf("enabling Neon Auth = %d", status)
	}
	if status, _ := in.call("deviate-key", "POST", auth+"/oauth_providers", map[string]any{"id": "github"}); status != http.StatusOK {
		t.Fatalf("adding github = %d", status)
	}
	if status, _ := in.call("deviate-key", "DELETE", auth+"/oauth_providers/github", nil); status != http.StatusNoContent {
		t.Errorf("deleting github = %d, want 204", status)
	}
}
