package neonauth

import (
	"context"
	"sync"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Batches of domain deletes: the deletes of one apply to one whitelist sent as
// few requests.

// deleteBatches coalesces the deletes of single domains that Terraform runs
// at once (one per neon_auth_domain, up to -parallelism) into one DELETE
// …/auth/domains per (project, branch, auth provider): the endpoint takes an
// array and ignores domains already gone, so destroying N domains takes
// about N ÷ parallelism requests instead of N.
//
// A scope has at most one request in flight. Deletes that arrive meanwhile
// gather in the next batch, which goes out once the request in flight is
// answered and the deletes Terraform starts when that request's members
// return have joined: as many as were in flight or waiting (Terraform had
// them all running at once), or fewer once none has joined for
// quietAfterFlight (the destroy is ending), at most maxGather after the
// answer. So batches stay as large as Terraform's parallelism even when
// requests wait for the rate limit, and a full batch leaves at once. That
// whole window is kept after a request that left full (Terraform had every
// delete it expected running, and their return brings as many more) and
// while the account is busy (a request sent now would wait for the rate
// limit anyway, and each request saved is worth a turn of it). After a
// request that left short, Terraform had no more deletes of the scope to
// bring when it left: the batch after it waits for a newcomer twice as long
// as Terraform has taken to bring one in this scope (after an answer, or
// after the batch's previous member), between quiet and quietAfterFlight.
// So a busy machine still gets its deletes into one batch, and where they
// come quickly, the deletes that joined while the request flew (slots that
// other work freed) are not held a quarter of a second at the end of a
// destroy for members that are not coming. The
// first batch goes when no delete has joined for quiet, or at once when it
// holds as many as Terraform's default parallelism runs. The first delete of
// a batch leads it; every member gets the outcome of the request. A member whose context
// ends stops waiting, the leader included; the batch still goes out for the
// others, within the retry budget of one operation.
type deleteBatches struct {
	quiet, quietAfterFlight, maxGather time.Duration
	send                               func(ctx context.Context, key batchKey, domains []string) error
	// busy reports whether a request sent now would wait for the rate
	// limit (apiclient's AccountBusy); nil: always.
	busy func() bool
	// unbatched sends every delete at once in a request of its own
	// (Options.UnbatchedDeletes).
	unbatched bool
	// logger receives a line for each request of several deletes.
	logger apiclient.Logger

	mu     sync.Mutex
	scopes map[batchKey]*scopeBatches
}

type batchKey struct {
	scope        apiclient.Scope
	authProvider string
}

// scopeBatches is the state of one scope: the batch open to newcomers and the
// request in flight.
type scopeBatches struct {
	pending *deleteBatch
	flight  chan struct{} // closed when the request in flight is answered; nil when none
	// expect is how many deletes the batch after the last answered request
	// should hold: that request's and those that waited for it; answered is
	// when that answer came, and answeredFull whether that request left
	// full (every delete expected had joined).
	expect       int
	answered     time.Time
	answeredFull bool
	// turnaround is the longest Terraform has taken to bring a delete to
	// this scope after an answer or after the previous member of a batch
	// (deletes that join while a request flies are not counted: they come
	// when other work ends).
	turnaround time.Duration
}

// countJoin counts a delete joining batch at now in the scope's turnaround.
// Call with b.mu held, before the delete is added to batch.
func (sc *scopeBatches) countJoin(batch *deleteBatch, now time.Time, maxGather time.Duration) {
	if sc.flight != nil {
		return
	}
	since := batch.joined // zero for a new batch
	if now.Sub(sc.answered) < maxGather && sc.answered.After(since) {
		since = sc.answered
	}
	if !since.IsZero() {
		sc.turnaround = max(sc.turnaround, now.Sub(since))
	}
}

type deleteBatch struct {
	domains []string
	joined  time.Time     // when the last member joined
	wake    chan struct{} // a member joined (buffered: one signal is enough)
	done    chan struct{}
	err     error
}

// Gather windows: Terraform starts the deletes of one wave within a few
// milliseconds of each other; a lone delete waits quiet once. After an
// answer, the deletes it releases come back within Terraform's turnaround,
// which a busy machine stretches (eight runs on two cores: well over 100 ms);
// the window after an answer follows it (see deleteBatches). A full batch
// leaves at once, so the longer window costs only at the end of a destroy.
const (
	deleteBatchQuiet            = 30 * time.Millisecond
	deleteBatchQuietAfterFlight = 250 * time.Millisecond
	deleteBatchMaxGather        = time.Second
	// deleteBatchFirstFull is when a first batch is full and leaves without
	// waiting for quiet: Terraform's default -parallelism, the most deletes
	// of a scope it runs at once unless told otherwise.
	deleteBatchFirstFull = 10
)

func newDeleteBatches(send func(ctx context.Context, key batchKey, domains []string) error) *deleteBatches {
	return &deleteBatches{quiet: deleteBatchQuiet, quietAfterFlight: deleteBatchQuietAfterFlight, maxGather: deleteBatchMaxGather,
		send: send, scopes: map[batchKey]*scopeBatches{}}
}

// delete removes domain (canonical) with whichever others of its scope are
// being deleted at the same time, and returns the outcome of their request.
func (b *deleteBatches) delete(ctx context.Context, key batchKey, domain string) error {
	if b.unbatched {
		return b.send(ctx, key, []string{domain})
	}
	b.mu.Lock()
	sc := b.scopes[key]
	if sc == nil {
		sc = &scopeBatches{}
		b.scopes[key] = sc
	}
	batch := sc.pending
	leader := batch == nil
	if leader {
		batch = &deleteBatch{wake: make(chan struct{}, 1), done: make(chan struct{})}
		sc.pending = batch
	}
	now := time.Now()
	sc.countJoin(batch, now, b.maxGather)
	batch.domains = append(batch.domains, domain)
	batch.joined = now
	b.mu.Unlock()
	select {
	case batch.wake <- struct{}{}:
	default:
	}

	if leader {
		go b.lead(context.WithoutCancel(ctx), key, sc, batch)
	}
	select {
	case <-batch.done:
		return batch.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lead waits for the scope's request in flight and for the batch to gather,
// closes the batch to newcomers, sends it and hands its outcome over.
func (b *deleteBatches) lead(ctx context.Context, key batchKey, sc *scopeBatches, batch *deleteBatch) {
	opened := time.Now() // the gathering began: the batch opened, or the previous request was answered
	afterAnswer, expect := false, deleteBatchFirstFull
	b.mu.Lock()
	if time.Since(sc.answered) < b.maxGather { // opened by a delete the last answer released
		opened, afterAnswer, expect = sc.answered, true, sc.expect
	}
	b.mu.Unlock()
	for {
		b.mu.Lock()
		quiet := b.quiet
		switch {
		case !afterAnswer:
		case sc.answeredFull, b.busy == nil || b.busy():
			quiet = b.quietAfterFlight
		default:
			quiet = min(max(2*sc.turnaround, b.quiet), b.quietAfterFlight)
		}
		if f := sc.flight; f != nil {
			b.mu.Unlock()
			<-f
			b.mu.Lock()
			afterAnswer, expect = true, sc.expect
			b.mu.Unlock()
			opened = time.Now()
			continue
		}
		since := batch.joined
		if opened.After(since) {
			since = opened
		}
		quietFor, gathering := time.Since(since), time.Since(opened)
		full := expect > 0 && len(batch.domains) >= expect
		if !full && quietFor < quiet && gathering < b.maxGather {
			b.mu.Unlock()
			t := time.NewTimer(min(quiet-quietFor, b.maxGather-gathering))
			select {
			case <-t.C:
			case <-batch.wake:
				t.Stop()
			}
			continue
		}
		sc.pending = nil
		flight := make(chan struct{})
		sc.flight = flight
		b.mu.Unlock()

		if len(batch.domains) > 1 && b.logger != nil {
			b.logger.Debug(ctx, "deleting domains in one request", map[string]any{
				"project_id": key.scope.ProjectID, "branch_id": key.scope.BranchID, "domains": len(batch.domains)})
		}
		batch.err = b.send(ctx, key, batch.domains)

		b.mu.Lock()
		sc.flight, sc.answered, sc.expect, sc.answeredFull = nil, time.Now(), len(batch.domains), full
		if sc.pending != nil {
			sc.expect += len(sc.pending.domains)
		}
		b.mu.Unlock()
		close(batch.done)
		close(flight)
		return
	}
}
