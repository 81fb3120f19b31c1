package apiclient

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// The account limit as one process keeps it: a token bucket whose rate adapts
// to the server's answers, the account's minute window, and the reading of
// the limits the account showed (ratelimit_reading.go).

// The rate adapts as the AWS SDKs' "adaptive" retry mode does: a 429 cuts it,
// answers served let it climb back along a CUBIC curve (RFC 9438), never above the
// configured rate. The curve regains most of the rate held before the cut
// within seconds, stays near it, and only then probes past it: a lone run
// that met a stray 429 is soon back at full speed, and runs that found their
// shares of one account spend long stretches just under its limit. What
// make bench measured with these values is in bench/BASELINE.md.
const (
	// throttleBeta is the share of the rate kept at a cut (CUBIC's β).
	throttleBeta = 0.7
	// fullRecovery is how long the curve takes from a cut back to the
	// configured rate, however deep the cut.
	fullRecovery = 20 * time.Second
	// floorDivisor: the rate never drops below the configured rate divided
	// by it, so that a few dozen processes can still find shares.
	floorDivisor = 64
	// throttleHold: 429s within this time after a cut (or a refused probe)
	// answer requests sent before it (the same congestion) and do not cut.
	throttleHold = time.Second
	// maxPause bounds how long one Retry-After stops every request of the
	// process (the request that got it still waits it out in retry.go).
	maxPause = time.Minute
	// servedCutDepth: the first cut, to the rate the account served the
	// process, goes at most this far below the rate it allowed itself.
	servedCutDepth = 8
	// minServedWindow: a served count over less time than this (other than
	// the process's first) tells nothing at a cut.
	minServedWindow = time.Second
)

// account is the account limit of one process. Its methods are called with
// the limiter's mutex held.
type account struct {
	max    float64       // requests per second at the configured rate
	burst  int           // tokens the bucket holds at the configured rate
	bucket *rate.Limiter // the pace
	window *window       // at most RequestsPerMinute in any minute

	pausedUntil time.Time // the latest Retry-After: nothing leaves before it
	heldUntil   time.Time // 429s before this answer requests sent before the last cut or refused probe

	// What the account showed of its reading (ratelimit_reading.go).
	pace       pace
	probing    bool          // a probe is in flight
	probed     int           // probes served while learning
	own        *rate.Limiter // while learning: a bucket of the documented size that counts every request of the process
	servedLeft []time.Time   // while learning: when the requests served left, ascending, over the last minute
	memory     readingMemory

	// The curve since the last cut (zero: none) starts at from and levels
	// off at peak; it has advanced to the latest answer served, confirmed.
	cut, confirmed time.Time
	from, peak     float64

	// The answers served (not 429) since servedSince (zero: no request yet),
	// the first request (fresh) or the rate's last full recovery.
	servedSince time.Time
	servedN     int
	fresh       bool

	shared    *sharedBucket // nil: not asked for, or not working (sharedErr says why)
	sharedErr error
}

func newAccount(rpm int) *account {
	a := &account{max: float64(rpm) / 60, burst: max(1, min(documentedBurst-burstMargin, rpm))}
	a.bucket = rate.NewLimiter(rate.Limit(a.max), a.burst)
	a.own = rate.NewLimiter(rate.Limit(max(a.max, float64(DefaultAccountRequestsPerMinute)/60)), documentedBurst)
	a.window = &window{n: rpm, span: time.Minute, slack: minuteSlack}
	return a
}

// earliest is when a request may leave, from at on, as far as the account
// limits of this process tell, and whether it leaves as a probe: while the
// account's reading is learnt (and probeAllowed), one request at a time may
// leave past the bucket.
func (a *account) earliest(at time.Time, probeAllowed bool) (time.Time, bool) {
	at = a.window.earliest(later(at, a.pausedUntil))
	if a.pace == paceWindows {
		return at, false
	}
	tokens, need := a.bucket.TokensAt(at), 1.0
	if a.pace == paceLearning && a.probing {
		// The probes served spent the margin the bucket keeps from the
		// server's: until the one in flight is answered, keep it again.
		need += burstMargin
	}
	if tokens >= need {
		return at, false
	}
	if probeAllowed && a.pace == paceLearning && !a.probing {
		if n := len(a.window.times); n > 0 {
			at = later(at, a.window.times[n-1].Add(probeGap))
		}
		return at, true
	}
	return at.Add(time.Duration((need - tokens) / float64(a.bucket.Limit()) * float64(time.Second))), false
}

