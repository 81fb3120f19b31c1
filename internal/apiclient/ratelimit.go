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
// per route) as fast as the account shows that it allows them, and otherwise
// lets requests go at once. Every attempt, retries included, waits for its
// turn.
//
// Neon states the numbers, not how it counts them (see the readings below),
// so the client learns it from the account's answers (ratelimit_reading.go):
// it paces to the token bucket, the strictest reading, and sends beside it
// one request at a time; an account that serves more than a bucket allows is
// paced to the windows from then on, one that refuses what the bucket
// explains to the bucket, and the machine remembers that refusal for the
// next processes.
//
// The account pace adapts: a 429 that the bucket does not explain (other
// clients of the account) lowers it and makes every request of this client
// wait out the server's Retry-After (at most a minute); answers served raise
// it back towards RequestsPerMinute, never above. Several processes on one
// account thus settle on shares of it instead of each pacing itself to the
// whole.
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
	// SharedDir holds the files the processes of this machine share: the
	// shared buckets and what each account showed of its reading (always,
	// whether or not Shared is set); "" → the user's cache directory,
	// terraform-provider-neon/ratelimit.
	SharedDir string
}

// How the documented limits may be counted. Neon publishes the numbers, not
// the algorithm; the client keeps within the reading the account shows, and
// within the stricter until it has shown one:
//
//   - sliding windows: at most RequestsPerMinute in any 60 seconds on the
//     account, at most RouteRequestsPerSecond in any second on one route
//     (fixed windows allow more: they are implied);
//   - token buckets (the strictest reading): the account's filled at
//     RequestsPerMinute ÷ 60 per second holding documentedBurst, a route's
//     at RouteRequestsPerSecond holding as many.
//
// The route window implies the route bucket, and both readings share it: it
// is always kept. The account's minute window is always kept too; its
// bucket only until the account has shown that it counts by windows.
//
// A request reaches the server a little after it leaves, so the account
// bucket holds burstMargin tokens less than the server's (at 700/min, 171 ms
// of delay absorbed), a route's window is routeSlack longer than documented
// and the account's minute minuteSlack longer (a second: the requests that
// a minute's edge lets go all leave at once, and a fraction of the minute
// is too little to lose).
const (
	documentedBurst = 40
	burstMargin     = 2
	routeSlack      = 100 * time.Millisecond
	minuteSlack     = time.Second
)

// limiter is the line every attempt of one client waits in. The caller at
// its head waits until its request breaks no limit, records it and leaves;
// the others wait for the head. Only the head's wait is computed, from what
// the limiter knows then, so a 429 applies at once to every request waiting;
// an answer that lets requests go sooner (a probe's) wakes the head.
type limiter struct {
	head chan struct{} // held by the caller at the head of the line
	wake chan struct{} // a turn may have come sooner: the head computes it again

	mu       sync.Mutex // guards account and routes
	account  *account   // nil: the account is unlimited
	routes   map[string]*window
	routeRPS int // 0: routes are unlimited
}

