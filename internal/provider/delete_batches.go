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
// The first delete of a batch leads it: it waits until no other delete has
// joined for quiet, or until maxGather has passed since it began, then sends
// the batch and hands its outcome to every member. A member whose context
// ends stops waiting, the leader included; the batch still goes out for the
// others, within the retry budget of one operation.
type deleteBatches struct {
	quiet, maxGather time.Duration
	send             func(ctx context.Context, key batchKey, domains []string) error

	mu      sync.Mutex
	pending map[batchKey]*deleteBatch
}

type batchKey struct {
	scope        apiclient.Scope
	authProvider string
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
	return &deleteBatches{quiet: deleteBatchQuiet, maxGather: deleteBatchMaxGather, send: send, pending: map[batchKey]*deleteBatch{}}
}

// delete removes domain (canonical) with whichever others of its scope are
// being deleted at the same time, and returns the outcome of their request.
func (b *deleteBatches) delete(ctx context.Context, key batchKey, domain string) error {
	b.mu.Lock()
	batch, joining := b.pending[key]
	if !joining {
		batch = &deleteBatch{done: make(chan struct{})}
		b.pending[key] = batch
	}
	batch.domains = append(batch.domains, domain)
	batch.joined = time.Now()
	b.mu.Unlock()

	if !joining {
		b.lead(ctx, key, batch)
	}
	select {
	case <-batch.done:
		return batch.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lead gathers the batch, closes it to newcomers and sends it, without
// waiting for the answer.
func (b *deleteBatches) lead(ctx context.Context, key batchKey, batch *deleteBatch) {
	start := time.Now()
	wait := b.quiet
	for {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		b.mu.Lock()
		quietFor := time.Since(batch.joined)
		if ctx.Err() != nil || quietFor >= b.quiet || time.Since(start) >= b.maxGather {
			delete(b.pending, key)
			b.mu.Unlock()
			break
		}
		b.mu.Unlock()
		wait = min(b.quiet-quietFor, b.maxGather-time.Since(start))
	}
	if len(batch.domains) > 1 {
		tflog.Debug(ctx, "deleting domains in one request", map[string]any{
			"project_id": key.scope.ProjectID, "branch_id": key.scope.BranchID, "domains": len(batch.domains)})
	}
	go func() {
		batch.err = b.send(context.WithoutCancel(ctx), key, batch.domains)
		close(batch.done)
	}()
}
