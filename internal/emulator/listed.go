package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

// The list-backed kinds of a branch's Neon Auth, generically: objects among
// many, read from one list (…/auth/<path>), added to it, and, where the kind
// has them, updated and deleted one by one (…/auth/<path>/{id}). A kind is
// one listedKind value in its listed_<name>.go, named in listedKinds; its
// routes (branch-scoped, and project-level where it has them), its handlers,
// where its items are held, how the API shows them and the calls the tests
// make of them all come from that value. What differs between kinds is a
// hook of the value.

// listedKind describes a list-backed kind: T is an item as held in the
// state, A the body of an add, U the body of an update (noUpdate for a kind
// without one).
type listedKind[T, A, U any] struct {
	path string // of the list under …/auth, as the reference spells it
	// itemParam is the path parameter naming one item, under which the
	// kind's items are deleted (and updated, with change); "" when the kind
	// has no routes of its own per item.
	itemParam string
	// projectLevel: also served under /projects/{project_id}/auth, the
	// deprecated family (see request_target.go).
	projectLevel bool

	// field is where a BranchAuth holds the items; nil: as JSON under path
	// in BranchAuth.Listed.
	field func(a *BranchAuth) *[]T
	// id is what names an item: in its path, and among the others (two
	// items with one id are one item, added twice).
	id func(item T) string
	// listed is the body of GET on the list; shown answers an add or an
	// update (nil: without body).
	listed func(c *call, items []T) any
	shown  func(item T) any

	// asked is the item an add's body asks for, or the 400 of a body the
	// reference accepts but the API refuses.
	asked func(req A) (T, error)
	// provider, when set, is the auth provider an add's body names: another
	// than the integration's is a missing integration (404).
	provider  func(req A) string
	addStatus int
	// taken is the 409's message when an item with the id is held, with %s
	// for the id; unless again says that the add answers as a new one.
	taken string
	again func(c *call, held, asked T) bool
	// admit refuses a new item for what the API knows beyond the body.
	admit func(e *Emulator, asked T) error

	// change, when set, serves PATCH …/{itemParam}: the change a valid
	// body makes to the item, or its 400.
	change func(id string, req U) (func(item *T), error)
	// missing is the message of the 404 for an item that is not held.
	missing string
	// deleted is the status of a delete (nil: 200); goneDeleted: in the
	// branch-scoped family, deleting an item that is not held succeeds.
	deleted     func(e *Emulator) int
	goneDeleted bool
	// clear, when set, serves DELETE on the list itself.
	clear handlerFunc

	// example is how to call its routes with success.
	example listedExample
}

// listedExample is how to call a list-backed kind's routes with success, as
// the tests do: held is the add body of an item that the
// authorization fixture holds, added that of another; update and clear are
// the bodies of PATCH …/{id} and of DELETE on the list, for a kind with
// them. With namesProvider, the add and clear bodies also name the
// integration's auth_provider. From it come the kind's rows in authzRoutes,
// its steps in TestEveryRouteConformsToTheOpenAPIDocument and
// TestEveryListedKindLivesThroughItsRoutes.
type listedExample struct {
	held, added     map[string]any
	heldID, addedID string
	update          map[string]any
	clear           func(id string) map[string]any
	namesProvider   bool
}

// body is b for an integration of provider.
func (ex listedExample) body(b map[string]any, provider string) map[string]any {
	out := map[string]any{}
	for k, v := range b {
		out[k] = v
	}
	if ex.namesProvider {
		out["auth_provider"] = provider
	}
	return out
}

// noUpdate is the update body of a kind that has no update.
type noUpdate = struct{}

// listedServing is what the router and the tests know of a list-backed
// kind: its paths and its handlers (nil: the route does not exist).
type listedServing struct {
	path, itemParam                  string
	projectLevel                     bool
	list, add, update, remove, clear handlerFunc
	example                          listedExample
}

// listedKinds are the list-backed kinds the emulator serves, each described
// in its listed_<name>.go.
var listedKinds = []listedServing{domainsKind.serving(), oauthProvidersKind.serving()}

// serving is what the router and the tests know of the kind.
func (k listedKind[T, A, U]) serving() listedServing {
	s := listedServing{path: k.path, itemParam: k.itemParam, projectLevel: k.projectLevel, list: k.list, add: k.add, clear: k.clear,
		example: k.example}
	if k.itemParam != "" {
		s.remove = k.remove
		if k.change != nil {
			s.update = k.update
		}
	}
	return s
}

