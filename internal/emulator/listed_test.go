package emulator

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// listedRequest is one call of a list-backed kind's route: its key
// ("METHOD /template"), its method, its path under at (the Neon Auth's
// path) and its body.
type listedRequest struct {
	key, method, path string
	body              map[string]any
}

// requests are the calls of every route of kind k under auth (the route's
// template of a Neon Auth's path) and at (that path), on an integration of
// provider holding ex.held, each made to succeed: the list read, ex.added
// added, the held item updated and deleted one by one, and item clearID
// deleted through the list, in that order.
func (ex listedExample) requests(k listedServing, auth, at, provider, clearID string) []listedRequest {
	list, item := k.path, k.path+"/{"+k.itemParam+"}"
	held := k.path + "/" + url.PathEscape(ex.heldID)
	out := []listedRequest{
		{"GET " + auth + "/" + list, "GET", at + "/" + list, nil},
		{"POST " + auth + "/" + list, "POST", at + "/" + list, ex.body(ex.added, provider)},
	}
	if k.update != nil {
		out = append(out, listedRequest{"PATCH " + auth + "/" + item, "PATCH", at + "/" + held, ex.update})
	}
	if k.remove != nil {
		out = append(out, listedRequest{"DELETE " + auth + "/" + item, "DELETE", at + "/" + held, nil})
	}
	if k.clear != nil {
		out = append(out, listedRequest{"DELETE " + auth + "/" + list, "DELETE", at + "/" + list, ex.body(ex.clear(clearID), provider)})
	}
	return out
}

// A list-backed kind without a field of its own holds its items in
// BranchAuth.Listed: they survive the state file and copies, and a copy
// (a child branch's, the Go API's) is independent.
func TestAListedKindWithoutAFieldIsHeldUnderItsPath(t *testing.T) {
	type widget struct {
		Name string `json:"name"`
	}
	k := listedKind[widget, widget, noUpdate]{path: "widgets", id: func(w widget) string { return w.Name }}
	var a BranchAuth
	if got, err := k.items(&a); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("items of a fresh integration = %#v, %v; want an empty list", got, err)
	}
	k.keep(&a, []widget{{"a"}, {"b"}})
	raw, err := json.Marshal(&a)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"listed":{"widgets":[{"name":"a"},{"name":"b"}]}`) {
		t.Errorf("held as %s", raw)
	}
	var loaded BranchAuth
	if err := json.Unmarshal(raw, &loaded); err != nil {
		t.Fatal(err)
	}
	copied := loaded.clone()
	k.keep(&copied, []widget{{"c"}})
	for name, tc := range map[string]struct {
		a    *BranchAuth
		want []widget
	}{"loaded": {&loaded, []widget{{"a"}, {"b"}}}, "copied and changed": {&copied, []widget{{"c"}}}} {
		if got, err := k.items(tc.a); err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: items = %v, %v; want %v", name, got, err, tc.want)
		}
	}
	loaded.Listed["widgets"] = json.RawMessage(`{"name":"not a list"}`)
	if _, err := k.items(&loaded); err == nil {
		t.Error("items held in another shape are read without error")
	}
}

// Every list-backed kind is served at its paths in the branch-scoped family,
// and in the project-level one where it has it, with the routes its
// description gives it.
func TestListedKindsAreRouted(t *testing.T) {
	served := routeKeys()
	for _, k := range listedKinds {
		for _, fam := range []struct {
			auth string
			has  bool
		}{{"/projects/{project_id}/branches/{branch_id}/auth", true}, {"/projects/{project_id}/auth", k.projectLevel}} {
			list, item := fam.auth+"/"+k.path, fam.auth+"/"+k.path+"/{"+k.itemParam+"}"
			for key, want := range map[string]bool{
				"GET " + list: fam.has, "POST " + list: fam.has, "DELETE " + list: fam.has && k.clear != nil,
				"PATCH " + item: fam.has && k.update != nil, "DELETE " + item: fam.has && k.remove != nil,
			} {
				if got := slices.Contains(served, key); got != want {
					t.Errorf("%s: routed %v, want %v", key, got, want)
				}
			}
		}
	}
}

// Every list-backed kind, on a branch's Better Auth, lists what is added to
// it and no longer what is deleted from it.
func TestEveryListedKindLivesThroughItsRoutes(t *testing.T) {
	v := newEnv(t, Options{})
	v.enableOn(v.branch, "better_auth")
	for _, k := range listedKinds {
		t.Run(k.path, func(t *testing.T) {
			ex := k.example
			if ex.held == nil || ex.added == nil {
				t.Fatalf("the list-backed kind %s has no example of a held and an added item", k.path)
			}
			list, held := v.branchAuthPath(v.branch)+"/"+k.path, url.PathEscape(ex.heldID)
			lists := func(id string) bool {
				t.Helper()
				r := v.do("GET", list, nil)
				wantStatus(t, r, http.StatusOK)
				quoted, _ := json.Marshal(id)
				return strings.Contains(string(r.Body), string(quoted))
			}
			if lists(ex.heldID) || lists(ex.addedID) {
				t.Fatal("a fresh integration lists the examples")
			}
			want2xx(t, v.do("POST", list, ex.body(ex.held, "better_auth")))
			want2xx(t, v.do("POST", list, ex.body(ex.added, "better_auth")))
			if !lists(ex.heldID) || !lists(ex.addedID) {
				t.Fatal("the added items are not listed")
			}
			if k.update != nil {
				want2xx(t, v.do("PATCH", list+"/"+held, ex.update))
			}
			if k.remove != nil {
				want2xx(t, v.do("DELETE", list+"/"+held, nil))
				if lists(ex.heldID) {
					t.Error("an item deleted by its path is still listed")
				}
			}
			if k.clear != nil {
				want2xx(t, v.do("DELETE", list, ex.body(ex.clear(ex.addedID), "better_auth")))
				if lists(ex.addedID) {
					t.Error("an item deleted through the list is still listed")
				}
			}
		})
	}
}

// want2xx checks that r succeeded.
func want2xx(t *testing.T, r *response) {
	t.Helper()
	if r.Status < 200 || r.Status > 299 {
		t.Fatalf("status = %d, want a 2xx; body: %s", r.Status, r.Body)
	}
}
