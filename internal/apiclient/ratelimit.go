package apiclient

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// The client-side rate limit: the documented limits as the client reads them, and the limiter every attempt waits on.

// RateLimit is the client-side pacing. By default it follows the documented
// limits (700 requests per minute per account, bursts of up to 40 per second
// per route) so that an apply does not provoke 429s in the first place, and
// otherwise lets requests go at once. Every attempt, retries included, waits
// for its turn.
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

// How the client reads the documented limits. Neon publishes the numbers,
// not the algorithm, so the client sends the largest schedule that none of
// these readings forbids, and waits for nothing else:
//
//   - sliding windows: never more than RequestsPerMinute requests in any 60
//     seconds on the account, never more than RouteRequestsPerSecond in any
//     second on one route (fixed windows, counted from whole minutes or
//     seconds, allow more: they are implied);
//   - token buckets (the emulator's model): an account bucket filled at
//     RequestsPerMinute ÷ 60 per second holding documentedBurst, and a route
//     bucket filled at RouteRequestsPerSecond holding as many. The route
//     bucket is implied by the route window (a schedule with at most B
//     requests in any window W conforms to a bucket of B ÷ W per second
//     holding B); the account bucket and the account window are not implied
//     by each other, so both are kept.
//
// A request reaches the server a little after the client let it go. The
// account bucket is therefore modelled burstMargin tokens smaller than the
// server's (at 700/min, 171 ms of delay absorbed) and the windows
// windowSlack longer than documented.
const (
	documentedBurst = 40
	burstMargin     = 2
	windowSlack     = 100 * time.Millisecond
)

// sharedBurst is the account burst of a bucket shared with other processes
// (RateLimit.Shared), whose rate is lowered by it: its state file holds no
// window of past requests, so the bucket alone keeps every 60 seconds of the
// processes together within RequestsPerMinute (burst + (rpm − burst) = rpm).
const sharedBurst = 10

type limiter struct {
	account  *accountLimiter // nil: unlimited
	routeRPS int             // 0: unlimited
	clock    clock

	// mu makes a request's turn on its route and on the account one
	// decision, and guards routes.
	mu     chanMutex
	routes map[string]*slidingWindow

	// start holds back the first requests of the process (nil: none).
	start *startWindow
}

// chanMutex is a mutex held across a wait for a shared bucket's file lock.
// Unlike a sync.Mutex, its waiters count as durably blocked in a
// testing/synctest bubble, so simulated time goes on while they wait.
type chanMutex chan struct{}

func newChanMutex() chanMutex { return make(chanMutex, 1) }

func (m chanMutex) Lock() { m <- struct{}{} }

func (m chanMutex) Unlock() { <-m }

// durableOnce is sync.Once built on a chanMutex: callers that wait for the
// first one to finish count as durably blocked in a testing/synctest bubble
// (with sync.Once they do not, and simulated time stops while the first
// caller waits for a turn on the bucket).
type durableOnce struct {
	mu   chanMutex
	done bool
}

// Do runs f once; later callers wait until it has returned.
func (o *durableOnce) Do(f func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.done {
		o.done = true
		f()
	}
}

func newLimiter(rl RateLimit) *limiter {
	return newLimiterWithClock(rl, realClock{})
}

func newLimiterWithClock(rl RateLimit, clk clock) *limiter {
	l := &limiter{routes: map[string]*slidingWindow{}, clock: clk, mu: newChanMutex()}
	rpm := rl.RequestsPerMinute
	if rpm == 0 {
		rpm = DefaultAccountRequestsPerMinute
	}
	if rpm > 0 {
		switch burst := min(sharedBurst, rpm/10); {
		case !rl.Shared:
			l.account = newAccountLimiter(float64(rpm)/60, max(1, min(documentedBurst-burstMargin, rpm)), clk)
		case burst < 2:
			// Tiny limits: even spacing, no burst.
			l.account = newAccountLimiter(float64(rpm)/60, 1, clk)
		default:
			l.account = newAccountLimiter(float64(rpm-burst)/60, burst, clk)
		}
		l.account.win = newSlidingWindow(rpm, time.Minute+windowSlack)
		l.account.share, l.account.sharedDir = rl.Shared, rl.SharedDir
		l.start = newStartWindow()
	}
	switch {
	case rl.RouteRequestsPerSecond == 0:
		l.routeRPS = DefaultRouteRequestsPerSecond
	case rl.RouteRequestsPerSecond > 0:
		l.routeRPS = rl.RouteRequestsPerSecond
	}
	return l
}

// route is the window of one route; nil when routes are unlimited. Call with
// l.mu held.
func (l *limiter) route(key string) *slidingWindow {
	if l.routeRPS == 0 {
		return nil
	}
	w, ok := l.routes[key]
	if !ok {
		w = newSlidingWindow(l.routeRPS, time.Second+windowSlack)
		l.routes[key] = w
	}
	return w
}

// wait blocks until this process may send one request on route, the context
// is done, or it is clear that its turn would come after the context's
// deadline (then it returns at once).
//
// A long wait is slept in steps of at most recheckEvery: a turn handed out
// for later is voided when a 429 cuts the rate or when the rate has grown
// enough that the turns waiting would come much sooner (see
// accountLimiter.observe), and its holder takes a new one.
func (l *limiter) wait(ctx context.Context, route string) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		now, at, epoch, err := l.reserve(ctx, route)
		if err != nil || !at.After(now) {
			return err
		}
		valid, err := l.sleepUntil(ctx, now, at, epoch)
		if err != nil || valid {
			return err
		}
		// The turn was voided while this caller slept: take a turn on the
		// new terms.
	}
}

