package apiclient

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// The retry budget of one operation and the HTTP-level retry loop that spends it.

// RetryPolicy bounds one operation: a read, or a write together with the
// read-backs that find out whether it took effect and the re-sends that
// follow. Everything an operation does draws on one budget.
//
//   - What is retried is the status rules' to say (status.go): 429, 423 and
//     503 for every method, as refusals of a request that was not applied;
//     other 5xx but 501, and lost answers, for reads. A write that may have
//     been applied is re-sent only as its endpoint allows (see write.go).
//     Retry-After (seconds or HTTP date) is honoured.
//   - Waits grow exponentially from WaitMin to WaitMax with jitter.
//   - MaxRetries caps the requests sent again after the first, except those
//     after a 429: the account is busy, not failing, so a 429 is retried for
//     as long as Timeout leaves room (the adaptive rate limit slows the
//     process meanwhile). Timeout caps the wall time of everything. A
//     cancelled context stops at once.
type RetryPolicy struct {
	MaxRetries int           // requests sent again after the first; 0 → 6, negative → none
	WaitMin    time.Duration // 0 → 500ms
	WaitMax    time.Duration // 0 → 30s
	Timeout    time.Duration // whole operation, waits included; 0 → 5m
}

// Defaults of RetryPolicy.
const (
	DefaultMaxRetries = 6
	DefaultTimeout    = 5 * time.Minute
)

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
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	return p
}

// budget is what one operation may still spend. It travels in the context,
// so that a write's read-back and its re-sends draw on the same retries and
// the same deadline as the write's own HTTP attempts.
type budget struct {
	policy   RetryPolicy
	deadline time.Time

	mu      sync.Mutex
	retries int // left
	spent   int // taken so far
}

type budgetKey struct{}

// withBudget returns ctx carrying the operation's budget, starting one when
// ctx has none (the outermost call of an operation).
func (c *Client) withBudget(ctx context.Context) (context.Context, *budget) {
	if b, ok := ctx.Value(budgetKey{}).(*budget); ok {
		return ctx, b
	}
	b := &budget{policy: c.retry, deadline: time.Now().Add(c.retry.Timeout), retries: c.retry.MaxRetries}
	return context.WithValue(ctx, budgetKey{}, b), b
}

// take spends one retry; false when none is left. A retry after a 429
// (throttled) is counted but draws on the time budget only.
func (b *budget) take(throttled bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if throttled {
		b.spent++
		return true
	}
	if b.retries <= 0 {
		return false
	}
	b.retries--
	b.spent++
	return true
}

// fits reports whether a wait of d ends before the deadline.
func (b *budget) fits(d time.Duration) bool { return !time.Now().Add(d).After(b.deadline) }

// retriesSpent is how many requests the operation sent again so far.
func (b *budget) retriesSpent() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// callState follows one HTTP exchange across its attempts.
type callState struct {
	route    string // "METHOD /template"
	method   string
	start    time.Time
	budget   *budget
	attempt  int
	nextWait time.Duration
	sent     bool // the last attempt wrote its request to a connection
	// refusedSince is when a connection was first refused (zero: never);
	// refused connections are retried only for refusedRetryWindow.
	refusedSince time.Time
	sentFlag     atomic.Bool
	// exhausted names the limit that stopped the retries ("" when none did).
	exhausted BudgetLimit
	// retryAfter is the Retry-After of the last attempt's answer, and
	// hasRetryAfter whether it carried a readable one: limitedTransport
	// parses the header once, where the answer arrives, for the limiter
	// and for backoff.
	retryAfter    time.Duration
	hasRetryAfter bool
}

type callStateKey struct{}

func withCallState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, callStateKey{}, st)
}

func callStateFrom(ctx context.Context) *callState {
	st, _ := ctx.Value(callStateKey{}).(*callState)
	return st
}

// shouldRetry decides whether an attempt is repeated at the HTTP level, by
// the status rules (status.go): an answer by its status, a request without
// one by its kind of transport failure (failfast.go).
func shouldRetry(st *callState, resp *http.Response, err error) bool {
	switch {
	case errors.Is(err, errWouldPassDeadline): // every later turn would too
		return false
	case err != nil:
		return retryTransport(st, err)
	case resp.StatusCode < 400:
		return false
	}
	return ruleForStatus(resp.StatusCode).retries(st.method)
}

// retryClient builds the per-exchange retrying client. It is cheap: it shares
// the provider's *http.Client and only binds the policy to this exchange.
func (c *Client) retryClient(st *callState) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient: c.http,
		// The budget decides; this only keeps retryablehttp from stopping first.
		RetryMax:     math.MaxInt32,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
		RequestLogHook: func(_ retryablehttp.Logger, _ *http.Request, i int) {
			st.attempt = i + 1
			st.sentFlag.Store(false)
			st.retryAfter, st.hasRetryAfter = 0, false
		},
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			st.sent = st.sentFlag.Load()
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			fields := map[string]any{"route": st.route, "attempt": st.attempt}
			if err != nil {
				fields["error"] = unwrapURLError(err).Error()
			}
			if resp != nil {
				fields["status"] = resp.StatusCode
				fields["request_id"] = resp.Header.Get("X-Request-Id")
			}
			fields["elapsed_ms"] = time.Since(st.start).Milliseconds()
			if !shouldRetry(st, resp, err) {
				c.log(ctx, "neon API response", fields)
				return false, nil
			}
			wait := st.retryWait(resp)
			if !st.refusedWindowLeft(wait) {
				c.log(ctx, "neon API connection refused; not retried past the refused-connection window", fields)
				return false, nil
			}
			if !st.budget.fits(wait) {
				st.exhausted = LimitTime
				fields["wait_ms"] = wait.Milliseconds()
				c.log(ctx, "neon API response; retry would end after the operation's time budget", fields)
				return false, nil
			}
			if !st.budget.take(resp != nil && ruleForStatus(resp.StatusCode).uncounted) {
				st.exhausted = LimitRetries
				c.log(ctx, "neon API response; retries exhausted", fields)
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

// retryWait is the wait before the next attempt after the answer resp (nil:
// none came): the server's Retry-After when it sent one (plus a little jitter
// so that concurrent callers do not return in lockstep), otherwise backoff.
func (st *callState) retryWait(resp *http.Response) time.Duration {
	if resp != nil && st.hasRetryAfter {
		jitter := time.Duration(rand.Int64N(int64(250*time.Millisecond) + 1))
		return st.retryAfter + jitter
	}
	return backoff(st.budget.policy, st.attempt)
}

// backoff is the wait before attempt+1 when the server named none:
// exponential backoff with jitter, capped.
func backoff(p RetryPolicy, attempt int) time.Duration {
	ceiling := float64(p.WaitMin) * math.Pow(2, float64(attempt-1))
	if ceiling > float64(p.WaitMax) || math.IsInf(ceiling, 0) {
		ceiling = float64(p.WaitMax)
	}
	// "Equal jitter": half fixed, half random, so waits still grow.
	half := time.Duration(ceiling / 2)
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (a date already past waits 0). limitedTransport calls it once per answer.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(math.MaxInt64/time.Second) {
			return time.Duration(math.MaxInt64), true // waits are capped where they are used
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

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
