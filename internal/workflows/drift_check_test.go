package workflows

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startLimit bounds how long the emulator may take to print its ready lines
// and to stop; it is a deadline, never a pause.
const startLimit = 30 * time.Second

// scriptPath is the drift check, relative to the repository root: the path
// the workflows in examples/ci call it by.
const scriptPath = "scripts/drift-check.sh"

// The drift check's three exit paths, for real: the configuration of the
// drift-detection guide is applied to neon-emulator, then
// scripts/drift-check.sh runs as a CI job runs it (CI=true, no terminal, no
// input, the credentials in the environment, GITHUB_STEP_SUMMARY set):
//
//   - right after the apply it exits 0 and says so;
//   - after a domain was removed through the API behind Terraform's back, it
//     exits 2 and the summary names the drifted resource and its action;
//   - with the API key revoked, it exits 1 and names the resource it could
//     not read.
//
// The summary written to GITHUB_STEP_SUMMARY is what the script printed; no
// summary holds an attribute value, and no output holds the API key.
func TestDriftCheck_exitPaths(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("runs the Terraform CLI against neon-emulator: set TF_ACC=1 (make test does)")
	}
	t.Parallel()
	h := newHarness(t)

	projectID := h.firstProjectID()
	h.terraform("apply", "-auto-approve", "-input=false", "-var", "project_id="+projectID)

	clean := h.driftCheck("-var", "project_id="+projectID)
	clean.expect(t, 0, "### Drift check of `tf`: no changes")

	// A colleague removes an origin from the whitelist, through the
	// project-level endpoint that reaches the production branch.
	h.emulatorCall("DELETE", h.baseURL+"projects/"+projectID+"/auth/domains",
		`{"auth_provider":"better_auth","domains":[{"domain":"https://admin.example.com"}]}`)
	drift := h.driftCheck("-var", "project_id="+projectID)
	drift.expect(t, 2, "### Drift check of `tf`: changes found",
		"Plan: 0 to add, 1 to change, 0 to destroy.",
		"Planned changes:\n\n| Resource | Action |\n|---|---|\n| `neon_auth_domains.this` | update |\n",
		"Changed outside Terraform since the last apply:\n\n| Resource | Change found |\n|---|---|\n| `neon_auth_domains.this` | update |\n")

	h.emulatorCall("POST", strings.TrimSuffix(h.baseURL, "api/v2/")+"_emulator/keys/revoke",
		fmt.Sprintf(`{"key":%q}`, h.key))
	failed := h.driftCheck("-var", "project_id="+projectID)
	failed.expect(t, 1, "### Drift check of `tf`: the plan failed", "(`neon_auth_integration.this`)")
	if !strings.Contains(failed.stderr, "HTTP 401") {
		t.Errorf("the log does not give the cause of the failed plan (HTTP 401):\n%s", failed.stderr)
	}

	for _, r := range []checkRun{clean, drift, failed} {
		for _, value := range []string{projectID, "example.com"} {
			if strings.Contains(r.summary, value) {
				t.Errorf("exit %d: the summary holds the value %q:\n%s", r.code, value, r.summary)
			}
		}
		if strings.Contains(r.stdout+r.stderr+r.summary, h.key) {
			t.Errorf("exit %d: the API key appears in the output", r.code)
		}
	}
}

// The scripts of this repository that the workflows in examples/ci call, by
// the path users copy them to.
var workflowScripts = []string{scriptPath, "scripts/preview-branch.sh"}

// Every workflow in examples/ci calls the script it is built on — the drift
// check, or the preview workflow's branch lookup — by the path users copy
// it to, and every script a workflow calls is executable there.
func TestWorkflows_callTheirScripts(t *testing.T) {
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "examples", "ci", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflow in examples/ci: %v", err)
	}
	want := map[string]string{"neon-auth-preview.yml": "scripts/preview-branch.sh"}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		script := scriptPath
		if w, ok := want[filepath.Base(f)]; ok {
			script = w
		}
		if !bytes.Contains(src, []byte("./"+script+" ")) {
			t.Errorf("%s does not call ./%s", filepath.Base(f), script)
		}
	}
	for _, script := range workflowScripts {
		fi, err := os.Stat(filepath.Join(root, script))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s is not executable (mode %v)", script, fi.Mode())
		}
	}
}