// listedRoutes are the routes of every list-backed kind under auth, the
// template of a Neon Auth's path; projectLevel: the deprecated family's,
// of the kinds that have them.
func listedRoutes(auth string, projectLevel bool) []apiRoute {
	var out []apiRoute
	for _, k := range listedKinds {
		if projectLevel && !k.projectLevel {
			continue
		}
		list := auth + "/" + k.path
		item := list + "/{" + k.itemParam + "}"
		for _, rt := range []apiRoute{
			{"GET " + list, k.list}, {"POST " + list, k.add}, {"DELETE " + list, k.clear},
			{"PATCH " + item, k.update}, {"DELETE " + item, k.remove},
		} {
			if rt.handler != nil {
				out = append(out, rt)
			}
		}
	}
	return out
}

// items are the kind's items that a holds, never nil.
func (k listedKind[T, A, U]) items(a *BranchAuth) ([]T, error) {
	if k.field != nil {
		return orEmpty(*k.field(a)), nil
	}
	var out []T
	if raw, ok := a.Listed[k.path]; ok {
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("emulator: the %s held: %w", k.path, err)
		}
	}
	return orEmpty(out), nil
}

// keep makes items the kind's items that a holds.
func (k listedKind[T, A, U]) keep(a *BranchAuth, items []T) {
	if k.field != nil {
		*k.field(a) = items
		return
	}
	if a.Listed == nil {
		a.Listed = map[string]json.RawMessage{}
	}
	a.Listed[k.path] = mustEncode(items)
}

func (k listedKind[T, A, U]) index(items []T, id string) int {
	return slices.IndexFunc(items, func(item T) bool { return k.id(item) == id })
}

// answer is the body answering an add or an update of item (nil: none).
func (k listedKind[T, A, U]) answer(item T) any {
	if k.shown == nil {
		return nil
	}
	return k.shown(item)
}

// list serves GET …/auth/<path>.
func (k listedKind[T, A, U]) list(e *Emulator, c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		items, err := k.items(a)
		if err != nil {
			return nil, err
		}
		return k.listed(c, items), nil
	})
}

// add serves POST …/auth/<path>: a new item, or 409 for one whose id is
// held (unless again).
func (k listedKind[T, A, U]) add(e *Emulator, c *call) error {
	var req A
	if _, err := c.decode(&req); err != nil {
		return err
	}
	asked, err := k.asked(req)
	if err != nil {
		return err
	}
	op := authOp{status: k.addStatus, save: true}
	if k.provider != nil {
		op.provider = k.provider(req)
	}
	return e.serveAuth(c, op, func(_ authScope, a *BranchAuth) (any, error) {
		items, err := k.items(a)
		if err != nil {
			return nil, err
		}
		if i := k.index(items, k.id(asked)); i >= 0 {
			if k.again != nil && k.again(c, items[i], asked) {
				return k.answer(items[i]), nil
			}
			return nil, conflict(k.taken, k.id(asked))
		}
		if k.admit != nil {
			if err := k.admit(e, asked); err != nil {
				return nil, err
			}
		}
		k.keep(a, append(items, asked))
		return k.answer(asked), nil
	})
}

// update serves PATCH …/auth/<path>/{itemParam}: 200 with the changed item.
func (k listedKind[T, A, U]) update(e *Emulator, c *call) error {
	var req U
	if _, err := c.decode(&req); err != nil {
		return err
	}
	id := c.param(k.itemParam)
	apply, err := k.change(id, req)
	if err != nil {
		return err
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		items, err := k.items(a)
		if err != nil {
			return nil, err
		}
		i := k.index(items, id)
		if i < 0 {
			return nil, &apiError{status: http.StatusNotFound, msg: k.missing}
		}
		apply(&items[i])
		k.keep(a, items)
		return k.answer(items[i]), nil
	})
}

// remove serves DELETE …/auth/<path>/{itemParam}, without body.
func (k listedKind[T, A, U]) remove(e *Emulator, c *call) error {
	status := http.StatusOK
	if k.deleted != nil {
		status = k.deleted(e)
	}
	return e.changeAuth(c, status, func(_ authScope, a *BranchAuth) (any, error) {
		items, err := k.items(a)
		if err != nil {
			return nil, err
		}
		i := k.index(items, c.param(k.itemParam))
		switch {
		case i < 0 && k.goneDeleted && branchFamily(c):
			return nil, nil
		case i < 0:
			return nil, &apiError{status: http.StatusNotFound, msg: k.missing}
		}
		k.keep(a, slices.Delete(items, i, i+1))
		return nil, nil
	})
}
