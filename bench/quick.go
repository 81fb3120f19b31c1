package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The quick section (small runs pay nothing): quick-start-sized
// configurations applied, re-planned and destroyed against an emulator with
// its limits lifted, by the provider as shipped and by a build with list
// sharing, delete batching and pacing switched off; each phase's median over
// -repeat rounds, the two builds alternating.

// machineryOff is the ldflag that switches parts of the provider off.
func machineryOff(parts string) string {
	return "-X github.com/neon-auth/terraform-provider-neon/internal/provider.machineryOff=" + parts
}

// quickConfig is one quick-start-sized configuration.
type quickConfig struct {
	name  string
	write func(dir, projectID string) error
	env   []string
}

func quickConfigs() []quickConfig {
	return []quickConfig{
		{
			name: "examples/quickstart (Better Auth on a preview branch + Stack Auth in project mode)",
			write: func(dir, projectID string) error {
				for _, f := range []string{"main.tf", "outputs.tf"} {
					if err := copyFile(filepath.Join("examples", "quickstart", f), filepath.Join(dir, f)); err != nil {
						return err
					}
				}
				return nil
			},
			env: []string{"TF_VAR_google_client_secret=bench-google-secret", "TF_VAR_smtp_password=bench-smtp-password"},
		},
		{
			name: "integration + 10 domains (branch mode)",
			write: func(dir, projectID string) error {
				config := providerBlock("  auth_api = \"branch\"\n") + fmt.Sprintf(`
resource "neon_auth_integration" "this" {
  project_id = %q
}

resource "neon_auth_domain" "d" {
  count      = 10
  project_id = neon_auth_integration.this.project_id
  domain     = "https://app${count.index}.example.com"
}
`, projectID)
				return os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644)
			},
		},
	}
}

var quickPhases = []string{"apply", "plan (refresh)", "destroy"}

type quickResult struct {
	config string
	// walls[build][phase] holds each round's wall time; requests the last round's.
	walls    map[string]map[string][]time.Duration
	requests map[string]map[string]int
}

const (
	buildDefaults = "as shipped"
	buildOff      = "sharing, batching, pacing off"
)

func benchQuick(work, rc, rcOff string, o options) ([]quickResult, error) {
	var out []quickResult
	for ci, qc := range quickConfigs() {
		r := quickResult{config: qc.name, walls: map[string]map[string][]time.Duration{}, requests: map[string]map[string]int{}}
		dir := filepath.Join(work, fmt.Sprintf("quick%d", ci))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		s, err := startEmulator(limitReading, 1, false, "")
		if err != nil {
			return nil, err
		}
		pid := s.emu.ProjectIDs()[0]
		// The quick start puts Better Auth on a preview branch, made as a CI
		// job would make it (make demo does the same).
		bid, err := s.emu.AddBranch(pid, "preview")
		if err == nil {
			err = qc.write(dir, pid)
		}
		if err != nil {
			s.stop()
			return nil, err
		}
		env := append(append(s.env(), qc.env...), "TF_VAR_project_id="+pid, "TF_VAR_branch_id="+bid)
		par := fmt.Sprintf("-parallelism=%d", o.parallelism)
		args := map[string][]string{
			"apply":          {"apply", "-auto-approve", "-input=false", par},
			"plan (refresh)": planArgs(par, true),
			"destroy":        {"destroy", "-auto-approve", "-input=false", par},
		}
		builds := []struct{ name, rc string }{{buildDefaults, rc}, {buildOff, rcOff}}
		for round := range o.repeat {
			order := builds
			if round%2 == 1 {
				order = []struct{ name, rc string }{builds[1], builds[0]}
			}
			for _, b := range order {
				if r.walls[b.name] == nil {
					r.walls[b.name], r.requests[b.name] = map[string][]time.Duration{}, map[string]int{}
				}
				for _, ph := range quickPhases {
					p, err := terraform(dir, b.rc, env, s, fmt.Sprintf("quick %d %s, %s #%d", ci, ph, b.name, round+1), args[ph], []int{0})
					if err != nil {
						s.stop()
						return nil, err
					}
					r.walls[b.name][ph] = append(r.walls[b.name][ph], p.wall)
					r.requests[b.name][ph] = p.total()
				}
			}
		}
		s.stop()
		out = append(out, r)
	}
	return out, nil
}

func medianDuration(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func writeQuickReport(b *strings.Builder, results []quickResult, o options) {
	fmt.Fprintln(b, "\n## Small runs (quick-start-sized), limits lifted")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "Emulator without limits; the provider as shipped (default pacing: 700/min, 40/s per route) against a build with "+
		"`-X …/internal/provider.machineryOff=sharing,batching,pacing` (no shared list reads, one DELETE per domain, no client-side "+
		"rate limit). Each phase: median of %d rounds, the builds alternating; apply from nothing, a no-change plan, destroy; "+
		"terraform -parallelism=%d.\n\n", o.repeat, o.parallelism)
	fmt.Fprintln(b, "The ratio is the median over rounds of (as shipped ÷ switched off) within a round: the two builds of a round "+
		"run back to back, so a load that drifts over the bench (other processes on the machine) cancels out of each "+
		"round's ratio, where it does not cancel out of a ratio of medians (also shown).")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| configuration | phase | as shipped (median) | switched off (median) | ratio, median of rounds (target ≤ 1.10) | ratio of medians | requests as shipped / off | rounds as shipped | rounds off |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|---|")
	var vs []verdict
	for _, r := range results {
		for _, ph := range quickPhases {
			on, off := medianDuration(r.walls[buildDefaults][ph]), medianDuration(r.walls[buildOff][ph])
			ratio := pairedRatio(r.walls[buildDefaults][ph], r.walls[buildOff][ph])
			fmt.Fprintf(b, "| %s | %s | %s | %s | %.2f | %.2f | %d / %d | %s | %s |\n", r.config, ph, secs2(on), secs2(off), ratio,
				on.Seconds()/off.Seconds(), r.requests[buildDefaults][ph], r.requests[buildOff][ph],
				rounds(r.walls[buildDefaults][ph]), rounds(r.walls[buildOff][ph]))
			vs = append(vs, verdict{ratio <= 1.10, fmt.Sprintf("%s, %s: %.2f× the switched-off time", r.config, ph, ratio)})
		}
	}
	fmt.Fprintln(b, "\nTargets:")
	fmt.Fprintln(b)
	writeVerdicts(b, vs)
}

// pairedRatio is the median over rounds of on[i] ÷ off[i].
func pairedRatio(on, off []time.Duration) float64 {
	rs := make([]float64, 0, len(on))
	for i := range min(len(on), len(off)) {
		rs = append(rs, on[i].Seconds()/off[i].Seconds())
	}
	sort.Float64s(rs)
	if len(rs)%2 == 1 {
		return rs[len(rs)/2]
	}
	return (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
}

func secs2(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func rounds(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%.2f", d.Seconds())
	}
	return strings.Join(parts, " ")
}
