package apiclient

import (
	"context"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"testing"
	"time"
)

// manualClock is set by the test; nobody sleeps on it.
type manualClock struct{ now time.Time }

func (c *manualClock) Now() time.Time { return c.now }

func (c *manualClock) Sleep(context.Context, time.Duration) error {
	panic("the schedule test takes turns with reserve and never sleeps")
}

// sent is one request as the server would see it.
type sent struct {
	at    time.Time
	route string
}

// turn is a request holding a turn for later.
type turn struct {
	at    time.Time
	route string
	epoch uint64
}

// schedule runs arrivals (ascending) through a limiter as wait would, on a
// manual clock: a turn for later is used when it comes if no 429 voided it,
// else taken anew. After each request the server answers 200, or 429 (with a
// Retry-After of 0 to 2 s) with probability p429. It returns the times the
// requests left and whether any waited.
func schedule(t *testing.T, rl RateLimit, arrivals []sent, p429 float64, rng *rand.Rand) []sent {
	t.Helper()
	clk := &manualClock{now: arrivals[0].at}
	l := newLimiterWithClock(rl, clk)
	ctx := context.Background()
	var out []sent
	var pending []turn
	take := func(route string) {
		now, at, epoch, err := l.reserve(ctx, route)
		if err != nil {
			t.Fatal(err)
		}
		if at.After(now) {
			pending = append(pending, turn{at, route, epoch})
			return
		}
		out = append(out, sent{at, route})
		if rng.Float64() < p429 {
			l.observe(http.StatusTooManyRequests, time.Duration(rng.IntN(3))*time.Second)
		} else {
			l.observe(http.StatusOK, 0)
		}
	}
	i := 0
	for i < len(arrivals) || len(pending) > 0 {
		sort.SliceStable(pending, func(a, b int) bool { return pending[a].at.Before(pending[b].at) })
		if len(pending) > 0 && (i == len(arrivals) || !arrivals[i].at.Before(pending[0].at)) {
			p := pending[0]
			pending = pending[1:]
			clk.now = p.at
			valid, err := l.account.stillValid(ctx, p.epoch, p.at)
			if err != nil {
				t.Fatal(err)
			}
			if !valid {
				take(p.route)
				continue
			}
			out = append(out, sent{p.at, p.route})
			if rng.Float64() < p429 {
				l.observe(http.StatusTooManyRequests, time.Duration(rng.IntN(3))*time.Second)
			} else {
				l.observe(http.StatusOK, 0)
			}
			continue
		}
		clk.now = arrivals[i].at
		take(arrivals[i].route)
		i++
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].at.Before(out[b].at) })
	return out
}

// randomArrivals is a random pattern: bursts of many requests at once, quiet
// gaps, steady streams, over one to four routes of uneven weight.
func randomArrivals(rng *rand.Rand, start time.Time) []sent {
	routes := []string{"POST /projects/{project_id}/auth/domains", "GET /projects/{project_id}/auth/domains",
		"POST /projects/auth/create", "DELETE /projects/{project_id}/auth/domains"}[:1+rng.IntN(4)]
	n := 20 + rng.IntN(1500)
	meanGap := []time.Duration{time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond, time.Second}[rng.IntN(4)]
	at := start
	out := make([]sent, 0, n)
	for range n {
		switch r := rng.Float64(); {
		case r < 0.4: // part of a burst: at once
		case r < 0.45: // a pause
			at = at.Add(time.Duration(rng.Int64N(int64(90 * time.Second))))
		default:
			at = at.Add(time.Duration(rng.ExpFloat64() * float64(meanGap)))
		}
		out = append(out, sent{at, routes[int(float64(len(routes))*rng.Float64()*rng.Float64())]})
	}
	return out
}

