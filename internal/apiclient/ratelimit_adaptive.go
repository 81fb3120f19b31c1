package apiclient

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// The account limit is a token bucket whose fill rate adapts to the server's
// answers, after the AWS SDKs' "adaptive" retry mode: a 429 lowers the rate
// multiplicatively, successes let it grow back along a CUBIC curve, never
// above the configured requests per minute.
//
// Why CUBIC rather than AIMD: both converge to fair shares when several
// processes throttle each other (each cut shrinks the differences between
// them by β, growth is the same for all, since it is a function of time and
// not of each process's request count). CUBIC regains most of the rate held
// before the cut within seconds, stays near it, and only then probes past it,
// so a lone apply that met a stray 429 is back at full speed quickly and a set
// of processes that found their shares spends long stretches just under the
// account limit, where AIMD's N processes climb together N times as fast
// into the next 429s. The AWS SDKs use CUBIC for the same reasons. A cut that
// comes before the rate regained its previous peak aims the curve lower
// (CUBIC's fast convergence), which settles a crowd of processes sooner.
//
// The first cut from the configured rate starts from the rate the account
// actually served the process, when that is lower (ratelimit_served.go): a
// process crowded out by others finds its share in one cut instead of six.
// Turns handed out at a low rate are taken anew as the rate climbs (retime),
// and a new process's first requests go as the answers come (startWindow).
//
// In the simulation of ratelimit_converge_test.go (the emulator's account
// bucket, applies of 600 requests with parallelism 10), the account stays
// near 700/min (~700/min for 2, 4 and 8 processes), with ~2% of answers 429
// for 2 processes, ~5% for 4 and ~10% for 8 (pacing each process to the whole
// limit without adapting: 72% and 85% for 4 and 8); for short applies
// started within 3 s of each other ~5% (4 × 103 requests) and ~9% (8 × 53),
// most of them in the first seconds (8.7% and 15.6% without those three).
// Sharing one bucket on a machine (ratelimit_shared.go) avoids them
// altogether.
//
// Its growth is driven by success: the curve advances only to the time of the
// latest success (Confirmed), so a rate never grows back while every request
// fails or none is answered.
const (
	// throttleBeta is the share of the rate kept at a cut (CUBIC's β, as in
	// the AWS SDKs).
	throttleBeta = 0.7
	// fullRecovery is how long the curve takes to climb back to the
	// configured rate after a single cut from it; the CUBIC scale follows
	// from it and the configured rate (see newBucketParams), so limits of any
	// size behave alike in time.
	fullRecovery = 20 * time.Second
	// floorDivisor: the rate never drops below the configured rate divided by
	// it (700/min → ~11/min), so a few dozen processes can still find shares
	// and a process is never starved for long.
	floorDivisor = 64
	// throttleHold: 429s within this time after a cut are answers to requests
	// sent at the rate before it (the same congestion), and do not cut again.
	throttleHold = time.Second
	// maxPause bounds how long one Retry-After stops every caller of the
	// limiter. The request that got it still waits its whole Retry-After in
	// the retry layer; a longer value must not freeze a whole process.
	maxPause = time.Minute
	// confirmStep: successes closer together than this do not move the curve
	// (each move is a write in a shared bucket).
	confirmStep = 100 * time.Millisecond
	// retimeGrowth: once the rate has grown by this factor since the turns
	// waiting were timed, they are voided and taken anew at the new rate. A
	// process cut far below its share would otherwise send at its lowest
	// rate for as long as its queue of turns lasts, whatever the curve does.
	// Measured in make bench (8×50 and 4×100, quiet machine): at 1.25 the
	// runs that finished last lagged behind their curves, 79–94 % of
	// 700/min; at 1.1, 87–100 %.
	retimeGrowth = 1.1
	// servedCutDepth: a cut from the rate the account served (servedCount)
	// goes at most this far below the rate the process allowed itself. The
	// served rate is a lower bound: a process that did not need the whole
	// rate, or whose first requests all met 429s, was served less than its
	// share, and cut to the floor it would take most of fullRecovery to
	// climb back while the account idled (make bench 8×50 and 4×100 on a
	// quiet machine, in the runs that compared them: 81–92 % of 700/min
	// with no bound, 88–96 % with 8).
	servedCutDepth = 8
	// signalWait bounds how long handing back a token or taking an answer
	// waits for a shared bucket: past it the signal is dropped rather than
	// holding up the caller.
	signalWait = time.Second
)

