package apiclient

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// The client-side rate limit: the documented limits as the client reads them,
// and the line of requests that waits on them.

// RateLimit is the client-side pacing. By default it follows the documented
// limits (700 requests per minute per account, bursts of up to 40 per second
// per route) so that an apply does not provoke 429s in the first place, and
// otherwise lets requests go at once. Every attempt, retries included, waits
// for its turn.
//
// The account pace adapts: a 429 lowers it and makes every request of this
// client wait out the server's Retry-After (at most a minute); answers served
// raise it back towards RequestsPerMinute, never above. Several processes on one account thus
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

// How the client reads the documented limits. Neon publishes the numbers,
// not the algorithm, so the client sends the largest schedule that none of
// these readings forbids, and waits for nothing else:
//
//   - sliding windows: at most RequestsPerMinute in any 60 seconds on the
//     account, at most RouteRequestsPerSecond in any second on one route
//     (fixed windows allow more: they are implied);
//   - token buckets (the emulator's model): the account's filled at
//     RequestsPerMinute ÷ 60 per second holding documentedBurst, a route's
//     at RouteRequestsPerSecond holding as many. The route window implies
//     the route bucket; the account's bucket and window do not imply each
//     other, so both are kept.
//
// A request reaches the server a little after it leaves, so the account
// bucket holds burstMargin tokens less than the server's (at 700/min, 171 ms
// of delay absorbed) and the windows are windowSlack longer than documented.
const (
	documentedBurst = 40
	burstMargin     = 2
	windowSlack     = 100 * time.Millisecond
)

// limiter is the line every attempt of one client waits in. The caller at
// its head waits until its request breaks no limit, records it and leaves;
// the others wait for the head. Only the head's wait is computed, from what
// the limiter knows then, so a 429 applies at once to every request waiting.
type limiter struct {
	head chan struct{} // held by the caller at the head of the line

	mu       sync.Mutex // guards account and routes
	account  *account   // nil: the account is unlimited
	routes   map[string]*window
	routeRPS int // 0: routes are unlimited
}

func newLimiter(rl RateLimit, accountID string) *limiter {
	l := &limiter{head: make(chan struct{}, 1), routes: map[string]*window{}}
	l.routeRPS = max(0, cmp.Or(rl.RouteRequestsPerSecond, DefaultRouteRequestsPerSecond))
	if rpm := cmp.Or(rl.RequestsPerMinute, DefaultAccountRequestsPerMinute); rpm > 0 {
		l.account = newAccount(rpm)
		if rl.Shared {
			// When sharing cannot be had, the process paces itself alone.
			l.account.shared, l.account.sharedErr = openSharedBucket(rl.SharedDir, accountID, rpm)
		}
	}
	return l
}

// errWouldPassDeadline is returned at once when a request's turn would come
// after the context's deadline (as rate.Limiter.Wait does).
var errWouldPassDeadline = fmt.Errorf("waiting for the client-side rate limit would pass the context deadline: %w", context.DeadlineExceeded)

// wait blocks until one request on route may leave and records that it
// does. It returns the context's error when the context ends first, and
// errWouldPassDeadline at once when the turn would come after its deadline.
func (l *limiter) wait(ctx context.Context, route string) error {
	if l.account == nil && l.routeRPS == 0 {
		return nil
	}
	select {
	case l.head <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-l.head }()
	var sharedAt time.Time // the turn taken on the machine's shared bucket (zero: none)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.mu.Lock()
		now := time.Now()
		at := l.route(route).earliest(now)
		var shared *sharedBucket
		if l.account != nil {
			at, shared = l.account.earliest(at), l.account.shared
		}
		ready := !at.After(now)
		if ready && (shared == nil || !sharedAt.IsZero() && !sharedAt.After(now)) {
			l.route(route).add(now)
			if l.account != nil {
				l.account.take(now)
			}
			l.mu.Unlock()
			return nil
		}
		l.mu.Unlock()
		switch {
		case !ready: // a shared turn taken would count the request before it leaves
			sharedAt = time.Time{}
		case sharedAt.IsZero(): // the last limit is the bucket of the machine's processes
			sharedAt = l.sharedTurn(ctx, shared, now)
			at = sharedAt
		default:
			at = sharedAt
		}
		if deadline, ok := ctx.Deadline(); ok && at.After(deadline) {
			return errWouldPassDeadline
		}
		if err := sleep(ctx, time.Until(at)); err != nil {
			return err
		}
	}
}

