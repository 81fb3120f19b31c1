package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The roundtrip section (small runs where users are): the whitelist of one
// branch with its integration and two OAuth providers, its N domains
// declared as N neon_auth_domain or as one neon_auth_domains, applied,
// re-planned and destroyed against an emulator at the documented limits that
// holds every request for a round trip (-latency). From a CI runner or a
// laptop a run's wall time is decided by how many requests stand one after
// another, so each phase reports its critical path next to its requests.

// rtVariant is one way to declare the N domains.
type rtVariant struct {
	name    string
	domains func(n int) string // the resources that declare them
}

var rtVariants = []rtVariant{
	{name: "N × neon_auth_domain", domains: func(n int) string {
		return fmt.Sprintf(`
resource "neon_auth_domain" "d" {
  count      = %d
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  domain     = "https://app${count.index}.example.com"
}
`, n)
	}},
	{name: "one neon_auth_domains", domains: func(n int) string {
		return fmt.Sprintf(`
resource "neon_auth_domains" "all" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  domains    = [for i in range(%d) : "https://app${i}.example.com"]
}
`, n)
	}},
}

// rtConfig is the configuration of one case on the project's production
// branch, which the integration names by omitting branch_id.
func rtConfig(v rtVariant, n int, projectID string) string {
	return providerBlock("") + fmt.Sprintf(`
resource "neon_auth_integration" "this" {
  project_id = %q
}

resource "neon_auth_oauth_provider" "github" {
  project_id  = neon_auth_integration.this.project_id
  branch_id   = neon_auth_integration.this.branch_id
  provider_id = "github"
}

resource "neon_auth_oauth_provider" "google" {
  project_id  = neon_auth_integration.this.project_id
  branch_id   = neon_auth_integration.this.branch_id
  provider_id = "google"
}
`, projectID) + v.domains(n)
}

var rtPhases = []string{"apply", "plan (refresh)", "destroy"}

// rtResult is one case: a round trip, a size and a variant; its rounds of
// each phase.
type rtResult struct {
	latency time.Duration
	n       int
	variant string
	rounds  map[string][]phase
}

// median is the round of the phase with the median wall time.
func (r rtResult) median(ph string) phase {
	rs := slices.SortedFunc(slices.Values(r.rounds[ph]), func(a, b phase) int { return cmp.Compare(a.wall, b.wall) })
	return rs[len(rs)/2]
}