// take records a request leaving at now. Its token is taken as it leaves,
// whatever delayed it: a bucket counts arrivals, and requests that waited for
// something else would otherwise leave bunched together. A probe takes none:
// it goes beside the bucket's pace, not in its place (bucketShown takes
// those served). While the reading is learnt, it reports whether a bucket of
// the documented size, full when the process started, would be out of
// tokens (within burstMargin) after the process's own requests: a 429 to
// this one is then the process's own doing.
func (a *account) take(now time.Time, probe bool) (bucketExplains bool) {
	if a.pace == paceLearning {
		bucketExplains = a.own.TokensAt(now) < 1+burstMargin
		a.own.ReserveN(now, 1)
	}
	if a.pace != paceWindows && !probe {
		a.bucket.ReserveN(now, 1)
	}
	a.window.add(now)
	a.probing = a.probing || probe
	if a.servedSince.IsZero() {
		a.servedSince, a.fresh = now, true
	}
	return bucketExplains
}

// throttle takes a 429 that the bucket does not explain: other clients
// spend the account. The pace cuts (once per congestion) and follows the
// bucket from then on.
func (a *account) throttle(now time.Time, retryAfter time.Duration) {
	// Whatever the pace was, the bucket starts again from one token (below),
	// which also forgets that it kept no count while the windows paced.
	a.pace, a.servedLeft, a.probed = paceBucket, nil, 0
	if !now.Before(a.heldUntil) && !now.Before(a.pausedUntil) {
		r, floor, previousPeak := a.rate(), a.max/floorDivisor, a.peak
		if a.cut.IsZero() {
			// The first cut starts from the rate the account served this
			// process when lower: in a crowd it finds its share at once.
			r = min(r, max(a.servedRate(now), r/servedCutDepth, floor))
		}
		a.peak, a.from = r, max(r*throttleBeta, floor)
		if !a.cut.IsZero() && r < previousPeak {
			// Fast convergence (RFC 9438, 4.7): cut before regaining the
			// previous peak, it shares the account with more; aim lower.
			a.peak = max(r*(1+throttleBeta)/2, a.from)
		}
		a.cut, a.confirmed, a.heldUntil = now, now, now.Add(throttleHold)
	}
	a.pause(now, retryAfter)
	// One request may leave when the pause ends, the next at the new rate.
	a.bucket.SetLimitAt(now, rate.Limit(a.rate()))
	a.bucket.SetBurstAt(now, 1)
}

// pause stops every request until a Retry-After has passed (at most maxPause).
func (a *account) pause(now time.Time, retryAfter time.Duration) {
	if retryAfter > 0 {
		a.pausedUntil = later(a.pausedUntil, now.Add(min(retryAfter, maxPause)))
	}
}

// serve records an answer served at now to the request of turn t: the
// curve may climb, and while learning the account may show that it counts by
// windows (then it reports true: requests may leave sooner).
func (a *account) serve(now time.Time, t turn) bool {
	a.servedN++
	if a.pace == paceLearning {
		return a.learnFromServed(now, t)
	}
	if a.cut.IsZero() || now.Before(a.pausedUntil) {
		return false
	}
	a.confirmed = now
	r := a.rate()
	if r >= a.max {
		a.cut, a.servedSince, a.servedN, a.fresh = time.Time{}, now, 0, false
	}
	a.bucket.SetLimitAt(now, rate.Limit(r))
	// A process paced at a share of the account bursts that share of the
	// bucket: together, processes at their shares burst what it holds.
	a.bucket.SetBurstAt(now, max(1, int(float64(a.burst)*r/a.max)))
	return false
}

// rate is the pace in requests per second: the configured rate, or the
// curve since the last cut. The curve is CUBIC's, scaled so that it passes
// from at the cut, levels off at peak and is back at the configured rate
// fullRecovery after the cut.
func (a *account) rate() float64 {
	if a.cut.IsZero() {
		return a.max
	}
	below, above := math.Cbrt(a.peak-a.from), math.Cbrt(max(a.max-a.peak, 0))
	x := (below+above)*a.confirmed.Sub(a.cut).Seconds()/fullRecovery.Seconds() - below
	return min(max(a.peak+x*x*x, a.max/floorDivisor), a.max)
}

// servedRate is the rate, in requests per second, at which the account
// served this process since the count started, assuming the account served
// its whole documented capacity meanwhile (its bucket full at a fresh
// start): the lowest rate the count allows. +Inf when the count is too short
// to tell.
func (a *account) servedRate(now time.Time) float64 {
	w := now.Sub(a.servedSince).Seconds()
	switch {
	case a.servedSince.IsZero():
		return math.Inf(1)
	case a.fresh:
		w += documentedBurst / a.max
	case w < minServedWindow.Seconds():
		return math.Inf(1)
	}
	return float64(a.servedN) / w
}
