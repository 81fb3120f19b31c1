//go:build neonbench

package provider

import (
	"slices"
	"strings"
)

// The benchmark's knob, in its build only (go build -tags neonbench): parts
// of the provider's request machinery switched off, to measure what each
// saves and what it costs a small run. Release builds have none (see
// machinery_release.go).

// machineryOff names the parts switched off, set at build time (-tags
// neonbench -ldflags "-X …/internal/provider.machineryOff=sharing,batching,pacing"):
// "sharing" of list reads, "batching" of domain deletes, client-side
// "pacing" (no rate limit at all).
var machineryOff = ""

// machineryIsOff reports whether part was switched off (see machineryOff).
func machineryIsOff(part string) bool {
	return slices.Contains(strings.Split(machineryOff, ","), part)
}
