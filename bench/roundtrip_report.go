package main

import (
	"fmt"
	"slices"
	"strings"
)

// This file writes the roundtrip section's report: its tables, the
// comparison with the peer, and its verdicts.

func writeRoundTripReport(b *strings.Builder, results []rtResult, builds map[string]string, o options) {
	fmt.Fprintln(b, "\n## Runs under a round trip, under each reading of the limits")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "The production branch of a project with its integration, two OAuth providers (github, google) and N trusted "+
		"domains, as N neon_auth_domain or one neon_auth_domains (the integration omits branch_id; the other resources take "+
		"the integration's): apply from nothing, a no-change plan, destroy. The emulator at the documented limits, read as "+
		"the row says (%s), holds every request for the round trip before handling it; every variant runs on a project and "+
		"with an API key of its own on one emulator, the variants taking turns phase after phase, and the emulator's limits "+
		"are refilled before each phase (as a run of its own would start). Each phase: the round with the median wall time "+
		"of %d at N ≤ %d, of %d above; terraform -parallelism=%d. %s\n\n",
		strings.Join(readingNames(o.readings), ", "), o.rtRepeat, rtSmall, o.rtRepeatLarge, o.parallelism, buildsWords(builds))
	fmt.Fprintln(b, "| reading | round trip | N | variant | phase | wall (median) | rounds | requests | 429s, all rounds | ideal: buckets | ideal: windows | critical path: requests (time in flight) |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		for _, ph := range rtPhases {
			m := r.median(ph)
			n429, all := r.refused(ph)
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s | %d | %d of %d | %s | %s | %s |\n", r.reading, r.latency, r.n,
				r.variant.name, ph, secs2(m.wall), roundsAndExits(r.rounds[ph]), served(m.requests, ""), n429, all,
				secs2(idealSchedule(m.requests, readings[0])), secs2(idealSchedule(m.requests, readings[1])), m.path)
		}
	}
	if builds[buildPeer] != "" {
		writePeerComparison(b, results)
	}
	fmt.Fprintln(b, "\nTargets:")
	fmt.Fprintln(b)
	writeVerdicts(b, roundTripVerdicts(results, o))
	fmt.Fprintln(b, "\nNotes: requests are those the limits let through (429s left out), of the median round; the 429s are "+
		"counted over every round, against all the requests of those rounds. The ideal of a reading is how soon the phase's "+
		"requests could all have passed the limits counted that way, had they all been ready at once (buckets: the account's "+
		"holding 40 and refilled at 700/60 per second, a route's holding 40 at 40/s; windows: 700 in any 60 s, 40 in any "+
		"second on a route); Terraform's time and the round trips are not in it. The critical path is the longest chain of "+
		"the phase's requests in which each arrived at the server after the one before was answered (the most requests; of "+
		"those, the most time in flight), read from the arrival and answer times the bench's handler in front of the "+
		"emulator records. Under a round trip of L, requests sent together overlap, so the chain counts the requests that "+
		"waited on one another and the phase takes at least its time in flight; at 0 s, requests that merely did not "+
		"overlap count as a chain too.")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| reading | round trip | N | variant | phase | by route and status (median round) |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|")
	for _, r := range results {
		for _, ph := range rtPhases {
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s |\n", r.reading, r.latency, r.n, r.variant.name, ph, routes(r.median(ph).requests))
		}
	}
}

// buildsWords says which builds the section ran, and which it skipped.
func buildsWords(builds map[string]string) string {
	words := "This provider as built by the bench."
	if builds[buildBefore] != "" {
		words += " \"before\": the build given by -before (another commit of this provider), on the same configurations."
	}
	if builds[buildPeer] != "" {
		words += " \"peer\": kenchan0130/terraform-provider-neon, the build given by -peer, with the same shape in its types " +
			"(neon_branch_neon_auth, two neon_branch_neon_auth_oauth_provider, N neon_branch_neon_auth_trusted_domain), given " +
			"the branch's id."
	} else {
		words += " The peer (kenchan0130/terraform-provider-neon) was skipped: no -peer (or NEON_BENCH_PEER) names a build of it."
	}
	return words
}

