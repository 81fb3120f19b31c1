package apiclient

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy bounds how a call is retried.
//
//   - 429, 423 and 503 are retried for every method: the API refused the
//     request without applying it. Retry-After (seconds or HTTP date) is
//     honoured.
//   - Other 5xx and transport errors are retried only for GET. A POST, PATCH
//     or DELETE that may have reached the server is never repeated blindly.
//   - Waits grow exponentially from WaitMin to WaitMax with full jitter.
//   - MaxRetries caps the attempts and MaxElapsed the total time of one call;
//     a cancelled context stops waiting at once.
type RetryPolicy struct {
	MaxRetries int           // retries after the first attempt; 0 → 6, negative → none
	WaitMin    time.Duration // 0 → 500ms
	WaitMax    time.Duration // 0 → 30s
	MaxElapsed time.Duration // 0 → 5m
}

// DefaultMaxRetries is the retry count when none is configured.
const DefaultMaxRetries = 6

func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = DefaultMaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.WaitMin <= 0 {
		p.WaitMin = 500 * time.Millisecond
	}
	if p.WaitMax <= 0 {
		p.WaitMax = 30 * time.Second
	}
	if p.WaitMax < p.WaitMin {
		p.WaitMax = p.WaitMin
	}
	if p.MaxElapsed <= 0 {
		p.MaxElapsed = 5 * time.Minute
	}
	return p
}

// callState follows one logical call across its attempts.
type callState struct {
	route    string // "METHOD /template"
	method   string
	start    time.Time
	attempt  int
	nextWait time.Duration
	sent     bool // the last attempt wrote its request to a connection
	sentFlag atomic.Bool
}

type callStateKey struct{}

func withCallState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, callStateKey{}, st)
}

func callStateFrom(ctx context.Context) *callState {
	st, _ := ctx.Value(callStateKey{}).(*callState)
	return st
}

// retryableStatus reports whether a status is retried regardless of method.
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusLocked || code == http.StatusServiceUnavailable
}

// retryClient builds the per-call retrying client. It is cheap: it shares
// the provider's *http.Client and only binds the policy to this call's state.
func (c *Client) retryClient(st *callState) *retryablehttp.Client {
	p := c.retry
	return &retryablehttp.Client{
		HTTPClient:   c.http,
		RetryWaitMin: p.WaitMin,
		RetryWaitMax: p.WaitMax,
		RetryMax:     p.MaxRetries,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
		RequestLogHook: func(_ retryablehttp.Logger, r *http.Request, i int) {
			st.attempt = i + 1
			st.sentFlag.Store(false)
		},
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			st.sent = st.sentFlag.Load()
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			fields := map[string]any{"route": st.route, "attempt": st.attempt}
			retry := false
			switch {
			case err != nil:
				fields["error"] = unwrapURLError(err).Error()
				// A GET is safe to repeat. A write that never reached the
				// server (refused connection) is too; one that may have been
				// applied is not.
				retry = st.method == http.MethodGet || !st.sent
			case retryableStatus(resp.StatusCode):
				retry = true
			case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
				retry = st.method == http.MethodGet
			}
			if resp != nil {
				fields["status"] = resp.StatusCode
				fields["request_id"] = resp.Header.Get("X-Request-Id")
			}
			fields["elapsed_ms"] = time.Since(st.start).Milliseconds()
			if !retry {
				c.log(ctx, "neon API response", fields)
				return false, nil
			}
			if st.attempt > p.MaxRetries {
				c.log(ctx, "neon API response; retries exhausted", fields)
				return false, nil
			}
			wait := backoff(p, st.attempt, resp)
			if time.Since(st.start)+wait > p.MaxElapsed {
				fields["wait_ms"] = wait.Milliseconds()
				c.log(ctx, "neon API response; retry would exceed the time budget", fields)
				return false, nil
			}
			st.nextWait = wait
			fields["retry_in_ms"] = wait.Milliseconds()
			c.log(ctx, "neon API response; retrying", fields)
			return true, nil
		},
		Backoff: func(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
			return st.nextWait
		},
	}
}

// backoff is the wait before the next attempt: the server's Retry-After when
// it sent one (plus a little jitter so that concurrent callers do not return
// in lockstep), otherwise exponential backoff with full jitter, capped.
func backoff(p RetryPolicy, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			jitter := time.Duration(rand.Int64N(int64(250*time.Millisecond) + 1))
			return d + jitter
		}
	}
	ceiling := float64(p.WaitMin) * math.Pow(2, float64(attempt-1))
	if ceiling > float64(p.WaitMax) || math.IsInf(ceiling, 0) {
		ceiling = float64(p.WaitMax)
	}
	// "Equal jitter": half fixed, half random, so waits still grow.
	half := time.Duration(ceiling / 2)
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
