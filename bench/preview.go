package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// The preview section: examples/branch-preview applied to a preview branch
// made from production once production's Neon Auth is configured
// (examples/branch-preview/production), so that the branch starts with a
// copy and the preview configuration takes its objects over; and, for
// comparison, applied to a branch made before production had Neon Auth,
// where every object is created. Each case: apply, a no-change plan (with
// refresh) 4 s later, destroy, at the documented limits. A take-over may
// cost at most one read per object taken over, and the re-plan nothing
// extra.

// previewCase is one way the preview branch came to be.
type previewCase struct {
	name      string
	inherited bool // made after production's Neon Auth, so it starts with a copy
}

var previewCases = []previewCase{
	{name: "inherited (taken over)", inherited: true},
	{name: "branch made first (created)", inherited: false},
}

type previewResult struct {
	c                    previewCase
	apply, plan, destroy phase
	takenOver            int // "Inherited … taken over" warnings of the apply
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
var takenOverWarning = regexp.MustCompile(`Inherited [^\n]*[^e] taken over`)

// benchPreview measures one case on its own emulator.
func benchPreview(work, rc string, c previewCase, o options) (previewResult, error) {
	r := previewResult{c: c}
	s, err := startEmulator(1, true, "")
	if err != nil {
		return r, err
	}
	defer s.stop()
	project := s.emu.ProjectIDs()[0]
	base := filepath.Join(work, "preview-"+fmt.Sprint(c.inherited))
	prodDir, previewDir := filepath.Join(base, "production"), filepath.Join(base, "preview")
	if err := exampleFiles("examples/branch-preview/production", prodDir); err != nil {
		return r, err
	}
	if err := exampleFiles("examples/branch-preview", previewDir); err != nil {
		return r, err
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
		if branch, err = s.emu.AddBranch(project, "pr-123"); err != nil {
			return r, err
		}
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
	time.Sleep(4 * time.Second)
	r.destroy, err = terraform(previewDir, rc, env, s, c.name+": destroy", []string{"destroy", "-auto-approve", "-input=false", par}, []int{0})
	return r, err
}

func writePreviewReport(b *strings.Builder, results []previewResult) {
	fmt.Fprintln(b, "\n## Preview branches: taking over what a branch inherited")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "`examples/branch-preview` on a branch made from production after `examples/branch-preview/production` was "+
		"applied (the branch starts with a copy of production's Neon Auth, which the configuration takes over), and on a branch "+
		"made before it (everything created). Documented limits; each command 4 s after the one before.")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| case | taken over | apply: reads / writes (409s) | plan (refresh) | destroy: reads / writes |")
	fmt.Fprintln(b, "|---|---|---|---|---|")
	for _, r := range results {
		fmt.Fprintf(b, "| %s | %d | %d / %d (%d) | %d | %d / %d |\n", r.c.name, r.takenOver,
			getCount(r.apply), writeCount(r.apply), conflictCount(r.apply), r.plan.total(), getCount(r.destroy), writeCount(r.destroy))
	}
	fmt.Fprintln(b)
	var verdicts []verdict
	if len(results) == 2 {
		in, made := results[0], results[1]
		extra := getCount(in.apply) - getCount(made.apply)
		verdicts = append(verdicts,
			verdict{ok: in.takenOver > 0, what: fmt.Sprintf("the inherited case took %d objects over (warnings)", in.takenOver)},
			verdict{ok: extra <= in.takenOver, what: fmt.Sprintf("taking over cost %d reads more than creating, for %d objects (at most one each)", extra, in.takenOver)},
			verdict{ok: in.plan.total() == made.plan.total(), what: fmt.Sprintf("the re-plan after a take-over costs %d requests, after creating %d (nothing extra)", in.plan.total(), made.plan.total())},
		)
	}
	for _, r := range results {
		verdicts = append(verdicts, verdict{ok: r.plan.exit == 0, what: fmt.Sprintf("%s: the plan after apply is empty (exit %d)", r.c.name, r.plan.exit)},
			verdict{ok: r.apply.count429()+r.plan.count429()+r.destroy.count429() == 0, what: r.c.name + ": no 429"})
	}
	writeVerdicts(b, verdicts)
	fmt.Fprintln(b)
	var phases []phase
	for _, r := range results {
		phases = append(phases, r.apply, r.plan, r.destroy)
	}
	writePhases(b, phases...)
}
