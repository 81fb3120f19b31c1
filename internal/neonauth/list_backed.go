package neonauth

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// A list-backed kind's API described once: the objects of a kind that a
// scope holds many of, read from one list (trusted domains, OAuth
// providers). One ListBacked value per kind says how its objects are read,
// found, written, taken over, recovered and restored; the provider's
// lifecycle of every list-backed type calls it and knows no kind's requests.

// ListBacked is the API of a list-backed kind: O is the API's object, A what
// a configuration gives one (its input; struct{} for a kind whose objects
// are only their key).
type ListBacked[O any, A any] struct {
	// Kind names the kind in the take-over rules (MayTakeOver).
	Kind Kind
	// ProjectLevel: the kind also has endpoints in the deprecated
	// project-level family; otherwise only the branch-scoped API has it.
	ProjectLevel bool
	// Fetch is the scope's objects read by a request of their own: a kind
	// that gives it is read through a shared read of its own (see Objects),
	// which its writes forget. A kind whose list is shared otherwise gives
	// List instead, and its writes forget it themselves.
	Fetch func(c *apiclient.Client, ctx context.Context, s apiclient.Scope) ([]O, error)
	List  func(svc *Service, ctx context.Context, s Scope) ([]O, error)
	// Key is the key of an object listed; Holds (nil: equal keys) whether
	// an object listed on s is the object of key.
	Key   func(O) string
	Holds func(s Scope, o O, key string) bool

	// The writes (called through AddTo, UpdateOn and DeleteFrom, which
	// forget the kind's shared read). Add adds the object of key to s;
	// recovered: its answer was lost and a fresh read found it.
	Add func(svc *Service, ctx context.Context, s Scope, key string, in A) (o *O, recovered bool, err error)
	// Update sends in to the object of key (nil: every argument replaces
	// the object); it answers nil when it had nothing to send.
	Update func(svc *Service, ctx context.Context, s Scope, key string, in A) (*O, error)
	Delete func(svc *Service, ctx context.Context, s Scope, key string) error

	// Found finds the object of key that a create meets on s (nil: the
	// one listed); addBack: it was there when the apply began but is not
	// now, and a take-over adds it back.
	Found func(svc *Service, ctx context.Context, s Scope, key string) (o *O, addBack bool, err error)
	// ConflictFound: a 409 to the add means the object is there (taken
	// over); otherwise the create fails with the import command.
	ConflictFound bool
	// TakeOver gives in to the object found on s, inherited as to says
	// (nil: it stays as found, recorded with nothing). restoring: a destroy
	// will restore what was found.
	TakeOver func(svc *Service, ctx context.Context, s Scope, found *O, in A, to TakeOver, restoring bool) (TakenOver[O], error)
	// Recover settles an add of in whose answer was lost but whose object
	// found is listed (nil: found is the create's); importID names it in a
	// refusal.
	Recover func(svc *Service, ctx context.Context, s Scope, found *O, in A, importID string) (*O, error)
	// Restore is the restoring destroy of the object of key taken over with
	// the record found, now holding in (nil: it stays as it is); wrote: it
	// sent a request, and err is that request's.
	Restore func(svc *Service, ctx context.Context, s Scope, key string, found json.RawMessage, in A) (wrote bool, err error)
}

// TakenOver is what taking over an object did: the object as the API now
// shows it, the record kept for its restore, and in words what was found
// and what a restoring destroy will do.
type TakenOver[O any] struct {
	Object *O
	// Found is recorded with the take-over and given back to Restore.
	Found any
	// What was found ("google OAuth provider (type shared)"), and why it
	// counts as inherited ("which holds the same google OAuth provider").
	What, Held string
	// Did is what the take-over changed, when it changed what a destroy
	// cannot give back ("Its own OAuth app was replaced by the shared
	// keys; "), and OnDestroy what a restoring destroy does with it.
	Did, OnDestroy string
}

// TakeOverFailed is a take-over whose write failed: Doing says what it was
// sending.
type TakeOverFailed struct {
	Doing string
	Err   error
}

func (e *TakeOverFailed) Error() string { return e.Doing + ": " + e.Err.Error() }

func (e *TakeOverFailed) Unwrap() error { return e.Err }

