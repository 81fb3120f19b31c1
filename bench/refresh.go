package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The refresh section: for each size N, apply N resources spread over the
// projects, then compare a refresh plan with list sharing on and off, and
// with the limits lifted.

type result struct {
	n, projects, listBacked, pairs int
	apply, plan, planNoRefresh     phase
	planUnshared                   phase
	fastPlan, fastPlanNoRefresh    phase
}

// writeConfig spreads n resources over the projects: per project one
// integration, three OAuth providers (shared), and domains for the rest.
// It returns how many resources are read by listing.
func writeConfig(dir string, projectIDs []string, n int, providerExtra string) (int, error) {
	var b strings.Builder
	b.WriteString(providerBlock(providerExtra))
	per := n / len(projectIDs)
	extra := n % len(projectIDs)
	listBacked := 0
	for i, pid := range projectIDs {
		count := per
		if i < extra {
			count++
		}
		fmt.Fprintf(&b, "\nresource \"neon_auth_integration\" \"p%d\" {\n  project_id = %q\n}\n", i, pid)
		for _, id := range []string{"google", "github", "microsoft"} {
			fmt.Fprintf(&b, "\nresource \"neon_auth_oauth_provider\" \"p%d_%s\" {\n  project_id  = neon_auth_integration.p%d.project_id\n  provider_id = %q\n}\n", i, id, i, id)
		}
		domains := count - 4
		if domains > 0 {
			fmt.Fprintf(&b, "\nresource \"neon_auth_domain\" \"p%d\" {\n  count      = %d\n  project_id = neon_auth_integration.p%d.project_id\n  domain     = \"https://app${count.index}.p%d.example.com\"\n}\n", i, domains, i, i)
		}
		listBacked += count
	}
	return listBacked, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(b.String()), 0o644)
}

// planArgs are the arguments of a no-change plan.
func planArgs(par string, refresh bool) []string {
	if refresh {
		return []string{"plan", "-detailed-exitcode", "-input=false", par}
	}
	return []string{"plan", "-refresh=false", "-detailed-exitcode", "-input=false", par}
}

func benchSize(work, rc, rcUnshared string, n int, o options) (result, error) {
	r := result{n: n, projects: o.projects}
	dir := filepath.Join(work, fmt.Sprintf("n%d", n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	s, err := startEmulator(limitReading, o.projects, true, filepath.Join(dir, "emulator-state.json"))
	if err != nil {
		return r, err
	}
	defer s.stop()
	// Project mode, named: the figures in BASELINE.md were measured with it
	// (the provider's default at the time).
	if r.listBacked, err = writeConfig(dir, s.emu.ProjectIDs(), n, "  auth_api = \"project\"\n"); err != nil {
		return r, err
	}
	r.pairs = 3 * o.projects // (project, list endpoint): integrations, oauth providers, domains
	env := s.env()
	par := fmt.Sprintf("-parallelism=%d", o.parallelism)

	steps := []struct {
		dst  *phase
		name string
		rc   string
		args []string
		exit []int
	}{
		{&r.apply, "apply", rc, []string{"apply", "-auto-approve", "-input=false", par}, []int{0}},
		{&r.plan, "plan (refresh)", rc, planArgs(par, true), []int{0}},
		{&r.planNoRefresh, "plan -refresh=false", rc, planArgs(par, false), []int{0}},
		{&r.planUnshared, "plan (refresh), list sharing off", rcUnshared, planArgs(par, true), []int{0}},
	}
	for _, st := range steps {
		p, err := terraform(dir, st.rc, env, s, st.name, st.args, st.exit)
		if err != nil {
			return r, err
		}
		*st.dst = p
	}

	// The refresh comparison once more with the limits lifted on both sides,
	// where the limiter is not the bound: same state, same resources.
	// The emulator's state file holds exactly what the apply created.
	if err := copyFile(filepath.Join(dir, "emulator-state.json"), filepath.Join(dir, "emulator-state-fast.json")); err != nil {
		return r, err
	}
	fast, err := startEmulator(limitReading, o.projects, false, filepath.Join(dir, "emulator-state-fast.json"))
	if err != nil {
		return r, err
	}
	defer fast.stop()
	fastEnv := fast.env()
	if _, err := writeConfig(dir, s.emu.ProjectIDs(), n, "  auth_api                  = \"project\"\n  requests_per_minute       = 100000\n  route_requests_per_second = 10000\n"); err != nil {
		return r, err
	}
	// Wall times of short plans are noisy on a small machine: alternate the
	// two plans and keep the median of each.
	var withRefresh, withoutRefresh []phase
	for i := range o.repeat {
		p, err := terraform(dir, rc, fastEnv, fast, fmt.Sprintf("plan (refresh), limits lifted #%d", i+1), planArgs(par, true), []int{0})
		if err != nil {
			return r, err
		}
		withRefresh = append(withRefresh, p)
		if p, err = terraform(dir, rc, fastEnv, fast, fmt.Sprintf("plan -refresh=false, limits lifted #%d", i+1), planArgs(par, false), []int{0}); err != nil {
			return r, err
		}
		withoutRefresh = append(withoutRefresh, p)
	}
	r.fastPlan, r.fastPlanNoRefresh = median(withRefresh), median(withoutRefresh)
	return r, nil
}

// median is the phase with the median wall time.
func median(ps []phase) phase {
	sorted := append([]phase(nil), ps...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].wall < sorted[j].wall })
	m := sorted[len(sorted)/2]
	if i := strings.LastIndex(m.name, " #"); i >= 0 {
		m.name = m.name[:i]
	}
	m.name += fmt.Sprintf(" (median of %d)", len(ps))
	return m
}

