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
