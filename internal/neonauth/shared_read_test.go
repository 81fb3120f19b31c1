package neonauth

import (
	"context"
	"testing"
	"time"
)

// A read that started before a moment (such as the start of a lookup that
// must see a branch created since) is not served to getSince; one that
// started after it is shared, finished or in flight.
func TestSharedReads_getSinceFetchesAReadOlderThanItsMoment(t *testing.T) {
	c := newSharedRead[int](time.Minute)
	clock := time.Unix(1000, 0)
	c.now = func() time.Time { return clock }
	var fetches int
	fetch := func(context.Context) (int, error) { fetches++; return fetches, nil }
	key := readKey{projectID: "p"}
	ctx := context.Background()
	if v, _ := c.get(ctx, key, fetch); v != 1 {
		t.Fatalf("first read = %d", v)
	}
	clock = clock.Add(time.Second)
	since := clock
	if v, _ := c.getSince(ctx, key, since, fetch); v != 2 || fetches != 2 {
		t.Errorf("getSince after an older read = %d (%d fetches), want a new read", v, fetches)
	}
	if v, _ := c.getSince(ctx, key, since, fetch); v != 2 || fetches != 2 {
		t.Errorf("getSince again = %d (%d fetches), want the read that started at its moment", v, fetches)
	}
	if v, _ := c.get(ctx, key, fetch); v != 2 {
		t.Errorf("get after getSince = %d, want the newer read shared", v)
	}
}

// A write whose effect on a held value is known amends it: later readers get
// the changed copy without a request. A value too old to be served, or a
// read still in flight (it may predate the write), is forgotten instead.
func TestSharedReads_amendServesTheChangedValue(t *testing.T) {
	c := newSharedRead[int](time.Minute)
	clock := time.Unix(1000, 0)
	c.now = func() time.Time { return clock }
	var fetches int
	fetch := func(context.Context) (int, error) { fetches++; return 10 * fetches, nil }
	key, ctx := readKey{projectID: "p"}, context.Background()
	plusOne := func(v int) int { return v + 1 }

	_, _ = c.get(ctx, key, fetch)
	c.amend(key, plusOne)
	if v, _ := c.get(ctx, key, fetch); v != 11 || fetches != 1 {
		t.Errorf("after amending a held value: %d (%d fetches), want 11 without a request", v, fetches)
	}
	clock = clock.Add(2 * time.Minute)
	c.amend(key, plusOne)
	if v, _ := c.get(ctx, key, fetch); v != 20 || fetches != 2 {
		t.Errorf("after amending a stale value: %d (%d fetches), want a new read", v, fetches)
	}
	release := make(chan struct{})
	inFlight := make(chan int)
	c.invalidate(key)
	go func() {
		v, _ := c.get(ctx, key, func(context.Context) (int, error) { <-release; return 99, nil })
		inFlight <- v
	}()
	for {
		c.mu.Lock()
		_, started := c.entries[key]
		c.mu.Unlock()
		if started {
			break
		}
		time.Sleep(time.Millisecond)
	}
	c.amend(key, plusOne)
	close(release)
	<-inFlight
	if v, _ := c.get(ctx, key, fetch); v != 30 || fetches != 3 {
		t.Errorf("after amending a read in flight: %d (%d fetches), want a new read", v, fetches)
	}
}
