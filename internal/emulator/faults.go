package emulator

import (
	"cmp"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Fault injection: the statuses and lost responses a test asks the emulator to
// produce, and when.

// Faults describe failures injected into API requests that passed
// authentication and the rate limiter. The zero value injects nothing.
type Faults struct {
	// Rate is the share (0..1) of API requests answered with one of Statuses
	// instead of being handled (nothing is applied).
	Rate float64
	// Statuses to pick from, uniformly; default {500, 503, 423, 429}.
	Statuses []int
	// RetryAfter is sent with 429, 503 and 423 faults, in whole seconds
	// (rounded up, at least 1); 0 → 1s.
	RetryAfter time.Duration
	// LostResponseRate is the share (0..1) of write requests (POST, PATCH,
	// DELETE) that are applied but whose connection is then cut before any
	// byte of the response is sent.
	LostResponseRate float64
	// Latency is added to every API request.
	Latency time.Duration
	// Routes, when not empty, limits Rate and LostResponseRate to these route
	// keys ("METHOD /template", see Stats). Latency applies everywhere.
	Routes []string
	// NoLossRoutes are never given an unknown outcome: no lost responses,
	// and their status faults are only refusals (429, 423, 503), never a
	// 500, 502 or 504 that would leave a client unsure whether a write was
	// applied. For writes whose outcome a client has no way to read back.
	NoLossRoutes []string
	// Seed makes the random choices deterministic.
	Seed int64
}

var defaultFaultStatuses = []int{http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusLocked, http.StatusTooManyRequests}

// normalized returns f with defaults filled in and rates clamped to 0..1.
func (f Faults) normalized() Faults {
	f.Rate = min(max(f.Rate, 0), 1)
	f.LostResponseRate = min(max(f.LostResponseRate, 0), 1)
	if len(f.Statuses) == 0 {
		f.Statuses = defaultFaultStatuses
	}
	f.Statuses = slices.Clone(f.Statuses)
	f.RetryAfter = time.Duration(retryAfterSeconds(f.RetryAfter)) * time.Second // 0 → 1s
	f.Latency = max(f.Latency, 0)
	f.Routes = slices.Clone(f.Routes)
	f.NoLossRoutes = slices.Clone(f.NoLossRoutes)
	return f
}

type faultInjector struct {
	mu  sync.Mutex
	f   Faults
	rng *rand.Rand
}

func newFaultInjector() *faultInjector {
	fi := &faultInjector{}
	fi.set(Faults{})
	return fi
}

func (fi *faultInjector) set(f Faults) {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	fi.f = f.normalized()
	fi.rng = rand.New(rand.NewPCG(uint64(f.Seed), 0x6e656f6e))
}

func (fi *faultInjector) get() Faults {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	return fi.f.normalized() // a copy: normalized twice is normalized once
}

func (fi *faultInjector) latency() time.Duration {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	return fi.f.Latency
}

// faultDecision is what happens to one request.
type faultDecision struct {
	status     int           // != 0: answer with this status instead of handling
	retryAfter time.Duration // with status 423, 429, 503
	lose       bool          // handle, then cut the connection
}

func (fi *faultInjector) decide(routeKey, method string) faultDecision {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	f := fi.f
	if len(f.Routes) > 0 && !slices.Contains(f.Routes, routeKey) {
		return faultDecision{}
	}
	if f.Rate > 0 && fi.rng.Float64() < f.Rate {
		d := faultDecision{status: f.Statuses[fi.rng.IntN(len(f.Statuses))]}
		if slices.Contains(f.NoLossRoutes, routeKey) && method != http.MethodGet && outcomeUnknownStatus(d.status) {
			return faultDecision{}
		}
		switch d.status {
		case http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusLocked:
			d.retryAfter = f.RetryAfter
		}
		return d
	}
	switch method {
	case http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodPut:
		if f.LostResponseRate > 0 && !slices.Contains(f.NoLossRoutes, routeKey) && fi.rng.Float64() < f.LostResponseRate {
			return faultDecision{lose: true}
		}
	}
	return faultDecision{}
}

// outcomeUnknownStatus: an answer to a write that does not say whether it
// was applied.
func outcomeUnknownStatus(status int) bool {
	return status == http.StatusInternalServerError || status == http.StatusBadGateway || status == http.StatusGatewayTimeout
}

// faultError is the response of an injected status, in the API's own words.
func faultError(d faultDecision) *apiError {
	msg := cmp.Or(faultMessages[d.status], http.StatusText(d.status), "error")
	return &apiError{status: d.status, msg: msg, retryAfter: d.retryAfter}
}

// faultMessages are the API's words for the statuses faults inject most.
var faultMessages = map[int]string{
	http.StatusTooManyRequests:     "rate limit exceeded",
	http.StatusLocked:              "project already has running conflicting operations, scheduling of new ones is prohibited",
	http.StatusServiceUnavailable:  "service temporarily unavailable, please retry",
	http.StatusInternalServerError: "internal server error",
}
