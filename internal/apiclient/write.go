package apiclient

import (
	"context"
	"errors"
	"fmt"
)

// A write whose outcome is unknown — its response was lost, or a 500, 502 or
// 504 did not say whether it was applied — is resolved here, next to the
// HTTP retries and within the same budget, as its endpoint allows.
type resendRule int

const (
	// neverResend: the write creates something new each time and cannot be
	// read back (a user, an SDK key pair). It is never sent blindly again:
	// the unknown outcome is returned, for the caller to explain.
	neverResend resendRule = iota
	// resendFreely: sending it again is harmless — it sets a whole value
	// (credentials, a configuration), removes something by its id (a repeat
	// finds it gone), or asks for a fresh link.
	resendFreely
	// resendUnlessApplied: a fresh read decides. Applied: the write is done
	// (and reported as recovered). Not applied: it is sent again; a 409 to
	// that re-send means the earlier attempt was applied after all (recovered
	// too). A 409 to the first attempt is the caller's to explain.
	resendUnlessApplied
)

// writeCall is a write with its rule for an unknown outcome.
type writeCall struct {
	call
	rule resendRule
	// applied reads back whether the write took effect (resendUnlessApplied
	// only). It must read afresh, never from a cache: it runs because an
	// answer was lost.
	applied func(context.Context) (bool, error)
}

// write performs w within the operation's budget. recovered reports a write
// that was applied although its answer was lost (resendUnlessApplied).
func (c *Client) write(ctx context.Context, w writeCall) (recovered bool, err error) {
	ctx, b := c.withBudget(ctx)
	for attempt := 1; ; attempt++ {
		err = c.do(ctx, w.call)
		if attempt > 1 && w.rule == resendUnlessApplied && errors.Is(err, ErrConflict) {
			// Sent again because an earlier attempt's outcome was unknown,
			// and the read-back did not show it yet (the API's reads can lag
			// its writes): a 409 now says the thing exists, and the write
			// that made it was this one's own lost attempt.
			c.log(ctx, "write sent again after an unknown outcome answered 409: the earlier attempt was applied",
				map[string]any{"route": w.method + " /" + w.ep.route, "attempt": attempt})
			return true, nil
		}
		if err == nil || !errors.Is(err, ErrOutcomeUnknown) {
			return false, err
		}
		fields := map[string]any{"route": w.method + " /" + w.ep.route, "attempt": attempt}
		switch w.rule {
		case neverResend:
			c.log(ctx, "write outcome unknown; not sent again (it cannot be read back)", fields)
			return false, err
		case resendUnlessApplied:
			c.log(ctx, "write outcome unknown; reading back before deciding", fields)
			ok, rerr := w.applied(ctx)
			if rerr != nil {
				return false, fmt.Errorf("%w; reading back to find out whether it was applied failed too: %w", err, rerr)
			}
			if ok {
				c.log(ctx, "write was applied although its response was lost", fields)
				return true, nil
			}
		}
		wait := backoff(b.policy, attempt)
		if !b.fits(wait) {
			return false, &BudgetError{Limit: LimitTime, Retries: b.retriesSpent(), Err: unknownAfter(err, attempt)}
		}
		if !b.take(false) {
			return false, &BudgetError{Limit: LimitRetries, Retries: b.retriesSpent(), Err: unknownAfter(err, attempt)}
		}
		c.log(ctx, "write not applied; sending it again", fields)
		if serr := sleep(ctx, wait); serr != nil {
			return false, fmt.Errorf("%w; stopped before trying again: %w", err, serr)
		}
	}
}

// unknownAfter adds to an unknown outcome how many attempts none of which is
// known to be applied.
func unknownAfter(err error, attempts int) error {
	if attempts == 1 {
		return err
	}
	return fmt.Errorf("%w (%d attempts, none known to be applied)", err, attempts)
}
