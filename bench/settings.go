package main

import (
	_ "embed"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The settings section: every resource that configures one branch's Better
// Auth, on the production branch of one project in branch mode, then a
// refresh plan. Each read endpoint of the branch should be asked once,
// however many resources read it (the plugins are all read from one
// GET …/auth/plugins).

// settingsConfig declares every resource that configures a branch's Better
// Auth, with the integration, domains, OAuth providers and an email server;
// %q is the project's id.
//
//go:embed configs/settings.tf
var settingsConfig string

type settingsResult struct {
	types       []string // the resource types settingsConfig declares, in its order
	resources   int      // how many resources the apply added
	apply, plan phase
	reads       reads    // the plan's reads by (branch, endpoint)
	writes      []string // routes of the plan that are not reads
}

func benchSettings(work, rc string, o options) (settingsResult, error) {
	var r settingsResult
	dir := filepath.Join(work, "settings")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	s, err := startEmulator(limitReading, 1, true, "")
	if err != nil {
		return r, err
	}
	defer s.stop()
	config := providerBlock("  auth_api = \"branch\"\n") + fmt.Sprintf(settingsConfig, s.emu.ProjectIDs()[0])
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644); err != nil {
		return r, err
	}
	par := fmt.Sprintf("-parallelism=%d", o.parallelism)
	if r.apply, err = terraform(dir, rc, s.env(), s, "settings: apply", []string{"apply", "-auto-approve", "-input=false", par}, []int{0}); err != nil {
		return r, err
	}
	r.types = declaredTypes(settingsConfig)
	out, err := os.ReadFile(r.apply.log)
	if err != nil {
		return r, err
	}
	if m := regexp.MustCompile(`Resources: (\d+) added`).FindSubmatch(out); m != nil {
		r.resources, _ = strconv.Atoi(string(m[1]))
	}
	// Exit 2 (changes after an apply) is a finding of its own: reported, not fatal.
	if r.plan, err = terraform(dir, rc, s.env(), s, "settings: plan (refresh)", planArgs(par, true), []int{0, 2}); err != nil {
		return r, err
	}
	r.reads = readsOf(r.plan)
	for _, k := range sortedRoutes(r.plan.requests) {
		if !strings.HasPrefix(k, http.MethodGet+" ") {
			r.writes = append(r.writes, fmt.Sprintf("`%s` ×%d", k, routeTotal(r.plan.requests, k)))
		}
	}
	return r, nil
}

// declaredTypes are the resource types a configuration declares, each once,
// in the order of their first block.
func declaredTypes(config string) []string {
	var types []string
	for _, m := range regexp.MustCompile(`(?m)^resource "([a-z_]+)"`).FindAllStringSubmatch(config, -1) {
		if !slices.Contains(types, m[1]) {
			types = append(types, m[1])
		}
	}
	return types
}

func writeSettingsReport(b *strings.Builder, r settingsResult) {
	fmt.Fprintln(b, "\n## Settings refresh (one production branch, `auth_api = \"branch\"`, Better Auth)")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "%d resources on one branch (bench/configs/settings.tf): %s.\n\n", r.resources, strings.Join(r.types, ", "))
	fmt.Fprintln(b, "| apply | apply requests | plan (refresh) | plan exit | plan requests | distinct (branch, read endpoint) | requests ÷ distinct | read more than once |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|")
	repeated := "none"
	if len(r.reads.repeated) > 0 {
		repeated = strings.Join(r.reads.repeated, "<br>")
	}
	fmt.Fprintf(b, "| %s | %d | %s | %d | %d | %d | %.2f | %s |\n\n", secs(r.apply.wall), r.apply.total(),
		secs(r.plan.wall), r.plan.exit, r.plan.total(), r.reads.distinct, r.reads.ratio(r.plan), repeated)
	writePhases(b, r.apply, r.plan)
	fmt.Fprintln(b, "\nNotes: distinct (branch, read endpoint) counts the paths the refresh plan read (one branch, so one per endpoint), "+
		"counted by the benchmark's own handler in front of the emulator; "+
		"requests ÷ distinct is the plan's requests over that count, 1.00 when every endpoint is read once. "+
		"Plan exit 0 is an empty plan (-detailed-exitcode).")
	if len(r.writes) > 0 {
		fmt.Fprintf(b, "The refresh plan also sent requests that are not reads: %s.\n", strings.Join(r.writes, ", "))
	}
}
