package acctest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
)

// The summary counts each deviation, names the tests that met it, and
// lists the most frequent first.
func TestUnitDeviationsAreSummedUp(t *testing.T) {
	l := &deviationLog{byKey: map[string]*deviation{}}
	if got := l.summary("https://api.example.com/api/v2/"); !strings.Contains(got, "no deviation recorded") {
		t.Errorf("without deviations: %q", got)
	}
	del := apispec.Violation{Method: "DELETE", Route: "/projects/{project_id}/auth/oauth_providers/{oauth_provider_id}", Status: 204,
		Kind: "response", Problem: "status 204 is not declared"}
	list := apispec.Violation{Method: "GET", Route: "/projects/{project_id}/auth/domains", Status: 200, Kind: "response",
		Problem: "response body /domains/0/auth_provider: enum"}
	l.add("TestA", list)
	l.add("TestA", del)
	l.add("TestB", del)
	l.add("TestB", del)
	got := l.summary("https://api.example.com/api/v2/")
	want := "https://api.example.com/api/v2/ deviated from the API reference 4 times, in 2 ways; recorded, not failures " +
		"(the provider's handling of each is what the tests checked):\n" +
		"  " + del.String() + "\n    3× in TestA, TestB\n" +
		"  " + list.String() + "\n    1× in TestA\n"
	if got != want {
		t.Errorf("summary =\n%s\nwant\n%s", got, want)
	}
}

// The packages of a run, each a process of its own, sum up their
// deviations together through the run's record: the counts add up, and a
// test is named once.
func TestUnitDeviationsOfEveryPackageAddUp(t *testing.T) {
	del := apispec.Violation{Method: "DELETE", Route: "/projects/{project_id}/auth/oauth_providers/{oauth_provider_id}", Status: 204,
		Kind: "response", Problem: "status 204 is not declared"}
	list := apispec.Violation{Method: "GET", Route: "/projects/{project_id}/auth/domains", Status: 200, Kind: "response",
		Problem: "response body /domains/0/auth_provider: enum"}
	first, second := &deviationLog{byKey: map[string]*deviation{}}, &deviationLog{byKey: map[string]*deviation{}}
	first.add("TestA", list)
	first.add("TestA", del)
	second.add("TestWalk", del)
	second.add("TestA", del)
	all := &deviationLog{byKey: map[string]*deviation{}}
	for _, l := range []*deviationLog{first, second} {
		raw, err := json.Marshal(l.records())
		if err != nil {
			t.Fatal(err)
		}
		var rs []deviationRecord
		if err := json.Unmarshal(raw, &rs); err != nil {
			t.Fatal(err)
		}
		all.addRecords(rs)
	}
	got := all.summary("https://api.example.com/api/v2/")
	want := "https://api.example.com/api/v2/ deviated from the API reference 4 times, in 2 ways; recorded, not failures " +
		"(the provider's handling of each is what the tests checked):\n" +
		"  " + del.String() + "\n    3× in TestA, TestWalk\n" +
		"  " + list.String() + "\n    1× in TestA\n"
	if got != want {
		t.Errorf("summary =\n%s\nwant\n%s", got, want)
	}
}
