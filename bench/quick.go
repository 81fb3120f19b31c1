package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The quick section (small runs pay nothing): quick-start-sized
// configurations applied, re-planned and destroyed against an emulator with
// its limits lifted, by the provider as shipped and by a build with list
// sharing, delete batching and pacing switched off; each phase's median over
// -repeat rounds, the two builds alternating.
//
// The creates section (short applies use the burst): an apply of N domain
// creates on one project whose integration exists, at the documented limits
// and with them lifted, against the ideal schedule of the emulator's model.

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
		s, err := startEmulator(1, false, "")
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

// createsResult is one size of the creates section.
type createsResult struct {
	n                 int
	limited, lifted   phase
	ideal             time.Duration
	servedPerMin, pct float64
}

// idealSchedule is when the last of the phase's requests could pass the
// emulator's buckets (account: 700/min holding 40; each route: 40/s holding
// 40) if all were ready at once: its own latency and Terraform's are in the
// same apply's time with the limits lifted.
func idealSchedule(s emulator.Stats) time.Duration {
	secs := max(0, float64(s.Total-40)/(float64(accountRPM)/60))
	for k := range s.Requests {
		secs = max(secs, float64(routeTotal(s, k)-40)/40)
	}
	return time.Duration(secs * float64(time.Second))
}

func benchCreates(work, rc string, o options) ([]createsResult, error) {
	var out []createsResult
	for _, n := range o.creates {
		r := createsResult{n: n}
		for _, limited := range []bool{true, false} {
			dir := filepath.Join(work, fmt.Sprintf("creates-%d-%t", n, limited))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			s, err := startEmulator(1, limited, "")
			if err != nil {
				return nil, err
			}
			extra := ""
			if !limited {
				extra = "  requests_per_minute       = 100000\n  route_requests_per_second = 10000\n"
			}
			head := providerBlock(extra) + fmt.Sprintf("\nresource \"neon_auth_integration\" \"this\" {\n  project_id = %q\n}\n", s.emu.ProjectIDs()[0])
			par := fmt.Sprintf("-parallelism=%d", o.parallelism)
			apply := []string{"apply", "-auto-approve", "-input=false", par}
			label := "limits lifted"
			if limited {
				label = "at the limits"
			}
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(head), 0o644); err != nil {
				s.stop()
				return nil, err
			}
			if _, err := terraform(dir, rc, s.env(), s, fmt.Sprintf("creates %d: integration, %s", n, label), apply, []int{0}); err != nil {
				s.stop()
				return nil, err
			}
			// The account's bucket refills before the measured apply.
			if limited {
				time.Sleep(4 * time.Second)
			}
			config := head + fmt.Sprintf("\nresource \"neon_auth_domain\" \"d\" {\n  count      = %d\n  project_id = neon_auth_integration.this.project_id\n  domain     = \"https://app${count.index}.example.com\"\n}\n", n)
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644); err != nil {
				s.stop()
				return nil, err
			}
			p, err := terraform(dir, rc, s.env(), s, fmt.Sprintf("creates %d: apply, %s", n, label), apply, []int{0})
			s.stop()
			if err != nil {
				return nil, err
			}
			p.name = fmt.Sprintf("N = %d, %s", n, label)
			if limited {
				r.limited = p
			} else {
				r.lifted = p
			}
		}
		r.ideal = idealSchedule(r.limited.requests)
		r.servedPerMin = float64(r.limited.total()-r.limited.count429()) / r.limited.wall.Minutes()
		r.pct = pct(r.servedPerMin, accountRPM)
		out = append(out, r)
	}
	return out, nil
}

func writeCreatesReport(b *strings.Builder, results []createsResult, o options) {
	fmt.Fprintln(b, "\n## Applies of N creates at the documented limits")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "One project whose integration exists (applied first, then 4 s for the account's bucket to refill); the measured "+
		"apply adds N neon_auth_domain. At the limits: the emulator at 700/min per account (bucket holding 40) and 40/s per route, "+
		"the provider as shipped. Lifted: neither limits. Ideal: when the apply's requests could all have passed the emulator's "+
		"buckets had they been ready at once, max((requests − 40) ÷ (700/60 s), (a route's requests − 40) ÷ 40/s). "+
		"terraform -parallelism=%d.\n\n", o.parallelism)
	fmt.Fprintln(b, "| N | at the limits | requests | 429s | ideal | limits lifted | target 1.15 × (ideal + lifted) | ratio | served req/min (% of 700) |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|---|")
	var vs []verdict
	for _, r := range results {
		target := 1.15 * (r.ideal + r.lifted.wall).Seconds()
		ratio := r.limited.wall.Seconds() / (r.ideal + r.lifted.wall).Seconds()
		fmt.Fprintf(b, "| %d | %s | %d | %d | %s | %s | %.2f s | %.2f | %.0f (%.0f%%) |\n", r.n, secs2(r.limited.wall), r.limited.total(),
			r.limited.count429(), secs2(r.ideal), secs2(r.lifted.wall), target, ratio, r.servedPerMin, r.pct)
		vs = append(vs,
			verdict{r.limited.wall.Seconds() <= target, fmt.Sprintf("N = %d: %s ≤ 1.15 × (%s + %s) = %.2f s", r.n, secs2(r.limited.wall), secs2(r.ideal), secs2(r.lifted.wall), target)},
			verdict{r.limited.count429() == 0, fmt.Sprintf("N = %d: 0 × 429 (%d)", r.n, r.limited.count429())})
		if r.n >= 500 {
			vs = append(vs, verdict{r.pct >= 95, fmt.Sprintf("N = %d: a long apply keeps ≥ 95 %% of 700/min (%.0f/min, %.0f %%)", r.n, r.servedPerMin, r.pct)})
		}
	}
	fmt.Fprintln(b)
	var phases []phase
	for _, r := range results {
		phases = append(phases, r.limited, r.lifted)
	}
	writePhases(b, phases...)
	fmt.Fprintln(b, "\nTargets:")
	fmt.Fprintln(b)
	writeVerdicts(b, vs)
	fmt.Fprintln(b, "\nReading of the limits: the ideal uses the emulator's model (token buckets: 700/60 per second holding 40 for the "+
		"account, 40/s holding 40 per route). The provider also keeps every 60 s within 700 and every second within 40 per route "+
		"(sliding windows, with 100 ms of slack) and its account bucket 2 tokens short of 40, for the delay between a request "+
		"leaving and arriving (see internal/apiclient/ratelimit.go).")
}
