package workflows

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// previewWorkflow is the pull-request workflow for preview branches,
// relative to the repository root.
const previewWorkflow = "examples/ci/neon-auth-preview.yml"

// The preview workflow, for real: its steps run as GitHub Actions runs them
// (bash, the job's environment, GITHUB_ENV between steps, each step's `if`)
// against neon-emulator, with the provider installed by `terraform init`
// from a local mirror and the configuration of examples/branch-preview,
// over the life of two pull requests whose branches a platform made:
//
//   - opened: the branch is found by its name, and the configuration is
//     applied to it in the pull request's own workspace, taking over the
//     origin the platform put in its whitelist;
//   - synchronize: applied again, nothing changes;
//   - closed after the platform deleted the branch: destroy empties the
//     state, and the workspace is deleted;
//   - closed while the branch exists: destroy leaves the branch as the
//     disposable preview configured it, and the workspace is deleted.
//
// Each pull request has a state of its own, and production never changes.
func TestPreviewWorkflow_pullRequestLifecycle(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("runs the Terraform CLI against neon-emulator: set TF_ACC=1 (make test does)")
	}
	t.Parallel()
	r := newPreviewRun(t)

	first := r.pullRequest(7, "feature-login")
	second := r.pullRequest(8, "feature-signup")
	production := r.authOf("main")

	first.run("opened").expect(0, "Apply complete! Resources: 7 added",
		"Trusted domain already on the branch taken over: "+first.origin)
	first.run("synchronize").expect(0, "No changes.")
	second.run("opened").expect(0, "Apply complete! Resources: 7 added")
	for _, pr := range []*pullRequest{first, second} {
		if got := r.hook(pr.branchID); got != pr.origin+"/api/auth-events" {
			t.Errorf("pull request %d: the preview's webhooks go to %q", pr.number, got)
		}
		if n := len(r.stateResources(pr.workspace())); n != 7 {
			t.Errorf("workspace %s holds %d resources, want 7: each pull request has a state of its own", pr.workspace(), n)
		}
	}

	// The platform deletes the first branch when its pull request closes,
	// before the workflow's destroy runs.
	r.emulatorCall("DELETE", r.baseURL+"projects/"+r.projectID+"/branches/"+first.branchID, "")
	first.run("closed").expect(0, "no branch named preview/feature-login any more", "Destroy complete!")
	configured := r.authOf(second.branchID)
	second.run("closed").expect(0, "Destroy complete! Resources: 7 destroyed")
	if got := r.authOf(second.branchID); got != configured {
		t.Errorf("the disposable preview's destroy changed the branch:\nwas %s\nnow %s", configured, got)
	}
	for _, pr := range []*pullRequest{first, second} {
		if r.workspaceExists(pr.workspace()) {
			t.Errorf("the workspace %s is left after its pull request closed", pr.workspace())
		}
	}
	if got := r.authOf("main"); got != production {
		t.Errorf("production changed:\nwas %s\nnow %s", production, got)
	}
}

// The workflow's triggers and concurrency: every event of a pull request's
// life, and one run at a time per pull request with none cancelled, so that
// a push waits for the apply before it and the destroy always runs.
func TestPreviewWorkflow_triggersAndConcurrency(t *testing.T) {
	wf := loadWorkflow(t)
	for _, event := range []string{"opened", "reopened", "synchronize", "closed"} {
		if !slices.Contains(wf.On.PullRequest.Types, event) {
			t.Errorf("the workflow does not run on pull_request %s (types %v)", event, wf.On.PullRequest.Types)
		}
	}
	if !strings.Contains(wf.Concurrency.Group, "${{ github.event.pull_request.number }}") || wf.Concurrency.CancelInProgress {
		t.Errorf("concurrency %+v: want a group per pull request number, cancel-in-progress false", wf.Concurrency)
	}
}

// workflow is what the test reads of a GitHub Actions workflow file.
type workflow struct {
	On struct {
		PullRequest struct {
			Types []string `yaml:"types"`
		} `yaml:"pull_request"`
	} `yaml:"on"`
	Concurrency struct {
		Group            string `yaml:"group"`
		CancelInProgress bool   `yaml:"cancel-in-progress"`
	} `yaml:"concurrency"`
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []step            `yaml:"steps"`
	} `yaml:"jobs"`
}

