package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// writePhases writes a table of phases with their requests by route.
func writePhases(b *strings.Builder, phases ...phase) {
	fmt.Fprintln(b, "| phase | wall | requests | by route and status |")
	fmt.Fprintln(b, "|---|---|---|---|")
	for _, p := range phases {
		fmt.Fprintf(b, "| %s | %s | %d | %s |\n", p.name, secs(p.wall), p.total(), routes(p.requests))
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
