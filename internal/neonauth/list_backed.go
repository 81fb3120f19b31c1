package neonauth

import (
	"context"
	"encoding/json"
	"slices"
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
	// List is the scope's objects, through the shared read.
	List func(svc *Service, ctx context.Context, s Scope) ([]O, error)
	// Key is the key of an object listed; Holds (nil: equal keys) whether
	// an object listed on s is the object of key.
	Key   func(O) string
	Holds func(s Scope, o O, key string) bool

	// Add adds the object of key to s; recovered: its answer was lost and
	// a fresh read found it.
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
		os, err := k.List(svc, ctx, s)
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