// step is a step of a job.
type step struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	If   string            `yaml:"if"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
}

func loadWorkflow(t *testing.T) workflow {
	t.Helper()
	var wf workflow
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(repoRoot(t), previewWorkflow))), &wf); err != nil {
		t.Fatalf("%s: %v", previewWorkflow, err)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("%s has %d jobs, want 1", previewWorkflow, len(wf.Jobs))
	}
	return wf
}

// previewRun is neon-emulator with production configured by
// examples/branch-preview/production, and a copy of the repository files
// the workflow uses: scripts/preview-branch.sh and, at the workflow's
// WORKING_DIR, examples/branch-preview.
type previewRun struct {
	*harness
	wf        workflow
	repo      string
	projectID string
}

func newPreviewRun(t *testing.T) *previewRun {
	t.Helper()
	h := &harness{t: t, root: repoRoot(t), work: t.TempDir()}
	h.cli = terraformCLI(t)
	h.emulator = filepath.Join(h.work, "bin", "neon-emulator")
	h.goBuild(h.emulator, "./cmd/neon-emulator")
	h.startEmulator()
	// terraform init installs the provider from a filesystem mirror, as the
	// README's recipe does before a release.
	mirror := filepath.Join(h.work, "mirror")
	runIn(t, h.root, append(inheritedEnv(), "GOFLAGS="), "bash", filepath.Join(h.root, "scripts", "local-mirror.sh"), mirror)
	h.env = append(inheritedEnv(),
		"PATH="+filepath.Dir(h.cli)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CI=true", "CHECKPOINT_DISABLE=1",
		"TF_CLI_CONFIG_FILE="+filepath.Join(mirror, "terraformrc"),
		"NEON_API_BASE_URL="+h.baseURL,
		"NEON_API_KEY="+h.key,
	)
	r := &previewRun{harness: h, wf: loadWorkflow(t), repo: filepath.Join(h.work, "repo")}
	r.projectID = h.firstProjectID()

	copyDir(t, filepath.Join(h.root, "scripts"), filepath.Join(r.repo, "scripts"))
	if err := os.Chmod(filepath.Join(r.repo, "scripts", "preview-branch.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyDir(t, filepath.Join(h.root, "examples", "branch-preview"), filepath.Join(r.repo, r.jobEnv()["WORKING_DIR"]))
	production := filepath.Join(h.work, "production")
	copyDir(t, filepath.Join(h.root, "examples", "branch-preview", "production"), production)
	env := append(slices.Clip(h.env), "TF_VAR_project_id="+r.projectID, "TF_VAR_google_client_id=acme-google-client",
		"TF_VAR_google_client_secret=acme-google-secret")
	runIn(t, production, env, h.cli, "init", "-input=false", "-no-color")
	runIn(t, production, env, h.cli, "apply", "-auto-approve", "-input=false", "-no-color")
	return r
}

// jobEnv is the job's environment as written (expressions unevaluated).
func (r *previewRun) jobEnv() map[string]string {
	for _, job := range r.wf.Jobs {
		return job.Env
	}
	return nil
}

// pullRequest is one pull request: its number, its git branch, the preview
// branch the platform made for it and the preview's origin.
type pullRequest struct {
	r        *previewRun
	number   int
	headRef  string
	branchID string
	origin   string
}

// pullRequest opens a pull request after the platform made its preview
// branch from production — named preview/<git branch>, with the preview's
// origin in its whitelist, as the Vercel integration makes it (through the
// emulator's control surface).
func (r *previewRun) pullRequest(number int, headRef string) *pullRequest {
	r.t.Helper()
	pr := &pullRequest{r: r, number: number, headRef: headRef, origin: fmt.Sprintf("https://pr-%d.preview.example.com", number)}
	body, _ := json.Marshal(map[string]any{"name": "preview/" + headRef, "domains": []string{pr.origin}})
	var made struct {
		Branch struct {
			ID string `json:"id"`
		} `json:"branch"`
	}
	out := r.emulatorCall("POST", strings.TrimSuffix(r.baseURL, "api/v2/")+"_emulator/projects/"+r.projectID+"/branches", string(body))
	if err := json.Unmarshal([]byte(out), &made); err != nil || made.Branch.ID == "" {
		r.t.Fatalf("the platform's branch: %v\n%s", err, out)
	}
	pr.branchID = made.Branch.ID
	return pr
}

func (pr *pullRequest) workspace() string { return fmt.Sprintf("pr-%d", pr.number) }

// jobRun is what one run of the job printed, and how it ended.
type jobRun struct {
	t      *testing.T
	event  string
	code   int
	output string
}

// expect checks the exit status of the job and that its output holds each
// part (line wrapping undone).
func (j jobRun) expect(code int, parts ...string) {
	j.t.Helper()
	if j.code != code {
		j.t.Fatalf("the job for %s exited %d, want %d:\n%s", j.event, j.code, code, j.output)
	}
	flat := strings.Join(strings.Fields(j.output), " ")
	for _, p := range parts {
		if !strings.Contains(flat, p) {
			j.t.Errorf("the job for %s does not say %q:\n%s", j.event, p, j.output)
		}
	}
}

// run runs the job for a pull_request event with action, step by step, as
// GitHub Actions does: `uses` steps are what the runner provides (the
// checkout is the copy of the repository, setup-terraform the CLI on PATH),
// each `run` goes to `bash --noprofile --norc -eo pipefail` in the
// repository with the job's environment and what earlier steps wrote to
// GITHUB_ENV, and a step whose `if` is false is skipped. The first step that
// fails ends the job.
func (pr *pullRequest) run(action string) jobRun {
	r := pr.r
	t := r.t
	t.Helper()
	exprs := map[string]string{
		"github.event.pull_request.number": fmt.Sprint(pr.number),
		"github.event.action":              action,
		"github.head_ref":                  pr.headRef,
		"secrets.NEON_API_KEY":             r.key,
		"vars.NEON_PROJECT_ID":             r.projectID,
	}
	ghEnv := filepath.Join(t.TempDir(), "github_env")
	writeFile(t, ghEnv, "")
	env := append(slices.Clip(r.env), "GITHUB_ENV="+ghEnv, "GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request")
	for _, job := range r.wf.Jobs {
		for name, v := range mergedEnv(r.wf.Env, job.Env) {
			env = append(env, name+"="+evaluate(t, exprs, v))
		}
		var out strings.Builder
		for _, s := range job.Steps {
			switch {
			case s.Uses != "":
				if !strings.HasPrefix(s.Uses, "actions/checkout@") && !strings.HasPrefix(s.Uses, "hashicorp/setup-terraform@") {
					t.Fatalf("step %q uses %s, which this test cannot provide", s.Name, s.Uses)
				}
				continue
			case s.If != "" && !condition(t, exprs, s.If):
				continue
			}
			stepEnv := append(slices.Clip(env), readGitHubEnv(t, ghEnv)...)
			for name, v := range s.Env {
				stepEnv = append(stepEnv, name+"="+evaluate(t, exprs, v))
			}
			script := filepath.Join(t.TempDir(), "step.sh")
			writeFile(t, script, evaluate(t, exprs, s.Run))
			cmd := exec.CommandContext(t.Context(), "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
			cmd.Dir, cmd.Env = r.repo, stepEnv
			var b bytes.Buffer
			cmd.Stdout, cmd.Stderr = &b, &b
			err := cmd.Run()
			fmt.Fprintf(&out, "--- %s\n%s", s.Name, b.String())
			if strings.Contains(b.String(), r.key) {
				t.Errorf("step %q printed the API key", s.Name)
			}
			var exit *exec.ExitError
			switch {
			case errors.As(err, &exit):
				return jobRun{t: t, event: action, code: exit.ExitCode(), output: out.String()}
			case err != nil:
				t.Fatalf("running step %q: %v", s.Name, err)
			}
		}
		return jobRun{t: t, event: action, output: out.String()}
	}
	return jobRun{}
}

// mergedEnv is the workflow's environment overlaid by the job's.
func mergedEnv(layers ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, l := range layers {
		for k, v := range l {
			out[k] = v
		}
	}
	return out
}

var expression = regexp.MustCompile(`\$\{\{\s*([^}]+?)\s*\}\}`)

// evaluate replaces each ${{ … }} of s by its value; an expression the test
// does not know fails it.
func evaluate(t *testing.T, exprs map[string]string, s string) string {
	t.Helper()
	return expression.ReplaceAllStringFunc(s, func(m string) string {
		name := expression.FindStringSubmatch(m)[1]
		v, ok := exprs[name]
		if !ok {
			t.Fatalf("the workflow uses ${{ %s }}, which this test does not provide", name)
		}
		return v
	})
}

var comparison = regexp.MustCompile(`^\s*([a-z_.]+)\s*(==|!=)\s*'([^']*)'\s*$`)