// recheckEvery bounds how long a caller sleeps before it checks that its
// turn still holds.
const recheckEvery = 500 * time.Millisecond

// sleepUntil sleeps until at, the turn taken at now in epoch, and reports
// whether the turn still holds then. It stops early, reporting false, when
// the turn was voided.
func (l *limiter) sleepUntil(ctx context.Context, now, at time.Time, epoch uint64) (bool, error) {
	for {
		d := at.Sub(now)
		if l.account != nil {
			d = min(d, recheckEvery)
		}
		if err := l.clock.Sleep(ctx, d); err != nil {
			if l.account != nil {
				l.account.giveBack(ctx, epoch)
			}
			return false, err
		}
		if l.account == nil {
			return true, nil
		}
		valid, err := l.account.stillValid(ctx, epoch, at)
		if err != nil || !valid {
			return valid, err
		}
		if now = l.clock.Now(); !at.After(now) {
			return true, nil
		}
	}
}

// reserve takes the earliest time at which one request on route breaks no
// limit, and records it. now is the time it was taken at; epoch is the
// account bucket's (see stillValid).
func (l *limiter) reserve(ctx context.Context, route string) (now, at time.Time, epoch uint64, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now = l.clock.Now()
	w := l.route(route)
	at = w.earliest(now)
	if l.account != nil {
		if now, at, epoch, err = l.account.reserve(ctx, at); err != nil {
			return now, at, epoch, err
		}
	} else if deadline, ok := ctx.Deadline(); ok && at.After(deadline) {
		return now, at, 0, errWouldPassDeadline
	}
	w.add(at, now)
	return now, at, epoch, nil
}

// observe feeds the answer to one HTTP attempt (its status and Retry-After,
// 0 when absent) to the adaptive account limit; see accountLimiter.observe
// for what each status does. limitedTransport calls it once for every
// answered attempt; callers above the transport must not (each success
// counts towards what the account served, see servedCount). When it voids
// the turns handed out for later, their places in the windows are given up.
func (l *limiter) observe(status int, retryAfter time.Duration) {
	if l.account == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.account.observe(status, retryAfter) {
		now := l.clock.Now()
		for _, w := range l.routes {
			w.dropAfter(now)
		}
	}
}

// slidingWindow remembers the times of the requests it let go (or will, for
// turns handed out for later), so that no window of span holds more than n.
type slidingWindow struct {
	n     int
	span  time.Duration
	times []time.Time // ascending; only those less than a span before now
}

func newSlidingWindow(n int, span time.Duration) *slidingWindow {
	return &slidingWindow{n: n, span: span}
}

// earliest is the first time from t on at which one more request keeps
// every window within n: not before the last one recorded (the times stay in
// order), and a whole span after the nth latest.
func (w *slidingWindow) earliest(t time.Time) time.Time {
	if w == nil || len(w.times) == 0 {
		return t
	}
	k := len(w.times)
	t = maxTime(t, w.times[k-1])
	if k >= w.n {
		t = maxTime(t, w.times[k-w.n].Add(w.span))
	}
	return t
}

// add records a request at t (from earliest), taken at now, and forgets
// those a span or more before now: no request from now on can share a
// window with them.
func (w *slidingWindow) add(t, now time.Time) {
	if w == nil {
		return
	}
	drop := 0
	for drop < len(w.times) && !w.times[drop].Add(w.span).After(now) {
		drop++
	}
	w.times = append(w.times[drop:], t)
}

// dropAfter forgets the requests recorded for after now: turns that were
// voided and will be taken anew.
func (w *slidingWindow) dropAfter(now time.Time) {
	if w == nil {
		return
	}
	k := len(w.times)
	for k > 0 && w.times[k-1].After(now) {
		k--
	}
	w.times = w.times[:k]
}

// limitedTransport waits for the account and route limits before each
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
	acct := t.limiter.account
	if acct != nil && acct.share {
		// The account is the API's address and the key this request
		// carries: the same as SharedAccountLimit derives from the
		// client's options, so whichever comes first opens the bucket.
		key, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		acct.bindShared(accountID(req.URL.Scheme, req.URL.Host, key))
	}
	counted, err := t.limiter.start.acquire(ctx)
	if err != nil {
		return nil, err
	}
	status := 0
	if counted {
		defer func() { t.limiter.start.release(status) }()
	}
	if err := t.limiter.wait(ctx, route); err != nil {
		return nil, err
	}
	if st != nil {
		req = req.WithContext(withSentHook(ctx, st))
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	status = resp.StatusCode
	// The answer's Retry-After is read here, once, for both of its users:
	// the limiter, and the retry layer's backoff (through the call state).
	retryAfter, hasRetryAfter := parseRetryAfter(resp.Header.Get("Retry-After"), t.limiter.clock.Now())
	if st != nil {
		st.retryAfter, st.hasRetryAfter = retryAfter, hasRetryAfter
	}
	if acct != nil {
		t.limiter.observe(resp.StatusCode, retryAfter)
	}
	return resp, nil
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
