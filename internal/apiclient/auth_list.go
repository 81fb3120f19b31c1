package apiclient

import (
	"context"
	"net/http"
	"slices"
)

// A list-backed endpoint of a scope's Neon Auth described once: a new kind of
// object that a scope holds many of is one AuthList value, not four client
// methods.

// AuthList is the endpoint …/auth/<Path> of a scope, whose objects O the GET
// answers inside an L (Items picks them out): POST adds one, PATCH and DELETE
// …/<Path>/{<Param>} update and delete the one of a key (Key says an
// object's key).
type AuthList[L any, O any] struct {
	Path, Param string
	Items       func(L) []O
	Key         func(O) string
}

func (e AuthList[L, O]) endpoint(s Scope) endpoint { return s.auth().sub(e.Path) }

// List reads the scope's objects: GET …/auth/<Path>.
func (e AuthList[L, O]) List(c *Client, ctx context.Context, s Scope) ([]O, error) {
	var out L
	if err := c.do(ctx, call{method: http.MethodGet, ep: e.endpoint(s), out: &out}); err != nil {
		return nil, err
	}
	return e.Items(out), nil
}

// listed reads the list afresh and returns the object of key, or nil.
func (e AuthList[L, O]) listed(c *Client, ctx context.Context, s Scope, key string) (*O, error) {
	os, err := e.List(c, ctx, s)
	if i := slices.IndexFunc(os, func(o O) bool { return e.Key(o) == key }); i >= 0 {
		return &os[i], err
	}
	return nil, err
}

// Add adds the object of key with body: POST …/auth/<Path>. When the answer
// is lost, a fresh list decides; recovered reports an object added
// although its answer was lost, answered as listed, or nil when a 409 to
// the re-send said it is there before a list showed it.
func (e AuthList[L, O]) Add(c *Client, ctx context.Context, s Scope, key string, body any) (o *O, recovered bool, err error) {
	var out O
	var found *O
	recovered, err = c.write(ctx, writeCall{
		call: call{method: http.MethodPost, ep: e.endpoint(s), body: body, out: &out},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			found, err = e.listed(c, ctx, s, key)
			return found != nil, err
		},
	})
	switch {
	case err != nil:
		return nil, false, err
	case recovered:
		return found, true, nil
	}
	return &out, false, nil
}

// Update sends body to the object of key: PATCH …/auth/<Path>/{<Param>},
// which sets what it sends, so sending it again is harmless.
func (e AuthList[L, O]) Update(c *Client, ctx context.Context, s Scope, key string, body any) (*O, error) {
	var out O
	if _, err := c.write(ctx, writeCall{call: call{method: http.MethodPatch, ep: e.endpoint(s).param(e.Param, key), body: body, out: &out},
		rule: resendFreely}); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete removes the object of key: DELETE …/auth/<Path>/{<Param>}. When
// the answer is lost, a fresh list decides.
func (e AuthList[L, O]) Delete(c *Client, ctx context.Context, s Scope, key string) error {
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodDelete, ep: e.endpoint(s).param(e.Param, key)},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			found, err := e.listed(c, ctx, s, key)
			return found == nil, err
		},
	})
	return err
}
