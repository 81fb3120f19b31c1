//go:build neonbench

package provider

import "testing"

// The benchmark's knob, tested in its build: make bench runs it
// (go test -tags neonbench).

func TestUnitMachineryOffNamesItsParts(t *testing.T) {
	old := machineryOff
	t.Cleanup(func() { machineryOff = old })
	machineryOff = "sharing,pacing"
	for part, want := range map[string]bool{"sharing": true, "pacing": true, "batching": false, "": false} {
		if got := machineryIsOff(part); got != want {
			t.Errorf("machineryIsOff(%q) = %v with %q, want %v", part, got, machineryOff, want)
		}
	}
	if rl := rateLimit(neonProviderModel{}, true); rl.RequestsPerMinute >= 0 || rl.RouteRequestsPerSecond >= 0 || rl.Shared {
		t.Errorf("pacing off: rate limit %+v, want none", rl)
	}
}
