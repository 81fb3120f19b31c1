package provider

import (
	"context"
	"sync"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// listEndpoint names a list endpoint that resources are read from.
type listEndpoint string

const (
	listIntegrations   listEndpoint = "integrations"
	listOAuthProviders listEndpoint = "oauth_providers"
	listDomains        listEndpoint = "domains"
)

type listKey struct {
	endpoint  listEndpoint
	projectID string
}

// listCache lets the resources of one project that are read by listing share
// one list request: when Terraform refreshes fifty domains of a project at
// once, one GET answers all of them.
//
//   - Concurrent readers of the same (project, endpoint) wait for the one
//     request in flight.
//   - A finished list is served for at most maxAge, and never across
//     provider processes (it lives in memory only).
//   - A write to a (project, endpoint) invalidates it: readers that come
//     after the write never see a list fetched before it, because every
//     entry carries the generation it was fetched in.
//   - Errors are shared only with the readers already waiting; they are
//     never kept.
//
// maxAge 0 turns sharing off: every read is its own request.
type listCache struct {
	maxAge time.Duration
	now    func() time.Time // time.Now; tests move it

	mu      sync.Mutex
	gens    map[listKey]uint64
	entries map[listKey]*listEntry
}

type listEntry struct {
	gen     uint64
	done    chan struct{}
	value   any
	err     error
	fetched time.Time
}

func newListCache(maxAge time.Duration) *listCache {
	return &listCache{maxAge: maxAge, now: time.Now, gens: map[listKey]uint64{}, entries: map[listKey]*listEntry{}}
}

// get returns the list for key, fetching it when no fresh one is cached or in
// flight. The value is shared: callers must not modify it.
func (c *listCache) get(ctx context.Context, key listKey, fetch func(context.Context) (any, error)) (any, error) {
	if c == nil || c.maxAge <= 0 {
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
			return waitEntry(ctx, e)
		}
	}
	e = &listEntry{gen: gen, done: make(chan struct{})}
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
	return waitEntry(ctx, e)
}

func waitEntry(ctx context.Context, e *listEntry) (any, error) {
	select {
	case <-e.done:
		return e.value, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// invalidate forgets the list of key; reads that start afterwards fetch anew.
func (c *listCache) invalidate(key listKey) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.gens[key]++
	delete(c.entries, key)
	c.mu.Unlock()
}

// invalidateProject forgets every list of a project (after deleting its
// integration, which takes its domains and OAuth providers with it).
func (c *listCache) invalidateProject(projectID string) {
	for _, ep := range []listEndpoint{listIntegrations, listOAuthProviders, listDomains} {
		c.invalidate(listKey{endpoint: ep, projectID: projectID})
	}
}

func (d *providerData) listIntegrations(ctx context.Context, projectID string) ([]apiclient.Integration, error) {
	v, err := d.lists.get(ctx, listKey{listIntegrations, projectID}, func(ctx context.Context) (any, error) {
		return d.client.ListIntegrations(ctx, projectID)
	})
	if err != nil {
		return nil, err
	}
	return v.([]apiclient.Integration), nil
}

func (d *providerData) listOAuthProviders(ctx context.Context, projectID string) ([]apiclient.OAuthProvider, error) {
	v, err := d.lists.get(ctx, listKey{listOAuthProviders, projectID}, func(ctx context.Context) (any, error) {
		return d.client.ListOAuthProviders(ctx, projectID)
	})
	if err != nil {
		return nil, err
	}
	return v.([]apiclient.OAuthProvider), nil
}

func (d *providerData) listDomains(ctx context.Context, projectID string) ([]apiclient.Domain, error) {
	v, err := d.lists.get(ctx, listKey{listDomains, projectID}, func(ctx context.Context) (any, error) {
		return d.client.ListDomains(ctx, projectID)
	})
	if err != nil {
		return nil, err
	}
	return v.([]apiclient.Domain), nil
}