func writeRefreshReport(b *strings.Builder, results []result, o options) {
	fmt.Fprintln(b, "## Refresh economy and apply throughput by size")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "Emulator at the documented limits (700 requests/min per account, 40/s per route); provider defaults; "+
		"%d projects; terraform -parallelism=%d.\n\n", o.projects, o.parallelism)
	fmt.Fprintln(b, "| N | apply | apply req/min | 429s (all phases) | plan | plan -refresh=false | plan requests | requests ÷ (project, endpoint) pairs | requests per refreshed resource | plan, sharing off | requests, sharing off | sharing-off ÷ on | limits lifted: plan ÷ plan -refresh=false |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		perMin := float64(r.apply.total()) / r.apply.wall.Minutes()
		n429 := r.apply.count429() + r.plan.count429() + r.planNoRefresh.count429() + r.planUnshared.count429()
		fmt.Fprintf(b, "| %d | %s | %.0f (%.0f%% of 700) | %d | %s | %s | %d | %.2f | %.3f | %s | %d | %.1f× | %.2f |\n",
			r.n, secs(r.apply.wall), perMin, 100*perMin/700, n429,
			secs(r.plan.wall), secs(r.planNoRefresh.wall), r.plan.total(),
			float64(r.plan.total())/float64(r.pairs), float64(r.plan.total())/float64(r.listBacked),
			secs(r.planUnshared.wall), r.planUnshared.total(), float64(r.planUnshared.total())/float64(max(1, r.plan.total())),
			r.fastPlan.wall.Seconds()/r.fastPlanNoRefresh.wall.Seconds())
	}
	for _, r := range results {
		fmt.Fprintf(b, "\n### N = %d (%d projects, %d (project, list endpoint) pairs)\n\n", r.n, r.projects, r.pairs)
		writePhases(b, r.apply, r.plan, r.planNoRefresh, r.planUnshared, r.fastPlan, r.fastPlanNoRefresh)
	}
	fmt.Fprintln(b, "\nNotes: apply req/min is requests ÷ wall time; the client spends a burst of up to 38 (once its first 8 answers came) and "+
		"then paces at 700/min, keeping every 60-second window within 700 even when a short apply averages above it. The last column compares plans with "+
		"the limits lifted on both sides (the limiter is not the bound), median of -repeat runs.")
}
