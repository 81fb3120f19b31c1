package apiclient

import (
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimit is the client-side pacing. By default it follows the documented
// limits (700 requests per minute per account, 40 per second per route) so
// that a large apply does not provoke 429s in the first place. Every attempt,
// retries included, waits for a token.
//
// The account pace adapts: a 429 lowers it and makes every request of this
// client wait out the server's Retry-After; successes raise it back towards
// RequestsPerMinute, never above. Several processes on one account thus
// settle on shares of it instead of each pacing itself to the whole.
type RateLimit struct {
	// RequestsPerMinute for the whole account; 0 → 700, negative → unlimited.
	RequestsPerMinute int
	// RouteRequestsPerSecond per route; 0 → 40, negative → unlimited.
	RouteRequestsPerSecond int
	// Shared makes the processes of this machine that use the same API
	// address and key take their requests from one account bucket, kept in
	// a small file under SharedDir: together they stay within
	// RequestsPerMinute. When the file cannot be used the client paces
	// itself alone; Client.SharedAccountLimit says so.
	Shared bool
	// SharedDir holds the shared buckets; "" → the user's cache directory,
	// terraform-provider-neon/ratelimit.
	SharedDir string
}

// accountBurst is how many requests may leave at once under the account limit.
const accountBurst = 10

type limiter struct {
	account  *accountLimiter // nil: unlimited
	routeRPS int             // 0: unlimited

	mu     sync.Mutex
	routes map[string]*rate.Limiter
}

func newLimiter(rl RateLimit) *limiter {
	return newLimiterWithClock(rl, realClock{})
}

func newLimiterWithClock(rl RateLimit, clk clock) *limiter {
	l := &limiter{routes: map[string]*rate.Limiter{}}
	rpm := rl.RequestsPerMinute
	if rpm == 0 {
		rpm = DefaultAccountRequestsPerMinute
	}
	if rpm > 0 {
		// A small burst lets a refresh's handful of list calls go at once;
		// the rate is lowered by the burst so that no 60-second window ever
		// holds more than rpm requests, whichever way the server counts.
		burst := min(accountBurst, rpm/10)
		if burst < 2 {
			// Tiny limits: even spacing, no burst.
			l.account = newAccountLimiter(float64(rpm)/60, 1, clk)
		} else {
			l.account = newAccountLimiter(float64(rpm-burst)/60, burst, clk)
		}
		l.account.share, l.account.sharedDir = rl.Shared, rl.SharedDir
	}
	switch {
	case rl.RouteRequestsPerSecond == 0:
		l.routeRPS = DefaultRouteRequestsPerSecond
	case rl.RouteRequestsPerSecond > 0:
		l.routeRPS = rl.RouteRequestsPerSecond
	}
	return l
}

func (l *limiter) route(key string) *rate.Limiter {
	if l.routeRPS == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.routes[key]
	if !ok {
		r = rate.NewLimiter(rate.Limit(l.routeRPS), 1)
		l.routes[key] = r
	}
	return r
}

// limitedTransport waits for the account and route limiters before each
// attempt and records whether the request was written to a connection.
type limitedTransport struct {
	next    http.RoundTripper
	limiter *limiter
}

func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	st := callStateFrom(ctx)
	route := req.Method + " " + req.URL.Path
	if st != nil {
		route = st.route
	}
	if r := t.limiter.route(route); r != nil {
		if err := r.Wait(ctx); err != nil {
			return nil, err
		}
	}
	acct := t.limiter.account
	if acct != nil {
		if acct.share {
			// The account is the API's address and the key this request
			// carries: the same as SharedAccountLimit derives from the
			// client's options, so whichever comes first opens the bucket.
			key, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
			acct.bindShared(accountID(req.URL.Scheme, req.URL.Host, key))
		}
		if err := acct.wait(ctx); err != nil {
			return nil, err
		}
	}
	if st != nil {
		trace := &httptrace.ClientTrace{
			WroteHeaders: func() { st.sentFlag.Store(true) },
		}
		req = req.WithContext(httptrace.WithClientTrace(ctx, trace))
	}
	resp, err := t.next.RoundTrip(req)
	if acct != nil && err == nil {
		retryAfter, _ := parseRetryAfter(resp.Header.Get("Retry-After"), acct.clock.Now())
		t.limiter.observe(resp.StatusCode, retryAfter)
	}
	return resp, err
}

// observe feeds the answer to one HTTP attempt (its status and Retry-After,
// 0 when absent) to the adaptive account limit; see accountLimiter.observe
// for what each status does. limitedTransport calls it for every answered
// attempt, so callers above the transport need not; a second call for the
// same answer is harmless (one cut per congestion, the pause ends at the
// later of the two).
func (l *limiter) observe(status int, retryAfter time.Duration) {
	if l.account != nil {
		l.account.observe(status, retryAfter)
	}
}

// SharedAccountLimit reports whether this client takes its requests from an
// account bucket shared with the other processes of this machine
// (RateLimit.Shared). When sharing was asked for and cannot be had, or
// stopped working, it returns false and an error saying why, while the client
// goes on pacing itself alone: a caller may show it as a warning. It opens
// the shared bucket if no request has yet.
func (c *Client) SharedAccountLimit() (bool, error) {
	if c.limiter.account == nil {
		return false, nil
	}
	c.limiter.account.bindShared(accountID(c.baseURL.Scheme, c.baseURL.Host, c.apiKey))
	return c.limiter.account.sharedStatus()
}
