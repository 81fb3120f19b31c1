package emulator

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestRouteRateLimitYields429OnlyOnThatRoute(t *testing.T) {
	v := newEnv(t, Options{RouteRequestsPerSecond: 5})
	var ok, limited int
	for i := 0; i < 20; i++ {
		r := v.do("GET", "/projects", nil)
		switch r.Status {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			limited++
			wantError(t, r, http.StatusTooManyRequests, "rate limit exceeded")
			if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 {
				t.Errorf("Retry-After = %q, want whole seconds ≥ 1", r.Header.Get("Retry-After"))
			}
		default:
			t.Fatalf("status %d", r.Status)
		}
	}
	// 5 pass at once; a slow machine may refill one or two more.
	if ok < 5 || ok > 8 || limited == 0 {
		t.Errorf("ok = %d, limited = %d", ok, limited)
	}
	wantStatus(t, v.do("GET", "/projects/"+v.project+"/branches", nil), http.StatusOK)
	if got := v.e.Stats().RateLimited; got != limited {
		t.Errorf("Stats.RateLimited = %d, want %d", got, limited)
	}
}

func TestControlSurfaceIsNeverRateLimited(t *testing.T) {
	v := newEnv(t, Options{RouteRequestsPerSecond: 1, AccountRequestsPerMinute: 1})
	for i := 0; i < 10; i++ {
		wantStatus(t, v.control("GET", "/healthz", nil), http.StatusOK)
	}
}

// fakeClock is a settable clock for the limiter.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestRouteBucketRefillsAtItsRate(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := newRateLimiter(-1, 5, clock.now)
	for i := 0; i < 5; i++ {
		if ok, _ := l.allow("GET /a"); !ok {
			t.Fatalf("request %d denied within the burst", i)
		}
	}
	ok, retry := l.allow("GET /a")
	if ok || retry <= 0 || retry > 200*time.Millisecond {
		t.Fatalf("6th request: ok=%v retry=%v, want denied with ≤200ms", ok, retry)
	}
	if ok, _ := l.allow("GET /b"); !ok {
		t.Error("another route was limited")
	}
	clock.advance(200 * time.Millisecond)
	if ok, _ := l.allow("GET /a"); !ok {
		t.Error("not refilled after 1/rate")
	}
}

func TestAccountBucketIsSharedAndHoldsAtMost40(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := newRateLimiter(700, -1, clock.now)
	for i := 0; i < 40; i++ {
		if ok, _ := l.allow("GET /r" + strconv.Itoa(i)); !ok {
			t.Fatalf("request %d denied", i)
		}
	}
	ok, retry := l.allow("GET /other")
	if ok {
		t.Fatal("41st request passed")
	}
	if retryAfterSeconds(retry) != 1 {
		t.Errorf("retry = %v, want about 1/11.7 s, sent as 1", retry)
	}
	clock.advance(time.Minute/700 + time.Millisecond)
	if ok, _ := l.allow("GET /other"); !ok {
		t.Error("not refilled at 700/min")
	}
}

func TestDeniedRequestsConsumeNoToken(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := newRateLimiter(2, 1, clock.now) // account: 2 tokens; each route: 1
	steps := []struct {
		route string
		want  bool
	}{
		{"GET /a", true},  // account 1 left
		{"GET /a", false}, // route empty: must not take the account token
		{"GET /a", false},
		{"GET /b", true}, // account 0 left
		{"GET /c", false},
	}
	for i, s := range steps {
		if ok, _ := l.allow(s.route); ok != s.want {
			t.Errorf("step %d (%s): allowed = %v, want %v", i, s.route, ok, s.want)
		}
	}
}

func TestAccountLimitAppliesAcrossKeysAndRoutes(t *testing.T) {
	v := newEnv(t, Options{AccountRequestsPerMinute: 3})
	org, _ := v.e.CreateKey(KeyOrganization, "")
	wantStatus(t, v.call(v.key, "GET", "/projects", nil), http.StatusOK)
	wantStatus(t, v.call(org, "GET", "/projects/"+v.project, nil), http.StatusOK)
	wantStatus(t, v.call(org, "GET", "/projects/"+v.project+"/branches", nil), http.StatusOK)
	r := v.call(v.key, "GET", "/projects/"+v.project+"/auth/integrations", nil)
	wantError(t, r, http.StatusTooManyRequests, "rate limit exceeded")
	if s, _ := strconv.Atoi(r.Header.Get("Retry-After")); s < 1 {
		t.Errorf("Retry-After = %q", r.Header.Get("Retry-After"))
	}
}

func TestAuthenticationComesBeforeTheRateLimit(t *testing.T) {
	v := newEnv(t, Options{AccountRequestsPerMinute: 1})
	wantStatus(t, v.do("GET", "/projects", nil), http.StatusOK)
	wantStatus(t, v.call("bad", "GET", "/projects", nil), http.StatusUnauthorized)
	wantStatus(t, v.do("GET", "/projects", nil), http.StatusTooManyRequests)
}
