package emulator

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// The emulator's rate limits: a per-account budget per minute and a per-route
// burst per second.

// accountBurst is the most tokens the account bucket holds.
const accountBurst = 40

// rateLimiter enforces the documented limits with token buckets: one for the
// account (all keys of the organization share it; RPM/60 tokens per second,
// at most 40 stored) and one per route key (RPS per second, burst RPS).
// A request passes only if both buckets hold a token; a denied request
// consumes nothing.
type rateLimiter struct {
	mu       sync.Mutex
	now      func() time.Time
	account  *rate.Limiter // nil: no account limit
	routeRPS int           // ≤ 0: no per-route limit
	routes   map[string]*rate.Limiter
}

func newRateLimiter(accountRPM, routeRPS int, clock func() time.Time) *rateLimiter {
	l := &rateLimiter{now: clock, routeRPS: routeRPS, routes: map[string]*rate.Limiter{}}
	if accountRPM > 0 {
		l.account = rate.NewLimiter(rate.Limit(float64(accountRPM)/60), min(accountBurst, accountRPM))
	}
	return l
}

// allow takes one token from the account and the route bucket, or none. When
// denied it returns how long until a retry can pass.
func (l *rateLimiter) allow(routeKey string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.now()
	var buckets []*rate.Limiter
	if l.account != nil {
		buckets = append(buckets, l.account)
	}
	if l.routeRPS > 0 {
		rl := l.routes[routeKey]
		if rl == nil {
			rl = rate.NewLimiter(rate.Limit(l.routeRPS), l.routeRPS)
			l.routes[routeKey] = rl
		}
		buckets = append(buckets, rl)
	}
	var wait time.Duration
	for _, b := range buckets {
		if tokens := b.TokensAt(t); tokens < 1 {
			secs := (1 - tokens) / float64(b.Limit())
			wait = max(wait, time.Duration(math.Ceil(secs*float64(time.Second))))
		}
	}
	if wait > 0 {
		return false, wait
	}
	for _, b := range buckets {
		b.AllowN(t, 1)
	}
	return true, 0
}
