package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The preview section: examples/branch-preview over a pull request's life,
// on a preview branch that a platform made from production once
// production's Neon Auth was configured (examples/branch-preview/production)
// and put the preview's origin into, as the Vercel integration does: the
// branch starts with a copy, and the preview configuration takes its
// objects over. Cases: the example as written (a disposable preview,
// restore_on_destroy = false), the same configuration restoring on destroy
// (Google with production's app, which can be restored), the branch deleted
// by the platform before the destroy, and, for comparison, a branch made
// before production had Neon Auth, where every object is created. Each
// case: apply, a no-change plan (with refresh) 4 s later, destroy, at the
// documented limits. A take-over may cost at most one read per object taken
// over, and the re-plan nothing extra; a disposable destroy sends no write
// for what was taken over, and one after the platform deleted the branch
// sends nothing but reads.

// previewCase is one way the preview branch came to be, and went.
type previewCase struct {
	name      string
	inherited bool // made after production's Neon Auth, so it starts with a copy
	// restoring: the configuration with restore_on_destroy = true (Google
	// given production's app); otherwise the example as written.
	restoring bool
	// deletedFirst: the platform deletes the branch before the destroy.
	deletedFirst bool
}

var previewCases = []previewCase{
	{name: "platform's branch, disposable (as written)", inherited: true},
	{name: "platform's branch, restoring", inherited: true, restoring: true},
	{name: "platform's branch, deleted before destroy", inherited: true, deletedFirst: true},
	{name: "branch made first (created)", inherited: false},
}

// previewOrigin is the origin the platform puts into the preview branch's
// whitelist, the example's preview_origin.
const previewOrigin = "https://pr-123.preview.example.com"

type previewResult struct {
	c                    previewCase
	apply, plan, destroy phase
	takenOver            int // "… taken over" warnings of the apply
}

// getCount, writeCount and conflictCount are a phase's GETs, other requests, and 409s.
func getCount(p phase) int {
	return countRequests(p, func(route string, _ int) bool { return strings.HasPrefix(route, "GET ") })
}

func writeCount(p phase) int {
	return countRequests(p, func(route string, _ int) bool { return !strings.HasPrefix(route, "GET ") })
}

func conflictCount(p phase) int {
	return countRequests(p, func(_ string, status int) bool { return status == http.StatusConflict })
}

func countRequests(p phase, keep func(route string, status int) bool) int {
	n := 0
	for route, byStatus := range p.requests.Requests {
		for status, c := range byStatus {
			if keep(route, status) {
				n += c
			}
		}
	}
	return n
}

// exampleFiles copies the .tf files of an example directory into dir.
func exampleFiles(example, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(example, "*.tf"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no configuration in %s (run the bench from the repository root)", example)
	}
	for _, f := range files {
		if err := copyFile(f, filepath.Join(dir, filepath.Base(f))); err != nil {
			return err
		}
	}
	return nil
}

// takenOverWarning is the warning of a take-over made by the apply ("…
// taken over"), not the plan's of one to come ("… will be taken over").
var takenOverWarning = regexp.MustCompile(`(Inherited [^\n]*[^e]|Trusted domain already on the branch) taken over`)

// deleteBranch deletes a branch through the API, as the platform does when
// the pull request closes.
func deleteBranch(s *server, projectID, branchID string) error {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, s.baseURL+"projects/"+projectID+"/branches/"+branchID, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.emu.BootstrapKey())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("deleting branch %s: HTTP %d", branchID, resp.StatusCode)
	}
	return nil
}

// restoreSetting is the provider block's restore_on_destroy = false (not
// the comments that mention it).
var restoreSetting = regexp.MustCompile(`(?m)^([ \t]*restore_on_destroy[ \t]*=[ \t]*)false[ \t]*$`)

// restoringVariant turns the example into a configuration for a branch that
// outlives it: restore_on_destroy = true, and the inherited Google sign-in
// given production's own app (the shared keys could not be restored).
func restoringVariant(dir string) error {
	path := filepath.Join(dir, "main.tf")
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out := restoreSetting.ReplaceAllString(string(src), "${1}true")
	out = strings.Replace(out, `  provider_id = "google"
}`, `  provider_id   = "google"
  client_id     = "acme-google-client"
  client_secret = "acme-google-secret"
}`, 1)
	if len(restoreSetting.FindAllString(string(src), -1)) != 1 || !strings.Contains(out, "acme-google-secret") {
		return fmt.Errorf("%s: no provider block with restore_on_destroy = false, or no Google provider without credentials, to turn into the restoring variant", path)
	}
	return os.WriteFile(path, []byte(out), 0o600)
}

