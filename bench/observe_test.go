package main

import (
	"testing"
	"time"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// The critical path counts the requests that waited on one another: those
// sent together overlap and count once, however many they are.
func TestTheCriticalPathIsTheLongestChainOfRequestsThatWaitedOnOneAnother(t *testing.T) {
	ob := observation{inFlight: []interval{
		{ms(0), ms(80)}, // the branch list
		{ms(81), ms(161)},
		{ms(162), ms(242)}, {ms(162), ms(243)}, {ms(163), ms(243)}, // three reads sent together
	}}
	for i := range 10 { // ten adds sent together, after the reads
		ob.inFlight = append(ob.inFlight, interval{ms(250 + i), ms(330 + i)})
	}
	got := ob.criticalPath()
	if got.requests != 4 {
		t.Errorf("critical path of %d requests, want 4 (a list, a create, the reads, the adds)", got.requests)
	}
	if want := ms(80 + 80 + 81 + 80); got.busy != want {
		t.Errorf("its time in flight %v, want %v (of the chains of 4, the longest)", got.busy, want)
	}
}

// A request that arrived before the one before it was answered did not wait
// on it.
func TestOverlappingRequestsAreNoChain(t *testing.T) {
	ob := observation{inFlight: []interval{{ms(0), ms(80)}, {ms(79), ms(159)}, {ms(158), ms(238)}}}
	if got := ob.criticalPath(); got.requests != 2 {
		t.Errorf("critical path of %d requests, want 2 (the first and the third)", got.requests)
	}
	if got := (observation{}).criticalPath(); got.requests != 0 || got.busy != 0 {
		t.Errorf("a phase without requests has a critical path of %v", got)
	}
}