func benchRoundTrip(work, rc string, o options) ([]rtResult, error) {
	var out []rtResult
	for _, latency := range o.latencies {
		for _, n := range o.rtSizes {
			for vi, v := range rtVariants {
				fmt.Fprintf(os.Stderr, "-- round trip %s, N = %d, %s --\n", latency, n, v.name)
				r, err := benchRoundTripCase(filepath.Join(work, fmt.Sprintf("roundtrip-%s-%d-%d", latency, n, vi)), rc, latency, n, v, o)
				if err != nil {
					return nil, fmt.Errorf("round trip %s, N = %d, %s: %w", latency, n, v.name, err)
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func benchRoundTripCase(dir, rc string, latency time.Duration, n int, v rtVariant, o options) (rtResult, error) {
	r := rtResult{latency: latency, n: n, variant: v.name, rounds: map[string][]phase{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	s, err := serve(emulator.Options{Latency: latency, RateLimitReading: limitReading})
	if err != nil {
		return r, err
	}
	defer s.stop()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(rtConfig(v, n, s.emu.ProjectIDs()[0])), 0o644); err != nil {
		return r, err
	}
	par := fmt.Sprintf("-parallelism=%d", o.parallelism)
	args := map[string][]string{
		"apply":          {"apply", "-auto-approve", "-input=false", par},
		"plan (refresh)": planArgs(par, true),
		"destroy":        {"destroy", "-auto-approve", "-input=false", par},
	}
	last := 0 // requests of the phase before
	for round := range o.rtRepeat {
		for _, ph := range rtPhases {
			// Each phase starts as a run of its own would, with the
			// account's bucket full: it refills at 700/min.
			time.Sleep(time.Duration(float64(min(last, 40)) / (accountRPM / 60.0) * float64(time.Second)))
			p, err := terraform(dir, rc, s.env(), s, fmt.Sprintf("round trip %s N=%d %s: %s #%d", latency, n, v.name, ph, round+1), args[ph], []int{0})
			if err != nil {
				return r, err
			}
			r.rounds[ph] = append(r.rounds[ph], p)
			last = p.total()
		}
	}
	return r, nil
}

func writeRoundTripReport(b *strings.Builder, results []rtResult, o options) {
	fmt.Fprintln(b, "\n## Small runs under a round trip")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "The production branch of a project (the integration omits branch_id; the other resources take the integration's) with its integration, two OAuth providers (github, google) "+
		"and N trusted domains, as N neon_auth_domain or one neon_auth_domains: apply from nothing, a no-change plan, destroy; "+
		"the emulator at the documented limits, read as %s, holding every request for the round trip before handling it; each "+
		"phase after the account's bucket refilled from the phase before. Each phase: the round with the median wall time of %d; "+
		"terraform -parallelism=%d.\n\n", readingWords(limitReading), o.rtRepeat, o.parallelism)
	fmt.Fprintln(b, "| round trip | N | variant | phase | wall (median) | critical path: requests (time in flight) | requests | 429s | rounds |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		for _, ph := range rtPhases {
			m := r.median(ph)
			walls := make([]time.Duration, 0, len(r.rounds[ph]))
			for _, p := range r.rounds[ph] {
				walls = append(walls, p.wall)
			}
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %d | %d | %s |\n", r.latency, r.n, r.variant, ph, secs2(m.wall), m.path,
				m.total(), m.count429(), rounds(walls))
		}
	}
	fmt.Fprintln(b, "\nTargets:")
	fmt.Fprintln(b)
	writeVerdicts(b, roundTripVerdicts(results))
	fmt.Fprintln(b, "\nNotes: the critical path is the longest chain of the phase's requests in which each arrived at the server after "+
		"the one before was answered (the most requests; of those, the most time in flight), read from the arrival and answer "+
		"times the bench's handler in front of the emulator records. Under a round trip of L, requests sent together overlap, so "+
		"the chain counts the requests that waited on one another and the phase takes at least its time in flight; at 0 s, "+
		"requests that merely did not overlap count as a chain too.")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| round trip | N | variant | phase | by route and status (median round) |")
	fmt.Fprintln(b, "|---|---|---|---|---|")
	for _, r := range results {
		for _, ph := range rtPhases {
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s |\n", r.latency, r.n, r.variant, ph, routes(r.median(ph).requests))
		}
	}
}

// wholeListRatio bounds a whole-list apply against the same domains as
// separate resources, at a round trip.
const wholeListRatio = 1.3

// roundTripVerdicts: under a round trip, the whole-list apply of the largest
// N takes at most wholeListRatio × the per-domain apply.
func roundTripVerdicts(results []rtResult) []verdict {
	var vs []verdict
	for _, r := range results {
		if r.latency == 0 || r.variant != rtVariants[1].name || r.n != slices.Max(sizesOf(results)) {
			continue
		}
		i := slices.IndexFunc(results, func(p rtResult) bool {
			return p.latency == r.latency && p.n == r.n && p.variant == rtVariants[0].name
		})
		if i < 0 {
			continue
		}
		whole, each := r.median("apply").wall, results[i].median("apply").wall
		vs = append(vs, verdict{whole.Seconds() <= wholeListRatio*each.Seconds(),
			fmt.Sprintf("round trip %s, N = %d: the whole-list apply %s ≤ %.1f × the per-domain apply %s", r.latency, r.n,
				secs2(whole), wholeListRatio, secs2(each))})
	}
	return vs
}

func sizesOf(results []rtResult) []int {
	var ns []int
	for _, r := range results {
		ns = append(ns, r.n)
	}
	return ns
}
