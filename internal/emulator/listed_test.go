package emulator

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

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
