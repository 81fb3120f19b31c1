package provider

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// deleteBatches coalesces the deletes of single domains that Terraform runs
// at once (one per neon_auth_domain, up to -parallelism) into one DELETE
// …/auth/domains per (project, branch, auth provider): the endpoint takes an
// array and ignores domains already gone, so destroying N domains takes
// about N ÷ parallelism requests instead of N.
//
// A scope has at most one request in flight. Deletes that arrive meanwhile
// gather in the next batch, which goes out once the request in flight is
// answered and no delete has joined for quiet (at most maxGather after that
// answer): the deletes Terraform starts when the previous batch's members
// return join it, so batches stay as large as Terraform's parallelism even
// when requests wait for the rate limit. The first delete of a batch leads
// it; every member gets the outcome of the request. A member whose context
// ends stops waiting, the leader included; the batch still goes out for the
// others, within the retry budget of one operation.
type deleteBatches struct {
	quiet, maxGather time.Duration
	send             func(ctx context.Context, key batchKey, domains []string) error

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
}

type deleteBatch struct {
	domains []string
	joined  time.Time // when the last member joined
	done    chan struct{}
	err     error
}

// Gather windows: Terraform starts the deletes of one wave within a few
// milliseconds of each other; a lone delete waits quiet once.
const (
	deleteBatchQuiet     = 30 * time.Millisecond
	deleteBatchMaxGather = 300 * time.Millisecond
)

func newDeleteBatches(send func(ctx context.Context, key batchKey, domains []string) error) *deleteBatches {
	return &deleteBatches{quiet: deleteBatchQuiet, maxGather: deleteBatchMaxGather, send: send, scopes: map[batchKey]*scopeBatches{}}
}

// delete removes domain (canonical) with whichever others of its scope are
// being deleted at the same time, and returns the outcome of their request.
func (b *deleteBatches) delete(ctx context.Context, key batchKey, domain string) error {
	b.mu.Lock()
	sc := b.scopes[key]
	if sc == nil {
		sc = &scopeBatches{}
		b.scopes[key] = sc
	}
	batch := sc.pending
	leader := batch == nil
	if leader {
		batch = &deleteBatch{done: make(chan struct{})}
		sc.pending = batch
	}
	batch.domains = append(batch.domains, domain)
	batch.joined = time.Now()
	b.mu.Unlock()

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
	for {
		b.mu.Lock()
		if f := sc.flight; f != nil {
			b.mu.Unlock()
			<-f
			opened = time.Now()
			continue
		}
		since := batch.joined
		if opened.After(since) {
			since = opened
		}
		quietFor, gathering := time.Since(since), time.Since(opened)
		if quietFor < b.quiet && gathering < b.maxGather {
			b.mu.Unlock()
			time.Sleep(min(b.quiet-quietFor, b.maxGather-gathering))
			continue
		}
		sc.pending = nil
		flight := make(chan struct{})
		sc.flight = flight
		b.mu.Unlock()

		if len(batch.domains) > 1 {
			tflog.Debug(ctx, "deleting domains in one request", map[string]any{
				"project_id": key.scope.ProjectID, "branch_id": key.scope.BranchID, "domains": len(batch.domains)})
		}
		batch.err = b.send(ctx, key, batch.domains)
		close(batch.done)

		b.mu.Lock()
		sc.flight = nil
		if sc.pending == nil {
			delete(b.scopes, key)
		}
		b.mu.Unlock()
		close(flight)
		return
	}
}
