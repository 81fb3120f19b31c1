package apiclient

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"
)

// widget is the object of a made-up list-backed endpoint, …/auth/widgets.
type widget struct {
	ID   string `json:"id"`
	Size int    `json:"size,omitempty"`
}

var widgets = AuthList[struct {
	Widgets []widget `json:"widgets"`
}, widget]{
	Path: "widgets", Param: "widget_id",
	Items: func(l struct {
		Widgets []widget `json:"widgets"`
	}) []widget {
		return l.Widgets
	},
	Key: func(w widget) string { return w.ID },
}

// scriptedClient is a client of a server that answers each method with the
// next of its steps (see script).
func scriptedClient(t *testing.T, steps map[string][]string) (*Client, *script) {
	t.Helper()
	sc := &script{steps: steps, sent: map[string]int{}}
	srv := httptest.NewServer(sc)
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL + "/api/v2/", APIKey: "k",
		Retry:     RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond, Timeout: 10 * time.Second},
		RateLimit: RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return c, sc
}

// An AuthList reads, adds, updates and deletes the objects of its endpoint,
// and settles a lost answer by its list: an add it finds listed is
// recovered as listed, a delete it no longer finds is done.
func TestAuthList_writesAndTheirLostAnswers(t *testing.T) {
	ctx := context.Background()
	const listedA = `{"widgets":[{"id":"a","size":2}]}`
	for _, tc := range []struct {
		name      string
		steps     map[string][]string
		op        func(c *Client) (*widget, bool, error)
		want      *widget
		recovered bool
		sent      map[string]int
	}{
		{name: "list", steps: map[string][]string{"GET": {listedA}},
			op: func(c *Client) (*widget, bool, error) {
				ws, err := widgets.List(c, ctx, stubScope)
				if len(ws) != 1 {
					return nil, false, err
				}
				return &ws[0], false, err
			}, want: &widget{ID: "a", Size: 2}, sent: map[string]int{"GET": 1}},
		{name: "add answered", steps: map[string][]string{"POST": {`{"id":"a","size":1}`}},
			op:   func(c *Client) (*widget, bool, error) { return widgets.Add(c, ctx, stubScope, "a", widget{ID: "a"}) },
			want: &widget{ID: "a", Size: 1}, sent: map[string]int{"POST": 1}},
		{name: "add lost, then listed", steps: map[string][]string{"POST": {"lose"}, "GET": {listedA}},
			op:   func(c *Client) (*widget, bool, error) { return widgets.Add(c, ctx, stubScope, "a", widget{ID: "a"}) },
			want: &widget{ID: "a", Size: 2}, recovered: true, sent: map[string]int{"POST": 1, "GET": 1}},
		{name: "add lost, not listed, re-sent and refused as there", steps: map[string][]string{"POST": {"lose", "409"},
			"GET": {`{"widgets":[]}`}},
			op:        func(c *Client) (*widget, bool, error) { return widgets.Add(c, ctx, stubScope, "a", widget{ID: "a"}) },
			recovered: true, sent: map[string]int{"POST": 2, "GET": 1}},
		{name: "update re-sent after a 502", steps: map[string][]string{"PATCH": {"502", `{"id":"a","size":3}`}},
			op: func(c *Client) (*widget, bool, error) {
				w, err := widgets.Update(c, ctx, stubScope, "a", widget{Size: 3})
				return w, false, err
			}, want: &widget{ID: "a", Size: 3}, sent: map[string]int{"PATCH": 2}},
		{name: "delete lost, then not listed", steps: map[string][]string{"DELETE": {"lose"}, "GET": {`{"widgets":[]}`}},
			op:   func(c *Client) (*widget, bool, error) { return nil, false, widgets.Delete(c, ctx, stubScope, "a") },
			sent: map[string]int{"DELETE": 1, "GET": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sc := scriptedClient(t, tc.steps)
			got, recovered, err := tc.op(c)
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want || recovered != tc.recovered {
				t.Errorf("answered %+v (recovered %v), want %+v (recovered %v)", got, recovered, tc.want, tc.recovered)
			}
			for method, want := range tc.sent {
				if n := sc.count(method); n != want {
					t.Errorf("%s sent %d times, want %d", method, n, want)
				}
			}
		})
	}
}