// clock is the time source of the account limiter, injectable for tests.
type clock interface {
	Now() time.Time
	// Sleep waits for d, or returns ctx.Err() as soon as ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error { return sleep(ctx, d) }

// errWouldPassDeadline is returned at once when the wait for a token would
// end after the context's deadline (as rate.Limiter.Wait does).
var errWouldPassDeadline = fmt.Errorf("waiting for the client-side rate limit would pass the context deadline: %w", context.DeadlineExceeded)

// bucketParams are one process's view of the account limit.
type bucketParams struct {
	maxRate float64 // tokens per second with nothing throttled
	burst   float64 // tokens the bucket holds at most
	floor   float64 // the rate never drops below
	cubicC  float64 // CUBIC scale: tokens/s per s³
}

func newBucketParams(rps float64, burst int) bucketParams {
	k := fullRecovery.Seconds()
	return bucketParams{
		maxRate: rps,
		burst:   float64(burst),
		floor:   rps / floorDivisor,
		// K = ∛(Wmax(1−β)/C) = fullRecovery for Wmax = maxRate.
		cubicC: rps * (1 - throttleBeta) / (k * k * k),
	}
}

// bucketState is the adaptive bucket: what an in-process limiter keeps in
// memory and a shared one in its state file. Tokens may be negative: each
// unit below zero is a reservation handed out and not yet due.
type bucketState struct {
	Tokens    float64
	Last      time.Time // Tokens were counted at this time (may lie ahead, at NotBefore)
	NotBefore time.Time // no token is due before it (the latest Retry-After)
	Cut       time.Time // the last cut of the rate; zero: at the configured rate
	WMax      float64   // the rate the curve levels off at: the rate just before that cut, or less (fast convergence)
	Start     float64   // the rate right after that cut (tokens/s)
	Confirmed time.Time // the latest success since the cut: the curve has advanced to it
	Epoch     uint64    // bumped at each cut or pause: older reservations are void
}

// freshState is a bucket nobody has used: full, at the configured rate.
func freshState(p bucketParams, now time.Time) bucketState {
	return bucketState{Tokens: p.burst, Last: now}
}

// rate is the current fill rate in tokens per second.
func (s *bucketState) rate(p bucketParams) float64 {
	if s.Cut.IsZero() {
		return p.maxRate
	}
	t := max(s.Confirmed.Sub(s.Cut).Seconds(), 0)
	k, c := s.curve(p)
	d := t - k
	r := c*d*d*d + s.WMax
	return min(max(r, p.floor), p.maxRate)
}

// curve is the shape of the climb after the last cut: K, the time to climb
// back to WMax from the rate after the cut (RFC 9438, 4.2), and the CUBIC
// scale C. The curve passes Start at the cut, levels off at WMax at K and is
// back at the configured rate fullRecovery after the cut, whatever rate it
// was cut to: a cut from the configured rate has the scale of
// newBucketParams (K = fullRecovery), and a process whose share was cut far
// below it (fast convergence in a crowd) is not left crawling once the
// crowd is gone. Measured in make bench's 8×50 case: a run cut to a small
// share took over 30 s to climb back after the others had finished.
func (s *bucketState) curve(p bucketParams) (k, c float64) {
	below := math.Cbrt(max(s.WMax-s.Start, 0))   // ∛(WMax − Start)
	above := math.Cbrt(max(p.maxRate-s.WMax, 0)) // ∛(max − WMax)
	if below+above == 0 {
		return 0, p.cubicC
	}
	T := fullRecovery.Seconds()
	k = T * below / (below + above)
	scale := (below + above) / T
	return k, scale * scale * scale
}

// advance refills the bucket up to now.
func (s *bucketState) advance(p bucketParams, now time.Time) {
	if now.After(s.Last) {
		s.Tokens += s.rate(p) * now.Sub(s.Last).Seconds()
		s.Last = now
	}
	// Another process sharing the bucket may be configured with a larger burst.
	s.Tokens = min(s.Tokens, s.burst(p))
}

// burst is how many tokens the bucket holds at most at the current rate: the
// configured burst at the configured rate; after a cut, until the rate is
// whole again, a share of sharedBurst proportional to the rate (at least
// one). A process that found its share of a crowded account thus sends no
// larger bursts than its share (simulated 8 short applies: 18 % → 17 % 429s).
func (s *bucketState) burst(p bucketParams) float64 {
	if s.Cut.IsZero() {
		return p.burst
	}
	return max(1, min(p.burst, sharedBurst)*s.rate(p)/p.maxRate)
}

// reserve takes one token, not before notBefore, and returns when it is due.
// With a deadline, a token due after it is not taken (ok false).
func (s *bucketState) reserve(p bucketParams, now, notBefore, deadline time.Time) (at time.Time, ok bool) {
	s.advance(p, now)
	r := s.rate(p)
	if ahead := notBefore.Sub(s.Last).Seconds(); ahead > 0 {
		// Counted as of notBefore (capped there, as advance would), kept
		// as of Last: a state file holds no count far ahead of now.
		s.Tokens = min(s.Tokens+r*ahead, s.burst(p)) - r*ahead
	}
	s.Tokens--
	at = s.Last
	if s.Tokens < 0 {
		at = at.Add(time.Duration(-s.Tokens / r * float64(time.Second)))
	}
	at = maxTime(at, s.NotBefore, now, notBefore)
	if !deadline.IsZero() && at.After(deadline) {
		s.Tokens++
		return at, false
	}
	return at, true
}

// throttle takes a 429 answered at now, with the server's Retry-After (0:
// none), and served, the rate this process was actually getting from the
// account before it (+Inf: unknown; see servedCount). It reports whether the
// state changed.
func (s *bucketState) throttle(p bucketParams, now time.Time, retryAfter time.Duration, served float64) bool {
	newCongestion := !now.Before(s.Cut.Add(throttleHold)) && !now.Before(s.NotBefore)
	until := now.Add(min(retryAfter, maxPause))
	pause := retryAfter > 0 && until.After(s.NotBefore)
	if !newCongestion && !pause {
		return false
	}
	s.advance(p, now)
	if newCongestion {
		// Fast convergence (RFC 9438, 4.7): a cut that comes before the
		// rate regained the peak of the previous one means more processes
		// share the account than when that peak was found; aiming lower
		// leaves them room, so shares settle sooner and with fewer 429s.
		r, previous := s.rate(p), s.WMax
		if s.Cut.IsZero() {
			// The first cut from the configured rate starts from the
			// rate the account actually served this process when that
			// is lower: in a crowd, far lower (see servedCount).
			r = min(r, max(served, r/servedCutDepth, p.floor))
		}
		s.WMax, s.Start = r, max(r*throttleBeta, p.floor)
		if !s.Cut.IsZero() && r < previous {
			s.WMax = max(r*(1+throttleBeta)/2, s.Start)
		}
		s.Cut, s.Confirmed = now, now
	}
	// Reservations handed out before were timed for the old rate or before
	// the pause: void them, their holders take new ones.
	s.Epoch++
	if pause {
		// One request may leave when the pause ends, the next ones at the
		// new rate after it.
		s.NotBefore, s.Last, s.Tokens = until, until, 1
	} else {
		s.Tokens = 0
	}
	return true
}

// succeed takes a success answered at now: the rate curve advances to it.
func (s *bucketState) succeed(p bucketParams, now time.Time) bool {
	if s.Cut.IsZero() || now.Before(s.NotBefore) || now.Sub(s.Confirmed) < confirmStep {
		return false
	}
	s.advance(p, now)
	s.Confirmed = now
	if s.rate(p) >= p.maxRate {
		s.Cut, s.WMax, s.Start, s.Confirmed = time.Time{}, 0, 0, time.Time{}
	}
	return true
}

func maxTime(t time.Time, others ...time.Time) time.Time {
	for _, o := range others {
		if o.After(t) {
			t = o
		}
	}
	return t
}

// memStore is the bucket of one process. Like fileStore, it runs updates on
// the state one at a time: update runs f on it, f reports whether it changed
// it, and f reads the time itself, once no other update can run.
type memStore struct {
	mu sync.Mutex
	s  bucketState
}

func (m *memStore) update(_ context.Context, f func(*bucketState) bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	f(&m.s)
	return nil
}

// accountLimiter paces this process's requests to the account and adapts
// the pace to the server's 429s. By default the bucket lives in memory; with
// sharing on, in a state file that the processes on this machine using the
// same account take turns on (see ratelimit_shared.go).
type accountLimiter struct {
	p     bucketParams
	clock clock
	mem   memStore

	// Sharing with other processes: asked for (share, in sharedDir or the
	// default directory), bound once to an account (bindShared), left for
	// the in-process bucket on failure (fallBack).
	share     bool
	sharedDir string
	bindOnce  durableOnce
	shared    atomic.Pointer[fileStore]
	shareErr  atomic.Pointer[error]

	// timedRate is the rate at which the turns handed out since the last
	// cut or re-timing were timed (in-process bucket only, see retime).
	timedRate float64

	// served counts the answers the account served this process (see
	// servedRate); guarded by servedMu.
	servedMu sync.Mutex
	served   servedCount

	// win keeps this process's requests within the account's 60-second
	// window (nil: none).
	winMu chanMutex
	win   *slidingWindow
}

func newAccountLimiter(rps float64, burst int, clk clock) *accountLimiter {
	a := &accountLimiter{p: newBucketParams(rps, burst), clock: clk, winMu: newChanMutex(), bindOnce: durableOnce{mu: newChanMutex()}}
	a.mem.s = freshState(a.p, clk.Now())
	a.timedRate = a.p.maxRate
	return a
}

// Limit is the current fill rate.
func (a *accountLimiter) Limit() rate.Limit {
	var r float64
	_ = a.update(context.Background(), func(s *bucketState) bool {
		r = s.rate(a.p)
		return false
	})
	return rate.Limit(r)
}

// Burst is the most tokens the bucket holds.
func (a *accountLimiter) Burst() int { return int(a.p.burst) }

// update runs f on the current store. A shared store that fails for any
// reason but the context is dropped for the in-process bucket, and the
// failure is kept for sharedStatus.
func (a *accountLimiter) update(ctx context.Context, f func(*bucketState) bool) error {
	fs := a.shared.Load()
	if fs == nil {
		return a.mem.update(ctx, f)
	}
	err := fs.update(ctx, f)
	if err == nil || ctx.Err() != nil {
		return err
	}
	a.fallBack(fmt.Errorf("the shared rate limit state stopped working: %w", err))
	return a.mem.update(ctx, f)
}

// fallBack leaves the shared bucket, if any, for the in-process one, keeping
// why for sharedStatus.
func (a *accountLimiter) fallBack(err error) {
	a.shareErr.Store(&err)
	a.shared.Store(nil)
}

// wait blocks until this process may send one request to the account, the
// context is done, or it is clear that the token would come after the
// context's deadline (then it returns at once, taking nothing).
func (a *accountLimiter) wait(ctx context.Context) error {
	return (&limiter{account: a, clock: a.clock, mu: newChanMutex()}).wait(ctx, "")
}

// reserve takes one token and a place in the account window, not before
// notBefore, and returns the time it was taken at, when the request may
// leave and the bucket's epoch. A turn that would come after the context's
// deadline is not taken (errWouldPassDeadline).
//
// The token is taken at the time the request leaves, whatever delays it (the
// window, its route): a bucket counts requests when they arrive,
// and requests that waited for something else would otherwise leave bunched
// together.
func (a *accountLimiter) reserve(ctx context.Context, notBefore time.Time) (now, at time.Time, epoch uint64, err error) {
	deadline, _ := ctx.Deadline()
	a.winMu.Lock()
	defer a.winMu.Unlock()
	notBefore = a.win.earliest(notBefore)
	a.startServed(a.clock.Now())
	ok := true
	err = a.update(ctx, func(s *bucketState) bool {
		now = a.clock.Now()
		at, ok = s.reserve(a.p, now, notBefore, deadline)
		epoch = s.Epoch
		return true
	})
	switch {
	case err != nil:
		return now, at, epoch, err
	case !ok:
		return now, at, epoch, errWouldPassDeadline
	}
	a.win.add(at, now)
	return now, at, epoch, nil
}

// giveBack returns a token taken in epoch and not used: the next caller may
// use it.
func (a *accountLimiter) giveBack(ctx context.Context, epoch uint64) {
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), signalWait)
	defer cancel()
	_ = a.update(bg, func(s *bucketState) bool {
		if s.Epoch != epoch {
			return false
		}
		s.Tokens = min(s.Tokens+1, s.burst(a.p))
		return true
	})
}

