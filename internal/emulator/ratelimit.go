package emulator

import (
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// The emulator's rate limits: Neon's documented numbers (700 requests per
// minute per account, bursts of up to 40 per second per route), read in one
// of two ways, since Neon publishes the numbers and not the algorithm.

// RateLimitReading is how the emulator reads the documented limits.
type RateLimitReading string

const (
	// ReadingWindows (the default) answers 429 only past the documented
	// numbers: at most AccountRequestsPerMinute in any 60 seconds on the
	// account, at most RouteRequestsPerSecond in any second on one route.
	// A client may send a burst of any size up to those. The official Neon
	// provider's acceptance tests, which run against Neon and do not pace
	// their own calls, need that much (internal/apispec/platform-behaviour.md).
	ReadingWindows RateLimitReading = "windows"
	// ReadingBuckets is the stricter reading: token buckets, the account's
	// filled at AccountRequestsPerMinute ÷ 60 per second holding at most 40,
	// a route's at RouteRequestsPerSecond holding as many. A burst beyond 40
	// on the account meets 429 well within the minute's 700. The client
	// learns from the account's answers which of the two it follows
	// (internal/apiclient/ratelimit_reading.go).
	ReadingBuckets RateLimitReading = "buckets"
)

// ParseRateLimitReading reads the name of a reading ("" is the default).
func ParseRateLimitReading(s string) (RateLimitReading, error) {
	switch r := RateLimitReading(s); r {
	case "":
		return ReadingWindows, nil
	case ReadingWindows, ReadingBuckets:
		return r, nil
	}
	return "", fmt.Errorf("rate limit reading %q: want %q or %q", s, ReadingWindows, ReadingBuckets)
}

// accountBurst is the most tokens the account bucket holds (ReadingBuckets).
const accountBurst = 40

// gate is one limit: it tells whether a request at t may pass and, when
// not, how long until one can; take records a request that passed.
type gate interface {
	wait(t time.Time) time.Duration
	take(t time.Time)
}

// rateLimiter enforces the limits: one gate for the account (all keys of the
// organization share it) and one per route key. A request passes only if
// every gate lets it; a denied request counts nowhere.
type rateLimiter struct {
	mu         sync.Mutex
	now        func() time.Time
	account    gate        // nil: no account limit
	newAccount func() gate // makes the account's gate; nil: no account limit
	route      func() gate // makes a route's gate; nil: no per-route limit
	routes     map[string]gate
}

// newRateLimiter builds the limits of accountRPM (≤ 0: none) and routeRPS
// (≤ 0: none) under reading.
func newRateLimiter(reading RateLimitReading, accountRPM, routeRPS int, clock func() time.Time) *rateLimiter {
	l := &rateLimiter{now: clock, routes: map[string]gate{}}
	switch reading {
	case ReadingBuckets:
		if accountRPM > 0 {
			l.newAccount = func() gate {
				return bucket{rate.NewLimiter(rate.Limit(float64(accountRPM)/60), min(accountBurst, accountRPM))}
			}
		}
		if routeRPS > 0 {
			l.route = func() gate { return bucket{rate.NewLimiter(rate.Limit(routeRPS), routeRPS)} }
		}
	default:
		if accountRPM > 0 {
			l.newAccount = func() gate { return newWindow(accountRPM, time.Minute) }
		}
		if routeRPS > 0 {
			l.route = func() gate { return newWindow(routeRPS, time.Second) }
		}
	}
	if l.newAccount != nil {
		l.account = l.newAccount()
	}
	return l
}

// RefillRateLimits makes every rate limit as if the account had sent nothing
// for a long while: full buckets, empty windows. The benchmark (bench/)
// calls it between the commands it measures, so that each starts as a run
// of its own would, whatever the reading: a minute window empties only a
// minute after the last request.
func (e *Emulator) RefillRateLimits() {
	l := e.limiter
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.newAccount != nil {
		l.account = l.newAccount()
	}
	l.routes = map[string]gate{}
}

// allow lets one request on routeKey pass, or none. When denied it returns
// how long until a retry can pass.
func (l *rateLimiter) allow(routeKey string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.now()
	var gates []gate
	if l.account != nil {
		gates = append(gates, l.account)
	}
	if l.route != nil {
		g := l.routes[routeKey]
		if g == nil {
			g = l.route()
			l.routes[routeKey] = g
		}
		gates = append(gates, g)
	}
	var wait time.Duration
	for _, g := range gates {
		wait = max(wait, g.wait(t))
	}
	if wait > 0 {
		return false, wait
	}
	for _, g := range gates {
		g.take(t)
	}
	return true, 0
}

// bucket is a token bucket (ReadingBuckets).
type bucket struct{ *rate.Limiter }

func (b bucket) wait(t time.Time) time.Duration {
	tokens := b.TokensAt(t)
	if tokens >= 1 {
		return 0
	}
	secs := (1 - tokens) / float64(b.Limit())
	return time.Duration(math.Ceil(secs * float64(time.Second)))
}

func (b bucket) take(t time.Time) { b.AllowN(t, 1) }

// window holds the times of the last n requests that passed: a request
// passes when fewer than n passed in the span before it (ReadingWindows).
type window struct {
	span  time.Duration
	times []time.Time // a ring of at most n entries; next is the oldest once full
	next  int
}

func newWindow(n int, span time.Duration) *window {
	return &window{span: span, times: make([]time.Time, 0, n)}
}

func (w *window) wait(t time.Time) time.Duration {
	if len(w.times) < cap(w.times) {
		return 0
	}
	// The oldest of the last n leaves the window at oldest + span.
	return max(0, w.times[w.next].Add(w.span).Sub(t))
}

func (w *window) take(t time.Time) {
	if len(w.times) < cap(w.times) {
		w.times = append(w.times, t)
		return
	}
	w.times[w.next] = t
	w.next = (w.next + 1) % len(w.times)
}
