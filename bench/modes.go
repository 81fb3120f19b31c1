package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The modes section: the refresh of the refresh section's resource mix in
// each API family. In project mode a project's resources are read through
// three list endpoints (integrations, OAuth providers, domains); in branch
// mode through three branch-scoped ones (the branch's auth, its OAuth
// providers, its domains) of the production branch. Either way one request
// per (project, branch, endpoint) is the aim.

type modeResult struct {
	authAPI     string
	n, projects int
	apply, plan phase
}

// benchMode applies n resources with auth_api set to authAPI on a fresh
// emulator and measures a refresh plan.
func benchMode(work, rc, authAPI string, n int, o options) (modeResult, error) {
	r := modeResult{authAPI: authAPI, n: n, projects: o.projects}
	dir := filepath.Join(work, fmt.Sprintf("mode-%s-n%d", authAPI, n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	s, err := startEmulator(limitReading, o.projects, true, "")
	if err != nil {
		return r, err
	}
	defer s.stop()
	if _, err := writeConfig(dir, s.emu.ProjectIDs(), n, fmt.Sprintf("  auth_api = %q\n", authAPI)); err != nil {
		return r, err
	}
	par := fmt.Sprintf("-parallelism=%d", o.parallelism)
	if r.apply, err = terraform(dir, rc, s.env(), s, authAPI+" mode: apply", []string{"apply", "-auto-approve", "-input=false", par}, []int{0}); err != nil {
		return r, err
	}
	r.plan, err = terraform(dir, rc, s.env(), s, authAPI+" mode: plan (refresh)", planArgs(par, true), []int{0})
	return r, err
}

func writeModesReport(b *strings.Builder, results []modeResult) {
	if len(results) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Refresh by API family (N = %d, %d projects)\n\n", results[0].n, results[0].projects)
	fmt.Fprintln(b, "Per project one integration, three OAuth providers and domains for the rest, on the production branch; "+
		"`auth_api` set in the provider block, everything else the defaults.")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| auth_api | apply | apply requests | plan (refresh) | plan requests | 429s | read endpoints per (project, branch) | (project, branch, read endpoint) pairs | requests ÷ pairs | most reads of one pair |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		rd := readsOf(r.plan)
		fmt.Fprintf(b, "| %s | %s | %d | %s | %d | %d | %d | %d | %.2f | %d |\n", r.authAPI, secs(r.apply.wall), r.apply.total(),
			secs(r.plan.wall), r.plan.total(), r.apply.count429()+r.plan.count429(),
			getRoutes(r.plan.requests), rd.distinct, rd.ratio(r.plan), rd.most)
	}
	fmt.Fprintln(b)
	var phases []phase
	for _, r := range results {
		phases = append(phases, r.apply, r.plan)
	}
	writePhases(b, phases...)
	fmt.Fprintln(b, "\nNotes: pairs are the distinct paths (one project, one branch, one endpoint) the refresh plan read, "+
		"counted by the benchmark's own handler in front of the emulator; requests ÷ pairs is the plan's requests over "+
		"that count, 1.00 when no pair is read twice. Project mode reads three endpoints per project: "+
		"`GET …/auth/integrations`, `…/auth/oauth_providers` and `…/auth/domains`. Branch mode reads three of the production "+
		"branch: `GET …/branches/{branch_id}/auth`, `…/auth/plugins` (the Better Auth bundle, which carries the OAuth providers "+
		"and the integration's `allow_localhost`) and `…/auth/domains`.")
}