// condition evaluates a step's `if` of the form `<context> == '<text>'` (or
// !=), the only form the workflow uses.
func condition(t *testing.T, exprs map[string]string, cond string) bool {
	t.Helper()
	m := comparison.FindStringSubmatch(cond)
	if m == nil {
		t.Fatalf("the workflow's condition %q is not of the form <context> == '<text>'", cond)
	}
	v, ok := exprs[m[1]]
	if !ok {
		t.Fatalf("the workflow's condition uses %s, which this test does not provide", m[1])
	}
	return (v == m[3]) == (m[2] == "==")
}

// readGitHubEnv is what the steps so far wrote to GITHUB_ENV, as NAME=value
// lines.
func readGitHubEnv(t *testing.T, path string) []string {
	t.Helper()
	var env []string
	sc := bufio.NewScanner(strings.NewReader(readFile(t, path)))
	for sc.Scan() {
		if line := sc.Text(); strings.Contains(line, "=") {
			env = append(env, line)
		}
	}
	return env
}

// stateResources are the resources of a workspace's state in the
// configuration's directory.
func (r *previewRun) stateResources(workspace string) []json.RawMessage {
	r.t.Helper()
	var state struct{ Resources []json.RawMessage }
	raw := readFile(r.t, filepath.Join(r.repo, r.jobEnv()["WORKING_DIR"], "terraform.tfstate.d", workspace, "terraform.tfstate"))
	if err := json.Unmarshal([]byte(raw), &state); err != nil {
		r.t.Fatal(err)
	}
	return state.Resources
}

