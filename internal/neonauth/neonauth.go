// Package neonauth holds the Neon Auth rules that every resource, data
// source, list resource and action of the provider follows, over the
// platform API client (internal/apiclient):
//
//   - where an object lives: its Scope (project, branch, API family, auth
//     provider), an omitted branch being the production branch;
//   - the reads many resources share during a refresh, and the writes that
//     make them stale, which forget them themselves;
//   - whether a 404 means an object is gone (Presence);
//   - what a create that found its object already there may do with it:
//     take it over from the parent branch, or refuse it (TakeOver);
//   - domain deletes gathered into batches;
//   - the same for what puts Neon Auth's tokens to work: the Data API of a
//     branch's database, and the JWKS of external identity providers that
//     a project trusts.
//
// It knows nothing of Terraform. It answers with plain values — a scope, a
// presence, a take-over decision, errors — which internal/provider turns into
// state, private state and diagnostics.
//
// Names of reads: one named by its noun alone (Domains, Integrations) is
// shared with the other readers of its scope; one named as the client's call
// (ListDomains, GetEmailServer) is a request of its own.
package neonauth

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Service is Neon Auth as one provider process sees it: the API client of
// the provider's configuration, the API family it uses, and what the process
// remembers — the shared reads, the production branch of each project, the
// scopes whose Neon Auth it enabled itself, the domain deletes it is
// gathering, and the whitelists handed over between their two holders. It is
// safe for concurrent use.
type Service struct {
	client          *apiclient.Client
	family          apiclient.Family
	refuseInherited bool
	reads           sharedReads
	production      productionBranches
	enabled         enabledHere
	gone            goneBranches
	domainDeletes   *deleteBatches
	handovers       handovers
}

// Options configure a Service.
type Options struct {
	// Family is the generation of endpoints every scope uses.
	Family apiclient.Family
	// ReadMaxAge bounds how long a shared read is served
	// (DefaultReadMaxAge); 0 turns sharing off: every read is its own
	// request.
	ReadMaxAge time.Duration
	// RefuseInherited refuses what a create finds already on its branch —
	// inherited from its parent, or a trusted domain whatever put it there —
	// as any object made outside Terraform, instead of taking it over.
	RefuseInherited bool
	// UnbatchedDeletes sends every domain delete at once in a request of its
	// own instead of gathering batches.
	UnbatchedDeletes bool
	// Logger receives a line for each batch of several domain deletes; nil:
	// silent.
	Logger apiclient.Logger
}

// DefaultReadMaxAge bounds how long a shared read is served: long enough for
// one refresh, short enough that a long apply sees changes.
const DefaultReadMaxAge = 10 * time.Second

// New is the Service of a provider configuration.
func New(client *apiclient.Client, o Options) *Service {
	svc := &Service{
		client:          client,
		family:          o.Family,
		refuseInherited: o.RefuseInherited,
		reads:           newSharedReads(o.ReadMaxAge),
	}
	svc.domainDeletes = newDeleteBatches(func(ctx context.Context, k batchKey, domains []string) error {
		return client.DeleteDomains(ctx, k.scope, k.authProvider, domains)
	})
	svc.domainDeletes.busy = client.AccountBusy
	svc.domainDeletes.unbatched = o.UnbatchedDeletes
	svc.domainDeletes.logger = o.Logger
	return svc
}

// Family is the generation of endpoints the service uses.
func (svc *Service) Family() apiclient.Family { return svc.family }

// What the process remembers.

// sharedReads are the endpoints that many resources read at once during a
// refresh, each shared per scope (see sharedRead).
type sharedReads struct {
	integrations *sharedRead[[]apiclient.Integration]
	oauth        *sharedRead[[]apiclient.OAuthProvider]
	domains      *sharedRead[[]apiclient.Domain]
	branches     *sharedRead[[]apiclient.Branch]
	plugins      *sharedRead[*apiclient.Plugins]
	dataAPIs     *sharedRead[dataAPIRead]
	jwks         *sharedRead[[]apiclient.JWKS]
	// kinds are the list-backed kinds' own (see ListBacked.Fetch).
	kinds *kindReads
}

func newSharedReads(maxAge time.Duration) sharedReads {
	return sharedReads{
		dataAPIs:     newSharedRead[dataAPIRead](maxAge),
		jwks:         newSharedRead[[]apiclient.JWKS](maxAge),
		integrations: newSharedRead[[]apiclient.Integration](maxAge),
		oauth:        newSharedRead[[]apiclient.OAuthProvider](maxAge),
		domains:      newSharedRead[[]apiclient.Domain](maxAge),
		branches:     newSharedRead[[]apiclient.Branch](maxAge),
		plugins:      newSharedRead[*apiclient.Plugins](maxAge),
		kinds:        &kindReads{maxAge: maxAge, byKind: map[Kind]any{}},
	}
}

// dataAPIRead is a shared read of a Data API: the Data API, or the 404 that
// answered instead (a database without one; see DataAPIAbsence).
type dataAPIRead struct {
	api      *apiclient.DataAPI
	notFound error
}

// productionBranches remembers the production branch of each project for
// the life of the provider process: resolved once per project, shared by
// every resource.
type productionBranches struct {
	mu  sync.Mutex
	ids map[string]string
}

// enabledHere remembers the scopes whose Neon Auth this provider process
// enabled: nothing on them was inherited, whatever their branch's parent.
type enabledHere struct {
	mu     sync.Mutex
	scopes map[readKey]bool
}

func (e *enabledHere) add(k readKey) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.scopes == nil {
		e.scopes = map[readKey]bool{}
	}
	e.scopes[k] = true
}

// EnabledHere reports whether this process enabled Neon Auth on the scope
// itself: nothing on it was inherited, and what it holds was made with it
// or since.
func (svc *Service) EnabledHere(s Scope) bool { return svc.enabled.has(keyOf(s)) }

func (e *enabledHere) has(k readKey) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.scopes[k]
}

// isNotFound reports whether err is a 404 (or wraps one).
func isNotFound(err error) bool { return errors.Is(err, apiclient.ErrNotFound) }
