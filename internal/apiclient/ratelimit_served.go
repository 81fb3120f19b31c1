package apiclient

import (
	"math"
	"net/http"
	"time"
)

// How much of the account the account served this process: at a 429, the
// rate the limiter cuts from (see bucketState.throttle).

// minServedWindow: a count over less time than this (other than the
// process's first) tells nothing at a cut.
const minServedWindow = time.Second

// servedCount counts the requests of this process that the account served
// (answered other than 429) since from: its first request, or the moment its
// rate last climbed back to the configured rate. At a 429 it tells how much
// of the account the process was actually getting. The documented limits
// bound what the account serves in W seconds: W at the documented rate, plus
// its burst when the window is the process's first (the bucket may have been
// full then). n requests served in that window are at least n ÷ that bound
// of it, so a process crowded out by others learns it from its first 429,
// where cuts of 30 % take six to reach an eighth.
type servedCount struct {
	from  time.Time // zero: no request yet
	n     int
	fresh bool // from is the first request: the account's burst may have been there for the taking
}

// startServed starts counting at the first request.
func (a *accountLimiter) startServed(now time.Time) {
	a.servedMu.Lock()
	defer a.servedMu.Unlock()
	if a.served.from.IsZero() {
		a.served = servedCount{from: now, fresh: true}
	}
}

// countServed counts one answer other than 429, taken at now. recovered: the
// rate has just climbed back to the configured rate, and the count starts
// anew from now.
func (a *accountLimiter) countServed(now time.Time, recovered bool) {
	a.servedMu.Lock()
	defer a.servedMu.Unlock()
	if recovered {
		a.served = servedCount{from: now}
		return
	}
	a.served.n++
}

// served reports whether an answer of this status was served by the account
// limit: 2xx, 3xx and 4xx other than 429. 5xx and no answer (0) say nothing.
func served(status int) bool {
	return status >= 200 && status < 500 && status != http.StatusTooManyRequests
}

// servedRate is the rate, in requests per second, at which the account
// served this process since the count started, assuming the account served
// its whole documented capacity in that time: the lowest rate the count
// allows. +Inf when unknown: before any request, and in a bucket shared with
// other processes, whose answers this process does not count.
func (a *accountLimiter) servedRate(now time.Time) float64 {
	if a.share {
		return math.Inf(1)
	}
	a.servedMu.Lock()
	defer a.servedMu.Unlock()
	c := a.served
	if c.from.IsZero() {
		return math.Inf(1)
	}
	w := now.Sub(c.from).Seconds()
	switch {
	case c.fresh:
		w += documentedBurst / a.p.maxRate
	case w < minServedWindow.Seconds():
		// Too short a window says little: a few answers more or less
		// would change the rate many times over.
		return math.Inf(1)
	}
	return float64(c.n) / w
}