// stillValid reports whether a token taken in epoch for at still holds: no
// 429 or re-timing voided it and no Retry-After pause covers at.
func (a *accountLimiter) stillValid(ctx context.Context, epoch uint64, at time.Time) (bool, error) {
	valid := false
	err := a.update(ctx, func(s *bucketState) bool {
		valid = s.Epoch == epoch && !at.Before(s.NotBefore)
		return false
	})
	return valid, err
}

// dropAfter gives up the places in the account window of the turns handed
// out for after now (voided).
func (a *accountLimiter) dropAfter(now time.Time) {
	a.winMu.Lock()
	defer a.winMu.Unlock()
	a.win.dropAfter(now)
}

// observe takes the answer to one HTTP attempt on the account:
//
//   - 429: throttled. The rate is cut (once per congestion, see
//     throttleHold) and, with a Retry-After (retryAfter > 0), every caller
//     of wait, in this process or any sharing the bucket, waits until it
//     has passed (bounded by maxPause).
//   - 2xx, 3xx and 4xx other than 429: success; it counts towards what
//     the account served (servedCount), a cut rate grows back, and turns
//     timed for a rate well below the new one are taken anew (retime).
//   - 5xx, and 0 for an attempt without an answer: neutral.
//
// It never blocks for long: a shared bucket that cannot be had within
// signalWait drops the signal. It reports whether the answer voided the
// turns handed out before it, whose places in the account window and pace
// it gives up.
func (a *accountLimiter) observe(status int, retryAfter time.Duration) (voided bool) {
	var f func(*bucketState) bool
	switch {
	case status == http.StatusTooManyRequests:
		f = func(s *bucketState) bool {
			now := a.clock.Now()
			voided = s.throttle(a.p, now, retryAfter, a.servedRate(now))
			if voided && !a.share {
				a.timedRate = s.rate(a.p)
			}
			return voided
		}
	case served(status):
		f = func(s *bucketState) bool {
			now := a.clock.Now()
			wasCut := !s.Cut.IsZero()
			changed := s.succeed(a.p, now)
			a.countServed(now, wasCut && s.Cut.IsZero())
			if a.retime(s) {
				voided, changed = true, true
			}
			return changed
		}
	default:
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), signalWait)
	defer cancel()
	if a.update(ctx, f) != nil {
		return false
	}
	if voided {
		a.dropAfter(a.clock.Now())
	}
	return voided
}

// retime voids the turns handed out for later when they were timed for a
// rate well below the current one (retimeGrowth): their holders take new
// ones at this rate. It reports whether it did. In-process bucket only: the
// turns in a shared bucket are also other processes'.
func (a *accountLimiter) retime(s *bucketState) bool {
	r := s.rate(a.p)
	if a.share || s.Tokens >= 0 || r < a.timedRate*retimeGrowth {
		return false
	}
	s.Tokens, a.timedRate = 0, r
	s.Epoch++
	return true
}