func newLimiter(rl RateLimit, accountID string) *limiter {
	l := &limiter{head: make(chan struct{}, 1), wake: make(chan struct{}, 1), routes: map[string]*window{}}
	l.routeRPS = max(0, cmp.Or(rl.RouteRequestsPerSecond, DefaultRouteRequestsPerSecond))
	if rpm := cmp.Or(rl.RequestsPerMinute, DefaultAccountRequestsPerMinute); rpm > 0 {
		l.account = newAccount(rpm)
		l.account.memory = openReadingMemory(rl.SharedDir, accountID)
		if l.account.memory.bucketsShown(time.Now()) {
			l.account.pace = paceBucket
		}
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

// turn is one request's passage through the limiter: when it left, whether
// it left beside the account's bucket to learn the account's reading (a
// probe), and whether this process's own requests alone explain a 429 to
// it: a bucket of the documented size would be out of tokens
// (bucketExplains), or the process's own minute window is within
// burstMargin of full (windowsExplain: a server that counts the same
// window saw them a little closer together, the requests having taken
// different times on the way). A route's window is not asked: other clients
// of the account share the route, and a refusal at its edge is more likely
// theirs than a delay longer than routeSlack. Its answer goes back to
// answered.
type turn struct {
	left           time.Time
	probe          bool
	bucketExplains bool
	windowsExplain bool
}

// wait blocks until one request on route may leave and records that it
// does. It returns the context's error when the context ends first, and
// errWouldPassDeadline at once when the turn would come after its deadline.
func (l *limiter) wait(ctx context.Context, route string) (turn, error) {
	if l.account == nil && l.routeRPS == 0 {
		return turn{left: time.Now()}, nil
	}
	select {
	case l.head <- struct{}{}:
	case <-ctx.Done():
		return turn{}, ctx.Err()
	}
	defer func() { <-l.head }()
	var sharedAt time.Time // the turn taken on the machine's shared bucket (zero: none)
	for {
		if err := ctx.Err(); err != nil {
			return turn{}, err
		}
		l.mu.Lock()
		now := time.Now()
		at, probe := l.route(route).earliest(now), false
		var shared *sharedBucket
		if l.account != nil {
			at, probe = l.account.earliest(at, true)
			shared = l.account.shared
		}
		ready := !at.After(now)
		if ready && (shared == nil || !sharedAt.IsZero() && !sharedAt.After(now)) {
			l.route(route).add(now)
			t := turn{left: now, probe: probe}
			if l.account != nil {
				t.bucketExplains = l.account.take(now, probe)
				t.windowsExplain = l.account.window.nearlyFull(now)
			}
			l.mu.Unlock()
			return t, nil
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
			return turn{}, errWouldPassDeadline
		}
		if err := l.sleep(ctx, time.Until(at)); err != nil {
			return turn{}, err
		}
	}
}

// sleep waits for d, until ctx is done, or until the limiter is woken.
func (l *limiter) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-l.wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wakeHead tells the caller at the head of the line that its turn may have
// come sooner. Call with l.mu held or not; it never blocks.
func (l *limiter) wakeHead() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// AccountBusy reports whether a request sent now would wait for the account
// limit as this client keeps it: a pause after a 429, a bucket without a
// whole token (while the account has not shown that it counts by windows; a
// request that would leave beside the bucket as a probe counts as waiting), a
// full minute window, or a request already waiting at the head of the line.
// With the bucket shared by the machine's processes (RateLimit.Shared) it is
// always true: what the others spend is known only when a turn is taken. An
// unlimited account is never busy. A caller that could send fewer, larger
// requests by waiting (a batch gathering members) waits while this is true:
// the request would have waited anyway.
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
	at, _ := l.account.earliest(now, false)
	return l.account.shared != nil || at.After(now)
}

// route is the window of one route; nil when routes are unlimited. Call with
// l.mu held.
func (l *limiter) route(key string) *window {
	if l.routeRPS == 0 {
		return nil
	}
	w, ok := l.routes[key]
	if !ok {
		w = &window{n: l.routeRPS, span: time.Second, slack: routeSlack}
		l.routes[key] = w
	}
	return w
}

// answered takes the answer to one attempt that left through wait: its
// status (0: no answer came) and its Retry-After (0 when absent). While the
// account's reading is learnt, a 429 that this process's own requests
// explain by the bucket, within a bucket's Retry-After, shows that the
// account counts by the bucket, and answers served may show that it counts
// by windows. Until the bucket paces, a 429 that the process's own windows
// explain only pauses it for its Retry-After. Another 429 cuts the
// account's rate (once per congestion, see throttleHold), and with a
// Retry-After nothing leaves until it has passed (at most maxPause). An
// answer served lets a cut rate climb; a 5xx says nothing.
func (l *limiter) answered(t turn, status int, retryAfter time.Duration) {
	if l.account == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	a, now := l.account, time.Now()
	if t.probe {
		a.probing = false
		l.wakeHead()
	}
	switch {
	case status == http.StatusTooManyRequests && t.bucketExplains && a.pace == paceLearning && retryAfter <= bucketRetryAfter:
		a.bucketShown(now)
	case status == http.StatusTooManyRequests && t.windowsExplain && a.pace != paceBucket:
		a.pause(now, retryAfter)
	case status == http.StatusTooManyRequests:
		a.throttle(now, retryAfter)
	case served(status):
		if a.serve(now, t) {
			l.wakeHead()
		}
	}
}

// served reports whether an answer of this status was served by the account
// limit: 2xx, 3xx and 4xx other than 429. A 5xx says nothing.
func served(status int) bool {
	return status >= 200 && status < 500 && status != http.StatusTooManyRequests
}

// window remembers the times of the requests it let go, so that no window
// of span and slack (the documented span, and the delay on the way it
// absorbs) holds more than n.
type window struct {
	n           int
	span, slack time.Duration
	times       []time.Time // ascending; only those less than span and twice slack before the latest
}

// earliest is the first time from t on at which one more request keeps
// every window within n: a whole span after the nth latest.
func (w *window) earliest(t time.Time) time.Time {
	if w == nil || len(w.times) < w.n {
		return t
	}
	return later(t, w.times[len(w.times)-w.n].Add(w.span+w.slack))
}

// nearlyFull reports whether the window, holding a request at t, would hold
// within burstMargin of its n were its slack twice as long: this client's
// requests alone fill what a server that saw them closer together than they
// left counts.
func (w *window) nearlyFull(t time.Time) bool {
	if w == nil {
		return false
	}
	held := 0
	for i := len(w.times) - 1; i >= 0 && w.times[i].Add(w.span+2*w.slack).After(t); i-- {
		held++
	}
	return held >= w.n-burstMargin
}

// add records a request at t, the latest so far, and forgets those that can
// share no window with a request from t on, even one of twice the slack
// (nearlyFull).
func (w *window) add(t time.Time) {
	if w == nil {
		return
	}
	drop := 0
	for drop < len(w.times) && !w.times[drop].Add(w.span+2*w.slack).After(t) {
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
	tn, err := t.limiter.wait(ctx, st.route)
	if err != nil {
		return nil, err
	}
	resp, err := t.next.RoundTrip(req.WithContext(withSentHook(ctx, st)))
	if err != nil {
		t.limiter.answered(tn, 0, 0) // no answer says nothing of the account's limit
		return resp, err
	}
	// The answer's Retry-After is read here, once, for both of its users:
	// the limiter, and the retry layer's backoff (through the call state).
	st.retryAfter, st.hasRetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	t.limiter.answered(tn, resp.StatusCode, st.retryAfter)
	return resp, nil
}