// harness is one emulator and one working directory: the provider and the
// emulator built from this repository, a dev_overrides CLI config, and the
// example configuration in tf/.
type harness struct {
	t        *testing.T
	root     string
	work     string
	emulator string // the neon-emulator binary
	cli      string // the Terraform CLI
	baseURL  string
	key      string
	env      []string // the environment of every command
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, root: repoRoot(t), work: t.TempDir()}
	h.cli = terraformCLI(t)
	bin := filepath.Join(h.work, "bin")
	h.goBuild(filepath.Join(bin, "terraform-provider-neon"), ".")
	h.emulator = filepath.Join(bin, "neon-emulator")
	h.goBuild(h.emulator, "./cmd/neon-emulator")
	h.startEmulator()

	cliConfig := filepath.Join(h.work, "terraformrc")
	writeFile(t, cliConfig, fmt.Sprintf(`provider_installation {
  dev_overrides {
    "neon-auth/neon" = %q
  }
  direct {}
}
`, bin))
	example, err := os.ReadFile(filepath.Join(h.root, "examples", "guides", "drift-detection", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.work, "tf", "main.tf"), string(example))

	h.env = append(inheritedEnv(),
		// The script runs `terraform`: the same CLI as the test.
		"PATH="+filepath.Dir(h.cli)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CI=true",
		"CHECKPOINT_DISABLE=1",
		"TF_IN_AUTOMATION=1",
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"NEON_API_BASE_URL="+h.baseURL,
		"NEON_API_KEY="+h.key,
	)
	return h
}

// inheritedEnv is this process's environment without anything that could
// point a command elsewhere: Terraform, Neon, emulator and GitHub settings.
func inheritedEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); {
		case strings.HasPrefix(name, "TF_"), strings.HasPrefix(name, "NEON_"), strings.HasPrefix(name, "GITHUB_"),
			name == "CHECKPOINT_DISABLE", name == "CI":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// startEmulator runs neon-emulator on a free loopback port, waits for its
// ready lines on stdout and reads the base URL and the key from its ready
// file, as the pull-request workflow does. It is stopped (SIGTERM) when the
// test ends.
func (h *harness) startEmulator() {
	t := h.t
	readyFile := filepath.Join(h.work, "emulator.env")
	stderrFile := filepath.Join(h.work, "emulator.log")
	stderr, err := os.Create(stderrFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stderr.Close() })
	cmd := exec.Command(h.emulator, "-listen", "127.0.0.1:0", "-projects", "1", "-ready-file", readyFile)
	cmd.Env = inheritedEnv()
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting neon-emulator: %v", err)
	}
	ready, exited := make(chan struct{}), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		signalled := false
		for sc.Scan() {
			if !signalled && strings.HasPrefix(sc.Text(), "NEON_API_KEY=") {
				close(ready)
				signalled = true
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(startLimit):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("neon-emulator did not stop within %v of SIGTERM", startLimit)
		}
	})
	select {
	case <-ready:
	case <-exited:
		t.Fatalf("neon-emulator exited before it was ready: %s", readFile(t, stderrFile))
	case <-time.After(startLimit):
		t.Fatalf("neon-emulator printed no ready lines within %v: %s", startLimit, readFile(t, stderrFile))
	}
	for _, line := range strings.Split(readFile(t, readyFile), "\n") {
		if v, ok := strings.CutPrefix(line, "NEON_API_BASE_URL="); ok {
			h.baseURL = v
		}
		if v, ok := strings.CutPrefix(line, "NEON_API_KEY="); ok {
			h.key = v
		}
	}
	if !strings.HasPrefix(h.baseURL, "http://127.0.0.1:") || h.key == "" {
		t.Fatalf("the ready file lacks NEON_API_BASE_URL on loopback or NEON_API_KEY (base URL %q)", h.baseURL)
	}
}

