package main

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// This file holds the helpers that format measurements into the report's tables and verdicts.

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// pct is part ÷ whole in percent, 0 when whole is 0.
func pct(part, whole float64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * part / whole
}

// writePhases writes a table of phases with their critical paths and
// requests by route.
func writePhases(b *strings.Builder, phases ...phase) {
	fmt.Fprintln(b, "| phase | wall | critical path: requests (time in flight) | requests | by route and status |")
	fmt.Fprintln(b, "|---|---|---|---|---|")
	for _, p := range phases {
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s |\n", p.name, secs(p.wall), p.path, p.total(), routes(p.requests))
	}
}

// sortedRoutes are the route keys of s in order.
func sortedRoutes(s emulator.Stats) []string {
	keys := make([]string, 0, len(s.Requests))
	for k := range s.Requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// routeTotal is the number of requests of one route, whatever their status.
func routeTotal(s emulator.Stats, key string) int {
	n := 0
	for _, c := range s.Requests[key] {
		n += c
	}
	return n
}

// routes lists the requests by route and status, one route a line.
func routes(s emulator.Stats) string {
	var parts []string
	for _, k := range sortedRoutes(s) {
		statuses := make([]int, 0, len(s.Requests[k]))
		for st := range s.Requests[k] {
			statuses = append(statuses, st)
		}
		sort.Ints(statuses)
		var ss []string
		for _, st := range statuses {
			ss = append(ss, fmt.Sprintf("%d×%d", s.Requests[k][st], st))
		}
		parts = append(parts, fmt.Sprintf("`%s` %s", k, strings.Join(ss, " ")))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, "<br>")
}

// verdict is one target checked against a measurement.
type verdict struct {
	ok   bool
	what string
}

func writeVerdicts(b *strings.Builder, vs []verdict) {
	for _, v := range vs {
		word := "FAIL"
		if v.ok {
			word = "PASS"
		}
		fmt.Fprintf(b, "- %s: %s\n", word, v.what)
	}
}

// reads summarises the GET requests of a phase by actual path: how many
// distinct (project, branch, endpoint) paths were read, the most reads of
// one, and the paths read more than once with their counts.
type reads struct {
	distinct, most int
	repeated       []string
}

func readsOf(p phase) reads {
	var r reads
	keys := make([]string, 0, len(p.seen.paths))
	for k := range p.seen.paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n := p.seen.paths[k]
		if !strings.HasPrefix(k, http.MethodGet+" ") {
			continue
		}
		r.distinct++
		r.most = max(r.most, n)
		if n > 1 {
			r.repeated = append(r.repeated, fmt.Sprintf("`%s` ×%d", k, n))
		}
	}
	return r
}

// ratio is the phase's requests per distinct path read.
func (r reads) ratio(p phase) float64 { return float64(p.total()) / float64(max(1, r.distinct)) }

// getRoutes is how many GET routes (endpoint templates) a phase used.
func getRoutes(s emulator.Stats) int {
	n := 0
	for k := range s.Requests {
		if strings.HasPrefix(k, http.MethodGet+" ") {
			n++
		}
	}
	return n
}