// TakeOverRefused is a take-over that would change what a restoring destroy
// could not give back: its text says what and how to go on.
type TakeOverRefused struct{ Summary, Why string }

func (e *TakeOverRefused) Error() string { return e.Why }

// Listed reports whether the list of s holds the object of key, read
// through the shared read, and keeps what the list says of it in *found
// (when found is not nil).
func (k *ListBacked[O, A]) Listed(svc *Service, s Scope, key string, found **O) Listed {
	return func(ctx context.Context) (bool, error) {
		os, err := k.Objects(svc, ctx, s)
		i := slices.IndexFunc(os, func(o O) bool { return k.holds(s, o, key) })
		if i >= 0 && found != nil {
			*found = &os[i]
		}
		return i >= 0, err
	}
}

// FoundBy is the object of key that a create meets on s: nil when there is
// none or the list cannot say (the add then tells).
func (k *ListBacked[O, A]) FoundBy(svc *Service, ctx context.Context, s Scope, key string) (*O, bool, error) {
	if k.Found != nil {
		return k.Found(svc, ctx, s, key)
	}
	var found *O
	if listed, err := k.Listed(svc, s, key, &found)(ctx); err != nil || !listed {
		return nil, false, nil //nolint:nilerr // the add says what it meets
	}
	return found, false, nil
}

func (k *ListBacked[O, A]) holds(s Scope, o O, key string) bool {
	if k.Holds != nil {
		return k.Holds(s, o, key)
	}
	return k.Key(o) == key
}

// Objects is the scope's objects: its List, or its Fetch through the
// kind's shared read.
func (k *ListBacked[O, A]) Objects(svc *Service, ctx context.Context, s Scope) ([]O, error) {
	if k.List != nil {
		return k.List(svc, ctx, s)
	}
	return kindRead[O](svc, k.Kind).get(ctx, keyOf(s), func(ctx context.Context) ([]O, error) {
		return k.Fetch(svc.client, ctx, s.Scope)
	})
}

// AddTo is Add, which then forgets the kind's shared read.
func (k *ListBacked[O, A]) AddTo(svc *Service, ctx context.Context, s Scope, key string, in A) (*O, bool, error) {
	o, recovered, err := k.Add(svc, ctx, s, key, in)
	k.forget(svc, s)
	return o, recovered, err
}

// UpdateOn is Update, which then forgets the kind's shared read.
func (k *ListBacked[O, A]) UpdateOn(svc *Service, ctx context.Context, s Scope, key string, in A) (*O, error) {
	o, err := k.Update(svc, ctx, s, key, in)
	k.forget(svc, s)
	return o, err
}

// DeleteFrom is Delete, which then forgets the kind's shared read.
func (k *ListBacked[O, A]) DeleteFrom(svc *Service, ctx context.Context, s Scope, key string) error {
	err := k.Delete(svc, ctx, s, key)
	k.forget(svc, s)
	return err
}

// forget forgets the scope's shared read of the kind, when it has one of
// its own (a kind with List forgets its own).
func (k *ListBacked[O, A]) forget(svc *Service, s Scope) {
	if k.List == nil {
		kindRead[O](svc, k.Kind).invalidate(keyOf(s))
	}
}

// kindReads are the shared reads of the list-backed kinds read by their
// Fetch, one per kind, made on first use.
type kindReads struct {
	maxAge time.Duration
	mu     sync.Mutex
	byKind map[Kind]any
}

// kindRead is the shared read of the kind k, whose objects are O.
func kindRead[O any](svc *Service, k Kind) *sharedRead[[]O] {
	r := svc.reads.kinds
	r.mu.Lock()
	defer r.mu.Unlock()
	if read, ok := r.byKind[k].(*sharedRead[[]O]); ok {
		return read
	}
	read := newSharedRead[[]O](r.maxAge)
	r.byKind[k] = read
	return read
}

// Object names the object of key for the take-over rules (MayTakeOver),
// which look for it on the parent branch in the kind's list.
func (k *ListBacked[O, A]) Object(key string) Object {
	return Object{Kind: k.Kind, Key: key, heldBy: func(svc *Service, s Scope) Listed { return k.Listed(svc, s, key, nil) }}
}