// checkRun is one run of the drift check.
type checkRun struct {
	code                    int
	stdout, stderr, summary string
}

// expect checks the exit code, that the step summary is what the script
// printed, and that the summary holds every part.
func (r checkRun) expect(t *testing.T, code int, parts ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("drift check exited %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	if r.summary != r.stdout {
		t.Errorf("exit %d: GITHUB_STEP_SUMMARY got\n%s\nbut the script printed\n%s", code, r.summary, r.stdout)
	}
	for _, p := range parts {
		if !strings.Contains(r.summary, p) {
			t.Errorf("exit %d: the summary lacks %q:\n%s", code, p, r.summary)
		}
	}
}

// driftCheck runs the script from the working directory with -chdir=tf, as
// the workflows run it from the repository root, with a step summary file
// of its own.
func (h *harness) driftCheck(planArgs ...string) checkRun {
	h.t.Helper()
	summary, err := os.CreateTemp(h.work, "step-summary-*.md")
	if err != nil {
		h.t.Fatal(err)
	}
	_ = summary.Close()
	args := append([]string{"-chdir=tf", "--"}, planArgs...)
	cmd := exec.CommandContext(h.t.Context(), filepath.Join(h.root, scriptPath), args...)
	cmd.Dir = h.work
	cmd.Env = append(slices.Clip(h.env), "GITHUB_STEP_SUMMARY="+summary.Name())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		h.t.Fatalf("running %s: %v", scriptPath, err)
	}
	return checkRun{code: code, stdout: stdout.String(), stderr: stderr.String(), summary: readFile(h.t, summary.Name())}
}

// terraform runs the CLI in tf/ and fails the test unless it succeeds.
func (h *harness) terraform(args ...string) {
	h.t.Helper()
	h.mustRun(h.cli, append([]string{"-chdir=tf"}, args...)...)
}

// emulatorCall sends a request with `neon-emulator call`, as a script would.
func (h *harness) emulatorCall(method, url, body string) string {
	h.t.Helper()
	args := []string{"call", method, url}
	if body != "" {
		args = append(args, body)
	}
	return h.mustRun(h.emulator, args...)
}

// firstProjectID is the id of the project the emulator seeded.
func (h *harness) firstProjectID() string {
	h.t.Helper()
	var list struct {
		Projects []struct {
			ID string `json:"id"`
		} `json:"projects"`
	}
	if err := json.Unmarshal([]byte(h.emulatorCall("GET", h.baseURL+"projects", "")), &list); err != nil || len(list.Projects) == 0 {
		h.t.Fatalf("listing the emulator's projects: %v (%d projects)", err, len(list.Projects))
	}
	return list.Projects[0].ID
}

func (h *harness) mustRun(name string, args ...string) string {
	h.t.Helper()
	cmd := exec.CommandContext(h.t.Context(), name, args...)
	cmd.Dir = h.work
	cmd.Env = h.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		h.t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), args[0], err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

func (h *harness) goBuild(out, pkg string) {
	h.t.Helper()
	cmd := exec.CommandContext(h.t.Context(), lookPath(h.t, "go"), "build", "-o", out, pkg)
	cmd.Dir = h.root
	if b, err := cmd.CombinedOutput(); err != nil {
		h.t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// repoRoot is the module root: two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// terraformCLI is the CLI the acceptance tests use: TF_ACC_TERRAFORM_PATH
// when it names a terraform binary (make test's pinned Terraform), else
// terraform on PATH.
func terraformCLI(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" && filepath.Base(p) == "terraform" {
		return p
	}
	return lookPath(t, "terraform")
}

func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not on PATH: %v", name, err)
	}
	return p
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