// AccountBusy reports whether a request sent now would wait for the account
// limit as this client keeps it: a pause after a 429, a bucket without a
// whole token, a full minute window, or a request already waiting at the
// head of the line. With the bucket shared by the machine's processes
// (RateLimit.Shared) it is always true: what the others spend is known only
// when a turn is taken. An unlimited account is never busy. A caller that
// could send fewer, larger requests by waiting (a batch gathering members)
// waits while this is true: the request would have waited anyway.
func (c *Client) AccountBusy() bool {
	l := c.limiter
	if l.account == nil {
		return false
	}
	if len(l.head) > 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	return l.account.shared != nil || l.account.earliest(now).After(now)
}

// route is the window of one route; nil when routes are unlimited. Call with
// l.mu held.
func (l *limiter) route(key string) *window {
	if l.routeRPS == 0 {
		return nil
	}
	w, ok := l.routes[key]
	if !ok {
		w = &window{n: l.routeRPS, span: time.Second + windowSlack}
		l.routes[key] = w
	}
	return w
}

// answered takes the answer to one attempt that left through wait: its
// status and its Retry-After (0 when absent). A 429 cuts the
// account's rate (once per congestion, see throttleHold) and, with a
// Retry-After, nothing leaves until it has passed (at most maxPause). An
// answer served lets a cut rate climb; a 5xx says nothing.
func (l *limiter) answered(status int, retryAfter time.Duration) {
	if l.account == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if status == http.StatusTooManyRequests {
		l.account.throttle(time.Now(), retryAfter)
	} else if served(status) {
		l.account.serve(time.Now())
	}
}

// served reports whether an answer of this status was served by the account
// limit: 2xx, 3xx and 4xx other than 429. A 5xx says nothing.
func served(status int) bool {
	return status >= 200 && status < 500 && status != http.StatusTooManyRequests
}

// window remembers the times of the requests it let go, so that no window
// of span holds more than n.
type window struct {
	n     int
	span  time.Duration
	times []time.Time // ascending; only those less than a span before the latest
}

// earliest is the first time from t on at which one more request keeps
// every window within n: a whole span after the nth latest.
func (w *window) earliest(t time.Time) time.Time {
	if w == nil || len(w.times) < w.n {
		return t
	}
	return later(t, w.times[len(w.times)-w.n].Add(w.span))
}

// add records a request at t, the latest so far, and forgets those that can
// share no window with a request from t on.
func (w *window) add(t time.Time) {
	if w == nil {
		return
	}
	drop := 0
	for drop < len(w.times) && !w.times[drop].Add(w.span).After(t) {
		drop++
	}
	w.times = append(w.times[drop:], t)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// limitedTransport waits for the limits before each attempt and hands the
// answer back to the limiter.
type limitedTransport struct {
	next    http.RoundTripper
	limiter *limiter
}

// RoundTrip needs the call state that Client.do puts in the request's
// context: the route the request counts against, and where the answer's
// Retry-After goes.
func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	st := callStateFrom(ctx)
	if err := t.limiter.wait(ctx, st.route); err != nil {
		return nil, err
	}
	resp, err := t.next.RoundTrip(req.WithContext(withSentHook(ctx, st)))
	if err != nil {
		return resp, err // no answer says nothing of the account's limit
	}
	// The answer's Retry-After is read here, once, for both of its users:
	// the limiter, and the retry layer's backoff (through the call state).
	st.retryAfter, st.hasRetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	t.limiter.answered(resp.StatusCode, st.retryAfter)
	return resp, nil
}
