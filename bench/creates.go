package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The creates section (applies go as fast as the limits let them): an apply
// of N domain creates on one project whose integration exists, at the
// documented limits under each reading and with them lifted, against the
// ideal schedule of each reading.

// createsResult is one size and reading of the creates section.
type createsResult struct {
	n                 int
	reading           emulator.RateLimitReading
	limited, lifted   phase
	servedPerMin, pct float64
}

// ideal is the ideal schedule of the limited apply under the reading it ran
// at.
func (r createsResult) ideal() time.Duration { return idealSchedule(r.limited.requests, r.reading) }

func benchCreates(work, rc string, o options) ([]createsResult, error) {
	var out []createsResult
	for _, n := range o.creates {
		lifted, err := benchCreatesApply(filepath.Join(work, fmt.Sprintf("creates-%d-lifted", n)), rc, n, "", o)
		if err != nil {
			return nil, err
		}
		for _, reading := range o.readings {
			limited, err := benchCreatesApply(filepath.Join(work, fmt.Sprintf("creates-%d-%s", n, reading)), rc, n, reading, o)
			if err != nil {
				return nil, err
			}
			r := createsResult{n: n, reading: reading, limited: limited, lifted: lifted}
			r.servedPerMin = float64(served(limited.requests, "")) / limited.wall.Minutes()
			r.pct = pct(r.servedPerMin, accountRPM)
			out = append(out, r)
		}
	}
	return out, nil
}

// benchCreatesApply applies the integration, then (once the limits are
// refilled) measures the apply that adds n domains; reading "" lifts the
// limits.
func benchCreatesApply(dir, rc string, n int, reading emulator.RateLimitReading, o options) (phase, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return phase{}, err
	}
	s, err := startEmulator(reading, 1, reading != "", "")
	if err != nil {
		return phase{}, err
	}
	defer s.stop()
	extra, label := "", "at the limits, "+string(reading)
	if reading == "" {
		extra, label = "  requests_per_minute       = 100000\n  route_requests_per_second = 10000\n", "limits lifted"
	}
	head := providerBlock(extra) + fmt.Sprintf("\nresource \"neon_auth_integration\" \"this\" {\n  project_id = %q\n}\n", s.emu.ProjectIDs()[0])
	apply := []string{"apply", "-auto-approve", "-input=false", fmt.Sprintf("-parallelism=%d", o.parallelism)}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(head), 0o644); err != nil {
		return phase{}, err
	}
	if _, err := terraform(dir, rc, s.env(), s, fmt.Sprintf("creates %d: integration, %s", n, label), apply, []int{0}); err != nil {
		return phase{}, err
	}
	s.emu.RefillRateLimits()
	config := head + fmt.Sprintf("\nresource \"neon_auth_domain\" \"d\" {\n  count      = %d\n  project_id = neon_auth_integration.this.project_id\n  domain     = \"https://app${count.index}.example.com\"\n}\n", n)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644); err != nil {
		return phase{}, err
	}
	p, err := terraform(dir, rc, s.env(), s, fmt.Sprintf("creates %d: apply, %s", n, label), apply, []int{0})
	p.name = fmt.Sprintf("N = %d, %s", n, label)
	return p, err
}

func writeCreatesReport(b *strings.Builder, results []createsResult, o options) {
	fmt.Fprintln(b, "\n## Applies of N creates at the documented limits, under each reading")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "One project whose integration exists (applied first, then the emulator's limits refilled); the measured "+
		"apply adds N neon_auth_domain. At the limits: the emulator at 700/min per account and 40/s per route, read as the "+
		"row says, the provider as shipped. Lifted: neither limits. Ideal: when the apply's requests (429s left out) could "+
		"all have passed the limits counted each way had they been ready at once: buckets max((requests − 40) ÷ (700/60 s), "+
		"(a route's requests − 40) ÷ 40/s); windows max((⌈requests ÷ 700⌉ − 1) × 60 s, (⌈a route's requests ÷ 40⌉ − 1) × "+
		"1 s). The target is against the ideal of the reading the row ran under. terraform -parallelism=%d.\n\n", o.parallelism)
	fmt.Fprintln(b, "| N | reading | at the limits | requests | 429s | ideal: buckets | ideal: windows | limits lifted | target 1.15 × (ideal + lifted) | ratio | served req/min (% of 700) |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|---|---|---|")
	var vs []verdict
	for _, r := range results {
		target := 1.15 * (r.ideal() + r.lifted.wall).Seconds()
		ratio := r.limited.wall.Seconds() / (r.ideal() + r.lifted.wall).Seconds()
		n429, all := r.limited.count429(), r.limited.total()
		fmt.Fprintf(b, "| %d | %s | %s | %d | %d | %s | %s | %s | %.2f s | %.2f | %.0f (%.0f%%) |\n", r.n, r.reading, secs2(r.limited.wall),
			served(r.limited.requests, ""), n429, secs2(idealSchedule(r.limited.requests, readings[0])),
			secs2(idealSchedule(r.limited.requests, readings[1])), secs2(r.lifted.wall), target, ratio, r.servedPerMin, r.pct)
		name := fmt.Sprintf("N = %d, %s", r.n, r.reading)
		vs = append(vs,
			verdict{r.limited.wall.Seconds() <= target, fmt.Sprintf("%s: %s ≤ 1.15 × (%s + %s) = %.2f s", name, secs2(r.limited.wall), secs2(r.ideal()), secs2(r.lifted.wall), target)},
			verdict{pct(float64(n429), float64(all)) <= maxShare429(r.reading), fmt.Sprintf("%s: 429s ≤ %.0f %% of requests (%d of %d)", name, maxShare429(r.reading), n429, all)})
		if r.n >= 500 {
			vs = append(vs, verdict{r.pct >= 95, fmt.Sprintf("%s: a long apply keeps ≥ 95 %% of 700/min (%.0f/min, %.0f %%)", name, r.servedPerMin, r.pct)})
		}
	}
	fmt.Fprintln(b)
	var phases []phase
	for i, r := range results {
		phases = append(phases, r.limited)
		if i+1 == len(results) || results[i+1].n != r.n {
			phases = append(phases, r.lifted)
		}
	}
	writePhases(b, phases...)
	fmt.Fprintln(b, "\nTargets:")
	fmt.Fprintln(b)
	writeVerdicts(b, vs)
	fmt.Fprintln(b, "\nHow the provider paces (internal/apiclient/ratelimit_reading.go): to the buckets, with one request at a time "+
		"beside the account's; once the account has served more than a bucket of 40 at 700/min could, to the windows (the "+
		"minute a second longer than documented, a route's second 100 ms longer, for the delay between a request leaving and "+
		"arriving); once it refuses what the run's own requests explain, to the bucket (2 tokens short of 40), which the "+
		"machine remembers for 15 minutes for the account's next runs.")
}
