package apiclient

import (
	"context"
	"math"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// servedThen429 has the account serve a fresh limiter burst requests at
// once and n more spread evenly over d, and answers the next one 429.
func servedThen429(t *testing.T, a *accountLimiter, clk *steppingClock, burst, n int, d time.Duration) {
	t.Helper()
	ctx := context.Background()
	for range burst {
		if err := a.wait(ctx); err != nil {
			t.Fatal(err)
		}
		a.observe(http.StatusOK, 0)
	}
	for i := range n {
		if err := a.wait(ctx); err != nil {
			t.Fatal(err)
		}
		a.observe(http.StatusOK, 0)
		if i < n-1 {
			clk.advance(d / time.Duration(n-1))
		}
	}
	if burst+n == 0 {
		if err := a.wait(ctx); err != nil {
			t.Fatal(err)
		}
		clk.advance(d)
	}
	a.observe(http.StatusTooManyRequests, 0)
}

// The first 429 of a process cuts from the rate the account actually served
// it, when that is lower than the rate it allowed itself: the documented
// limits bound what the account serves in the process's first W seconds by
// its burst (40) plus W at 700/min, and a process that got a small part of
// that shares the account with others. The cut never goes more than
// servedCutDepth below the process's own rate: a process that was served
// little because it needed little, or whose first answers were all 429s,
// learns no more than that.
func TestFirstCutStartsFromTheRateTheAccountServed(t *testing.T) {
	const burstSeconds = documentedBurst / (700.0 / 60) // the burst's worth of the account's time, 3.43 s
	for _, tc := range []struct {
		name     string
		burst    int
		served   int
		over     time.Duration
		wantFrom float64 // requests per minute the cut starts from
	}{
		// The most the client sends in a minute: a lone process at the
		// limit is cut from 5 % below it.
		{"alone at the limit for a minute, a burst first", documentedBurst - burstMargin, 700 - (documentedBurst - burstMargin), time.Minute, 60 * 700 / (60 + burstSeconds)},
		{"a quarter of the account for 10 s", 0, 40, 10 * time.Second, 60 * 40 / (10 + burstSeconds)},
		{"crowded out: 5 requests in 10 s", 0, 5, 10 * time.Second, 700.0 / servedCutDepth},
		{"its first answer is the 429", 0, 0, 200 * time.Millisecond, 700.0 / servedCutDepth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newSteppingClock()
			a := accountAt(t, 700, clk)
			servedThen429(t, a, clk, tc.burst, tc.served, tc.over)
			if got, want := perMinute(a), tc.wantFrom*throttleBeta; math.Abs(got-want) > want/200 {
				t.Errorf("after the 429 the rate is %.2f/min, want %.2f (%.1f × %.2f/min)", got, want, throttleBeta, tc.wantFrom)
			}
		})
	}
}

// A cut that comes before the rate is back at the configured one follows
// CUBIC alone: the count of what the account served is for the first cut
// after a full rate, and later cuts come from the rate the curve reached
// (a process crowded out early would otherwise stay cut deep for having
// been cut deep).
func TestLaterCutsIgnoreTheServedCount(t *testing.T) {
	clk := newSteppingClock()
	a := accountAt(t, 700, clk)
	servedThen429(t, a, clk, 0, 5, 10*time.Second)
	for range 50 { // 5 s of successes: the curve climbs
		clk.advance(100 * time.Millisecond)
		a.observe(http.StatusOK, 0)
	}
	before := perMinute(a)
	a.observe(http.StatusTooManyRequests, 0)
	if got, want := perMinute(a), before*throttleBeta; math.Abs(got-want) > 0.01 {
		t.Errorf("the second cut left %.2f/min, want %.2f (%.1f × the %.2f/min reached)", got, want, throttleBeta, before)
	}
}

// In a bucket shared with other processes the answers this process sees are
// not all the account served the machine: the count is not used.
func TestSharedBucketCutsFromItsOwnRate(t *testing.T) {
	clk := newSteppingClock()
	a := newLimiterWithClock(RateLimit{RequestsPerMinute: 700, Shared: true, SharedDir: t.TempDir()}, clk).account
	a.bindShared("served-count-test")
	full := perMinute(a)
	servedThen429(t, a, clk, 0, 5, 10*time.Second)
	if got, want := perMinute(a), full*throttleBeta; math.Abs(got-want) > 0.01 {
		t.Errorf("after the 429 the shared rate is %.2f/min, want %.2f (%.1f × %.2f/min)", got, want, throttleBeta, full)
	}
}

// Callers queued for turns when the rate was cut deep leave as fast as the
// rate climbs back, not at the pace of the cut: once the rate has grown by
// retimeGrowth, the turns waiting are taken anew. (Without it, measured in
// the simulation of 8 short applies: a process cut to the floor kept its
// queue of turns a minute long after the curve was back at 700/min.)
func TestTurnsWaitingFollowTheRateAsItClimbs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := accountAt(t, 700, realClock{})
		ctx := context.Background()
		if err := a.wait(ctx); err != nil {
			t.Fatal(err)
		}
		a.observe(http.StatusTooManyRequests, 0) // the first answer: cut to 61.25/min
		cut := float64(a.Limit())
		const callers = 60
		start := time.Now()
		left := make(chan time.Duration, callers)
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				if err := a.wait(ctx); err != nil {
					t.Error(err)
				}
				a.observe(http.StatusOK, 0)
				left <- time.Since(start)
			})
		}
		// The answers of other requests of this process keep coming.
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(200 * time.Millisecond):
					a.observe(http.StatusOK, 0)
				}
			}
		}()
		wg.Wait()
		close(stop)
		close(left)
		var last time.Duration
		for d := range left {
			last = max(last, d)
		}
		atCut := time.Duration(callers / cut * float64(time.Second))
		t.Logf("cut to %.1f/min; %d queued callers all left after %v (%v at the cut rate)", cut*60, callers, last.Round(time.Millisecond), atCut.Round(time.Millisecond))
		if last > atCut/2 {
			t.Errorf("the last of %d callers left after %v, want well before the %v the cut rate would take", callers, last, atCut)
		}
	})
}