// mostInWindow is the most times of ts (ascending) within any window of span.
func mostInWindow(ts []time.Time, span time.Duration) int {
	most, j := 0, 0
	for i := range ts {
		for ts[i].Sub(ts[j]) >= span {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}

// conformsToBucket reports whether a token bucket of rate per second holding
// burst, full at the start, lets every one of ts (ascending) pass.
func conformsToBucket(ts []time.Time, rate, burst float64) bool {
	tokens := burst
	for i, t := range ts {
		if i > 0 {
			tokens = min(burst, tokens+rate*t.Sub(ts[i-1]).Seconds())
		}
		if tokens < 1-1e-9 {
			return false
		}
		tokens--
	}
	return true
}

func timesOf(ss []sent, route string) []time.Time {
	var ts []time.Time
	for _, s := range ss {
		if route == "" || s.route == route {
			ts = append(ts, s.at)
		}
	}
	return ts
}

// For many random arrival patterns, the schedule the limiter produces keeps
// every reading of the documented limits: never more than 700 requests in any
// 60 seconds, never more than 40 on one route in any second, and the
// emulator's token buckets (700/min holding 40 for the account, 40/s holding
// 40 per route) let every request pass even when each reaches the server up
// to 100 ms late. With 429s thrown in (which cut the pace and void the turns
// handed out for later) it still does.
func TestLimiterScheduleKeepsEveryReadingOfTheLimits(t *testing.T) {
	const patterns = 120
	for seed := range patterns {
		rng := rand.New(rand.NewPCG(uint64(seed), 24))
		arrivals := randomArrivals(rng, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		p429 := 0.0
		if seed%3 == 0 {
			p429 = 0.02
		}
		out := schedule(t, RateLimit{}, arrivals, p429, rng)
		if len(out) != len(arrivals) {
			t.Fatalf("pattern %d: %d requests left, %d arrived", seed, len(out), len(arrivals))
		}
		all := timesOf(out, "")
		if most := mostInWindow(all, time.Minute); most > DefaultAccountRequestsPerMinute {
			t.Errorf("pattern %d: %d requests within 60 s", seed, most)
		}
		late := make([]time.Time, len(all))
		for i, ts := range all {
			late[i] = ts.Add(time.Duration(rng.Int64N(int64(100 * time.Millisecond))))
		}
		slices.SortFunc(late, func(a, b time.Time) int { return a.Compare(b) })
		if !conformsToBucket(late, float64(DefaultAccountRequestsPerMinute)/60, documentedBurst) {
			t.Errorf("pattern %d: the emulator's account bucket refuses a request", seed)
		}
		routes := map[string]bool{}
		for _, s := range out {
			routes[s.route] = true
		}
		for r := range routes {
			ts := timesOf(out, r)
			if most := mostInWindow(ts, time.Second); most > DefaultRouteRequestsPerSecond {
				t.Errorf("pattern %d: %d requests on %s within 1 s", seed, most, r)
			}
			late := make([]time.Time, len(ts))
			for i, x := range ts {
				late[i] = x.Add(time.Duration(rng.Int64N(int64(100 * time.Millisecond))))
			}
			slices.SortFunc(late, func(a, b time.Time) int { return a.Compare(b) })
			if !conformsToBucket(late, DefaultRouteRequestsPerSecond, DefaultRouteRequestsPerSecond) {
				t.Errorf("pattern %d: the emulator's bucket of %s refuses a request", seed, r)
			}
		}
	}
}

// Without 429s nobody waits for anything but the limits: a request that
// waited could not have left a millisecond earlier without breaking the
// account window, its route's window or the account bucket the client keeps
// (the emulator's, burstMargin tokens smaller).
func TestLimiterWaitsForNothingButTheLimits(t *testing.T) {
	for seed := range 40 {
		rng := rand.New(rand.NewPCG(uint64(seed), 42))
		arrivals := randomArrivals(rng, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		if len(arrivals) > 400 {
			arrivals = arrivals[:400]
		}
		out := schedule(t, RateLimit{}, arrivals, 0, rng)
		arrived := map[sent]int{}
		for _, a := range arrivals {
			arrived[a]++
		}
		rate := float64(DefaultAccountRequestsPerMinute) / 60
		for i, s := range out {
			if arrived[s] > 0 {
				arrived[s]--
				continue // left when it arrived
			}
			earlier := slices.Clone(out)
			earlier[i].at = s.at.Add(-time.Millisecond)
			sort.SliceStable(earlier, func(a, b int) bool { return earlier[a].at.Before(earlier[b].at) })
			all := timesOf(earlier, "")
			if mostInWindow(all, time.Minute+windowSlack) <= DefaultAccountRequestsPerMinute &&
				mostInWindow(timesOf(earlier, s.route), time.Second+windowSlack) <= DefaultRouteRequestsPerSecond &&
				conformsToBucket(all, rate, documentedBurst-burstMargin) {
				t.Errorf("pattern %d: request %d (%s) waited until %v, but 1 ms earlier breaks no limit", seed, i, s.route, s.at)
			}
		}
	}
}
