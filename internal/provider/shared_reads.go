package provider

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// Reads that many resources share during a refresh: one request per scope and
// endpoint, and the parts of the Better Auth bundle each read through it.

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

// readKey names what is read: a project, and the branch for the
// branch-scoped endpoints ("" for the project-level ones, which always reach
// the production branch).
type readKey struct {
	projectID string
	branchID  string
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

// The Better Auth bundle. GET …/branches/{branch_id}/auth/plugins answers a
// branch's Bundled settings (betterauth.Settings), email provider, OAuth
// providers and allow_localhost at once. In
// branch mode every resource and data source that reads one of those reads
// the branch's shared bundle (providerData.plugins), so that a branch
// refreshes with four reads however many resources it has: GET …/auth,
// …/auth/domains, …/auth/plugins and …/auth/webhooks (the bundle does not
// carry the webhooks). A part the bundle does not carry (every member is
// optional in the reference) is read from its own endpoint, as is every part
// in project mode, which has no bundle. Every write to a part calls
// wroteSettings (or wroteOAuthProviders) once it is answered, so no read
// that starts after it sees the bundle from before it.

// bundled reads one part of the scope's settings: from the shared bundle
// under name, when the bundle carries it, or else with own.
func bundled[T any](ctx context.Context, d *providerData, s apiclient.Scope, name string, own func(context.Context) (T, error)) (T, error) {
	if s.Family == apiclient.FamilyBranch && name != "" {
		p, err := d.plugins(ctx, s)
		if err != nil {
			var zero T
			return zero, err
		}
		var v T
		switch ok, err := p.Part(name, &v); {
		case err != nil:
			return v, fmt.Errorf("decoding %s of GET …/auth/plugins: %w", name, err)
		case ok:
			return v, nil
		}
	}
	return own(ctx)
}

// errPluginNotReported: GET …/auth/plugins answered without a plugin that
// has no endpoint of its own to read.
var errPluginNotReported = errors.New("the API's plugin settings do not include this plugin")

// readSetting reads a Better Auth setting of the scope: from the bundle
// where it carries it, else from the setting's own GET; a setting that has
// neither is errPluginNotReported.
func readSetting[T any](ctx context.Context, d *providerData, s apiclient.Scope, set betterauth.Setting) (T, error) {
	name := ""
	if set.Bundled {
		name = set.Name
	}
	return bundled(ctx, d, s, name, func(ctx context.Context) (T, error) {
		if !set.Read {
			var zero T
			return zero, errPluginNotReported
		}
		return apiclient.ReadSetting[T](ctx, d.client, s, set)
	})
}

// emailServer is the scope's email server (provider). The bundle leaves it
// out when none is configured; that absence is confirmed by the dedicated
// endpoint, whose 404 is documented, rather than taken on trust.
func (d *providerData) emailServer(ctx context.Context, s apiclient.Scope) (apiclient.EmailServer, error) {
	return bundled(ctx, d, s, apiclient.PartEmailProvider, func(ctx context.Context) (apiclient.EmailServer, error) {
		return deref(d.client.GetEmailServer(ctx, s))
	})
}

// allowLocalhost is whether the branch's Neon Auth allows localhost origins
// (branch mode only).
func (d *providerData) allowLocalhost(ctx context.Context, s apiclient.Scope) (bool, error) {
	return bundled(ctx, d, s, apiclient.PartAllowLocalhost, func(ctx context.Context) (bool, error) { return d.client.GetAllowLocalhost(ctx, s) })
}

// oauthProviders are the scope's OAuth providers (id and type): from the
// bundle in branch mode, else the shared GET …/auth/oauth_providers.
func (d *providerData) oauthProviders(ctx context.Context, s apiclient.Scope) ([]apiclient.OAuthProvider, error) {
	return bundled(ctx, d, s, apiclient.PartOAuthProviders, func(ctx context.Context) ([]apiclient.OAuthProvider, error) {
		return d.reads.oauth.get(ctx, d.key(s), func(ctx context.Context) ([]apiclient.OAuthProvider, error) {
			return d.client.ListOAuthProviders(ctx, s)
		})
	})
}
