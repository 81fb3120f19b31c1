package emulator

import (
	"testing"
	"time"
)

// Refilled, every limit is as if the account had sent nothing for a long
// while, whatever the reading: the account and a route that refused a
// request at once let their whole documented burst through again, and the
// limits stay the same size.
func TestRefilledRateLimitsLetTheWholeBurstThroughAgain(t *testing.T) {
	for _, reading := range []RateLimitReading{ReadingBuckets, ReadingWindows} {
		t.Run(string(reading), func(t *testing.T) {
			e, err := New(Options{RateLimitReading: reading, AccountRequestsPerMinute: 40, RouteRequestsPerSecond: 30})
			if err != nil {
				t.Fatal(err)
			}
			clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
			e.limiter.now = clock.now
			burst := func(route string, n int) int {
				passed := 0
				for range n {
					if ok, _ := e.limiter.allow(route); ok {
						passed++
					}
				}
				return passed
			}
			if n := burst("GET /a", 31); n != 30 {
				t.Fatalf("%d of 31 requests on one route passed, want the route's 30", n)
			}
			if n := burst("GET /b", 11); n != 10 {
				t.Fatalf("%d of 11 requests on another route passed, want the account's 10 left", n)
			}
			clock.advance(time.Millisecond)
			e.RefillRateLimits()
			if n := burst("GET /a", 31); n != 30 {
				t.Errorf("refilled: %d of 31 requests on the route passed, want 30", n)
			}
			if n := burst("GET /b", 11); n != 10 {
				t.Errorf("refilled: %d of 11 requests on another route passed, want the account's 10 left", n)
			}
		})
	}
}