// workspaceExists reports whether the configuration's directory still has
// the workspace.
func (r *previewRun) workspaceExists(workspace string) bool {
	_, err := os.Stat(filepath.Join(r.repo, r.jobEnv()["WORKING_DIR"], "terraform.tfstate.d", workspace))
	return err == nil
}

// authOf is what the API shows of a branch's Neon Auth ("main": the
// production branch): the integration, the trusted domains, the Better Auth
// bundle and the webhooks.
func (r *previewRun) authOf(branchID string) string {
	r.t.Helper()
	if branchID == "main" {
		var list struct {
			Branches []struct {
				ID      string `json:"id"`
				Default bool   `json:"default"`
			} `json:"branches"`
		}
		if err := json.Unmarshal([]byte(r.emulatorCall("GET", r.baseURL+"projects/"+r.projectID+"/branches", "")), &list); err != nil {
			r.t.Fatal(err)
		}
		for _, b := range list.Branches {
			if b.Default {
				branchID = b.ID
			}
		}
	}
	auth := r.baseURL + "projects/" + r.projectID + "/branches/" + branchID + "/auth"
	var parts []string
	for _, path := range []string{"", "/domains", "/plugins", "/webhooks"} {
		parts = append(parts, r.emulatorCall("GET", auth+path, ""))
	}
	return strings.Join(parts, "\n")
}

// hook is where a branch's webhooks go.
func (r *previewRun) hook(branchID string) string {
	r.t.Helper()
	var hooks struct {
		URL string `json:"webhook_url"`
	}
	raw := r.emulatorCall("GET", r.baseURL+"projects/"+r.projectID+"/branches/"+branchID+"/auth/webhooks", "")
	if err := json.Unmarshal([]byte(raw), &hooks); err != nil {
		r.t.Fatal(err)
	}
	return hooks.URL
}