// roundsAndExits lists the rounds' walls, each with the command's exit
// code where it was not 0 (a failed apply, a plan with changes).
func roundsAndExits(ps []phase) string {
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		part := fmt.Sprintf("%.2f", p.wall.Seconds())
		if p.exit != 0 {
			part += fmt.Sprintf(" (exit %d)", p.exit)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}

// writePeerComparison sets the peer's median walls beside this provider's,
// case by case.
func writePeerComparison(b *strings.Builder, results []rtResult) {
	fmt.Fprintln(b, "\nAgainst the peer (median walls; peer ÷ this in brackets, above 1 when this provider is faster):")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| reading | round trip | N | phase | peer: wall, requests, 429s | N × neon_auth_domain | one neon_auth_domains |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|")
	for _, peer := range results {
		if peer.variant.build != buildPeer {
			continue
		}
		for _, ph := range rtPhases {
			pm := peer.median(ph)
			p429, _ := peer.refused(ph)
			row := fmt.Sprintf("| %s | %s | %d | %s | %s, %d, %d%s |", peer.reading, peer.latency, peer.n, ph, secs2(pm.wall),
				served(pm.requests, ""), p429, exitWords(pm))
			for _, this := range sameCase(results, peer) {
				if this.variant.build != buildThis {
					continue
				}
				tm := this.median(ph)
				row += fmt.Sprintf(" %s (%.2f×) |", secs2(tm.wall), pm.wall.Seconds()/tm.wall.Seconds())
			}
			fmt.Fprintln(b, row)
		}
	}
}

// exitWords says that a phase's command failed, or planned changes.
func exitWords(p phase) string {
	switch p.exit {
	case 0:
		return ""
	case 2: // plan -detailed-exitcode
		return " (changes planned)"
	}
	return fmt.Sprintf(" (failed: exit %d)", p.exit)
}

// sameCase is the results of r's reading, round trip and size.
func sameCase(results []rtResult, r rtResult) []rtResult {
	var out []rtResult
	for _, o := range results {
		if o.reading == r.reading && o.latency == r.latency && o.n == r.n {
			out = append(out, o)
		}
	}
	return out
}

// wholeListRatio bounds a whole-list apply against the same domains as
// separate resources, at a round trip.
const wholeListRatio = 1.3

// roundTripVerdicts: under a round trip, the whole-list apply of the largest
// N takes at most wholeListRatio × the per-domain apply; this provider's
// phases meet at most the 429s a run alone may (maxShare429); where the peer
// ran, no phase of this provider is slower than the peer's; where -before
// ran, no phase sends more requests than it did.
func roundTripVerdicts(results []rtResult, o options) []verdict {
	var vs []verdict
	largest := slices.Max(o.rtSizes)
	for _, r := range results {
		if r.variant.build != buildThis {
			continue
		}
		others := sameCase(results, r)
		if r.latency > 0 && r.n == largest && r.variant.name == "one neon_auth_domains" {
			if each := find(others, buildThis, "N × neon_auth_domain"); each != nil {
				whole, per := r.median("apply").wall, each.median("apply").wall
				vs = append(vs, verdict{whole.Seconds() <= wholeListRatio*per.Seconds(),
					fmt.Sprintf("%s, round trip %s, N = %d: the whole-list apply %s ≤ %.1f × the per-domain apply %s", r.reading,
						r.latency, r.n, secs2(whole), wholeListRatio, secs2(per))})
			}
		}
		for _, ph := range rtPhases {
			vs = append(vs, roundTripPhaseVerdicts(r, ph, others)...)
		}
	}
	return vs
}

// roundTripPhaseVerdicts checks one phase of one of this provider's variants.
func roundTripPhaseVerdicts(r rtResult, ph string, others []rtResult) []verdict {
	name := fmt.Sprintf("%s, round trip %s, N = %d, %s, %s", r.reading, r.latency, r.n, r.variant.name, ph)
	n429, all := r.refused(ph)
	limit := maxShare429(r.reading)
	vs := []verdict{{pct(float64(n429), float64(all)) <= limit,
		fmt.Sprintf("%s: 429s ≤ %.0f %% of requests (%d of %d)", name, limit, n429, all)}}
	this := r.median(ph)
	if peer := find(others, buildPeer, ""); peer != nil {
		p := peer.median(ph)
		// A peer that gave up (exit 1) did not finish: this provider did.
		vs = append(vs, verdict{this.wall <= p.wall || p.exit == 1,
			fmt.Sprintf("%s: no slower than the peer (%s against %s%s)", name, secs2(this.wall), secs2(p.wall), exitWords(p))})
	}
	if before := find(others, buildBefore, "before: "+r.variant.name); before != nil {
		was, is := served(before.median(ph).requests, ""), served(this.requests, "")
		vs = append(vs, verdict{is <= was, fmt.Sprintf("%s: no more requests than before (%d against %d)", name, is, was)})
	}
	return vs
}

// find is the result of the build (and variant, unless "") among rs; nil
// when it did not run.
func find(rs []rtResult, build, variant string) *rtResult {
	for i := range rs {
		if rs[i].variant.build == build && (variant == "" || rs[i].variant.name == variant) {
			return &rs[i]
		}
	}
	return nil
}