// benchPreview measures one case on its own emulator.
func benchPreview(work, rc string, c previewCase, o options) (previewResult, error) {
	r := previewResult{c: c}
	s, err := startEmulator(limitReading, 1, true, "")
	if err != nil {
		return r, err
	}
	defer s.stop()
	project := s.emu.ProjectIDs()[0]
	base := filepath.Join(work, "preview-"+strings.NewReplacer(" ", "-", "'", "", ",", "", "(", "", ")", "").Replace(c.name))
	prodDir, previewDir := filepath.Join(base, "production"), filepath.Join(base, "preview")
	if err := exampleFiles("examples/branch-preview/production", prodDir); err != nil {
		return r, err
	}
	if err := exampleFiles("examples/branch-preview", previewDir); err != nil {
		return r, err
	}
	if c.restoring {
		if err := restoringVariant(previewDir); err != nil {
			return r, err
		}
	}
	env := append(s.env(), "TF_VAR_project_id="+project, "TF_VAR_google_client_id=acme-google-client",
		"TF_VAR_google_client_secret=acme-google-secret")
	par := fmt.Sprintf("-parallelism=%d", o.parallelism)
	apply := []string{"apply", "-auto-approve", "-input=false", par}
	var branch string
	if !c.inherited {
		if branch, err = s.emu.AddBranch(project, "pr-123"); err != nil {
			return r, err
		}
	}
	if _, err := terraform(prodDir, rc, env, s, "production: apply", apply, []int{0}); err != nil {
		return r, err
	}
	if c.inherited {
		b, err := s.emu.CreateBranch(project, emulator.BranchOptions{Name: "preview/pr-123", Domains: []string{previewOrigin}})
		if err != nil {
			return r, err
		}
		branch = b.ID
	}
	env = append(env, "TF_VAR_preview_branch_id="+branch)
	// Each command is its own provider process, which cannot know what the
	// one before spent of the account's bucket: let it refill, so that the
	// counts are of requests, not of requests and retries after a 429.
	time.Sleep(4 * time.Second)
	if r.apply, err = terraform(previewDir, rc, env, s, c.name+": apply", apply, []int{0}); err != nil {
		return r, err
	}
	log, err := os.ReadFile(r.apply.log)
	if err != nil {
		return r, err
	}
	r.takenOver = len(takenOverWarning.FindAll(log, -1))
	time.Sleep(4 * time.Second)
	if r.plan, err = terraform(previewDir, rc, env, s, c.name+": plan (refresh)", planArgs(par, true), []int{0}); err != nil {
		return r, err
	}
	if c.deletedFirst {
		if err := deleteBranch(s, project, branch); err != nil {
			return r, err
		}
	}
	time.Sleep(4 * time.Second)
	r.destroy, err = terraform(previewDir, rc, env, s, c.name+": destroy", []string{"destroy", "-auto-approve", "-input=false", par}, []int{0})
	return r, err
}

func writePreviewReport(b *strings.Builder, results []previewResult) {
	fmt.Fprintln(b, "\n## Preview branches: a pull request's life")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "`examples/branch-preview` on a branch that a platform made from production after `examples/branch-preview/production` "+
		"was applied, with the preview's origin in its whitelist (the branch starts with a copy of production's Neon Auth, which "+
		"the configuration takes over): as written (a disposable preview, `restore_on_destroy = false`), restoring on destroy "+
		"(`true`, Google given production's app), and with the branch deleted by the platform before the destroy; and on a "+
		"branch made before production had Neon Auth (everything created). Documented limits; each command 4 s after the one before.")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| case | taken over | apply: reads / writes (409s) | plan (refresh) | destroy: reads / writes |")
	fmt.Fprintln(b, "|---|---|---|---|---|")
	byCase := map[string]previewResult{}
	for _, r := range results {
		byCase[r.c.name] = r
		fmt.Fprintf(b, "| %s | %d | %d / %d (%d) | %d | %d / %d |\n", r.c.name, r.takenOver,
			getCount(r.apply), writeCount(r.apply), conflictCount(r.apply), r.plan.total(), getCount(r.destroy), writeCount(r.destroy))
	}
	fmt.Fprintln(b)
	writeVerdicts(b, previewVerdicts(results, byCase))
	fmt.Fprintln(b)
	var phases []phase
	for _, r := range results {
		phases = append(phases, r.apply, r.plan, r.destroy)
	}
	writePhases(b, phases...)
}

// previewVerdicts are the section's targets, for the cases that ran.
func previewVerdicts(results []previewResult, byCase map[string]previewResult) []verdict {
	var verdicts []verdict
	disposable, ok1 := byCase[previewCases[0].name]
	restoring, ok2 := byCase[previewCases[1].name]
	deleted, ok3 := byCase[previewCases[2].name]
	made, ok4 := byCase[previewCases[3].name]
	if ok1 && ok4 {
		extra := getCount(disposable.apply) - getCount(made.apply)
		verdicts = append(verdicts,
			verdict{ok: disposable.takenOver > 0, what: fmt.Sprintf("the platform's branch: %d objects taken over (warnings)", disposable.takenOver)},
			verdict{ok: extra <= disposable.takenOver, what: fmt.Sprintf("taking over cost %d reads more than creating, for %d objects (at most one each)", extra, disposable.takenOver)},
			verdict{ok: disposable.plan.total() == made.plan.total(), what: fmt.Sprintf("the re-plan after a take-over costs %d requests, after creating %d (nothing extra)", disposable.plan.total(), made.plan.total())},
		)
	}
	if ok1 && ok2 {
		saved := restoring.destroy.total() - disposable.destroy.total()
		verdicts = append(verdicts, verdict{ok: writeCount(disposable.destroy) == 0 && writeCount(restoring.destroy) > 0,
			what: fmt.Sprintf("the disposable destroy sends %d writes against %d restoring: %d requests saved", writeCount(disposable.destroy),
				writeCount(restoring.destroy), saved)})
	}
	if ok3 {
		verdicts = append(verdicts, verdict{ok: writeCount(deleted.destroy) == 0 && deleted.destroy.exit == 0,
			what: fmt.Sprintf("the destroy after the platform deleted the branch succeeds with %d reads and %d writes", getCount(deleted.destroy), writeCount(deleted.destroy))})
	}
	for _, r := range results {
		verdicts = append(verdicts, verdict{ok: r.plan.exit == 0, what: fmt.Sprintf("%s: the plan after apply is empty (exit %d)", r.c.name, r.plan.exit)},
			verdict{ok: r.apply.count429()+r.plan.count429()+r.destroy.count429() == 0, what: r.c.name + ": no 429"})
	}
	return verdicts
}
