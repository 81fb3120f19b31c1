package neonauth

import (
	"context"
	"sync"
	"time"
)

// A read that the readers of one scope share: one request per key, served
// for a bounded time, forgotten by the writes that make it stale.

// sharedRead lets the resources of one Neon Auth scope that read the same
// endpoint share one request: when Terraform refreshes fifty domains of a
// branch at once, one GET answers all of them.
//
//   - Concurrent readers of the same key wait for the one request in flight.
//   - A finished read is served for at most maxAge, and never across
//     provider processes (it lives in memory only).
//   - A write invalidates its key: readers that come after the write never
//     see a value fetched before it, because every entry carries the
//     generation it was fetched in.
//   - Errors are shared only with the readers already waiting; they are
//     never kept.
//
// maxAge 0 turns sharing off: every read is its own request.
type sharedRead[V any] struct {
	maxAge time.Duration
	now    func() time.Time // time.Now; tests move it

	mu      sync.Mutex
	gens    map[readKey]uint64
	entries map[readKey]*readEntry[V]
}

// readKey names what is read: a project, the branch for the branch-scoped
// endpoints ("" for the project-level ones, which always reach the
// production branch), and the database for a database's Data API.
type readKey struct {
	projectID string
	branchID  string
	database  string
}

type readEntry[V any] struct {
	gen     uint64
	started time.Time
	done    chan struct{}
	value   V
	err     error
	fetched time.Time
}

func newSharedRead[V any](maxAge time.Duration) *sharedRead[V] {
	return &sharedRead[V]{maxAge: maxAge, now: time.Now, gens: map[readKey]uint64{}, entries: map[readKey]*readEntry[V]{}}
}

// get returns the value for key, fetching it when no fresh one is cached or
// in flight. The value is shared: callers must not modify it.
func (c *sharedRead[V]) get(ctx context.Context, key readKey, fetch func(context.Context) (V, error)) (V, error) {
	if c.maxAge <= 0 {
		return fetch(ctx)
	}
	c.mu.Lock()
	gen := c.gens[key]
	e, ok := c.entries[key]
	if ok && e.gen == gen {
		select {
		case <-e.done:
			if e.err == nil && c.now().Sub(e.fetched) <= c.maxAge {
				c.mu.Unlock()
				return e.value, nil
			}
		default:
			// In flight: wait for it below.
			c.mu.Unlock()
			return e.wait(ctx)
		}
	}
	e = &readEntry[V]{gen: gen, started: c.now(), done: make(chan struct{})}
	c.entries[key] = e
	c.mu.Unlock()

	// The fetch outlives a cancelled first caller so that the readers waiting
	// on it are not failed by someone else's cancellation; each waiter still
	// stops at its own context.
	go func() {
		v, err := fetch(context.WithoutCancel(ctx))
		c.mu.Lock()
		e.value, e.err, e.fetched = v, err, c.now()
		if err != nil && c.entries[key] == e {
			delete(c.entries, key)
		}
		c.mu.Unlock()
		close(e.done)
	}()
	return e.wait(ctx)
}

func (e *readEntry[V]) wait(ctx context.Context) (V, error) {
	select {
	case <-e.done:
		return e.value, e.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// getSince is get for a value no older than since: a read that started
// before since is not used (it may predate something made since, such as a
// branch created earlier in the same apply); one that started at or after
// it, finished or in flight, is shared.
func (c *sharedRead[V]) getSince(ctx context.Context, key readKey, since time.Time, fetch func(context.Context) (V, error)) (V, error) {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok && e.gen == c.gens[key] && e.started.Before(since) {
		c.gens[key]++
		delete(c.entries, key)
	}
	c.mu.Unlock()
	return c.get(ctx, key, fetch)
}

// invalidate forgets key; reads that start afterwards fetch anew.
func (c *sharedRead[V]) invalidate(key readKey) {
	c.mu.Lock()
	c.gens[key]++
	delete(c.entries, key)
	c.mu.Unlock()
}

// keepIf is invalidate for a write that changed nothing but told something:
// a finished value that keep accepts stays; any other (one in flight may
// predate what the write told) is forgotten.
func (c *sharedRead[V]) keepIf(key readKey, keep func(V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || e.gen != c.gens[key] {
		return
	}
	select {
	case <-e.done:
		if e.err == nil && keep(e.value) {
			return
		}
	default:
	}
	c.gens[key]++
	delete(c.entries, key)
}

// amend is invalidate for a write whose effect on the value is known: when a
// finished, fresh value is held, later readers get change applied to a copy
// of it (made under the new generation); otherwise key is just forgotten. A
// read in flight is never amended: it may predate the write.
func (c *sharedRead[V]) amend(key readKey, change func(V) V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	c.gens[key]++
	delete(c.entries, key)
	if !ok || e.gen != c.gens[key]-1 || c.maxAge <= 0 {
		return
	}
	select {
	case <-e.done:
	default:
		return
	}
	if e.err != nil || c.now().Sub(e.fetched) > c.maxAge {
		return
	}
	done := make(chan struct{})
	close(done)
	c.entries[key] = &readEntry[V]{gen: c.gens[key], started: e.started, done: done, value: change(e.value), fetched: e.fetched}
}
