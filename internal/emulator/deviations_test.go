package emulator

import (
	"net/http"
	"testing"
)

// With DeviationOAuthProviderDelete204, deleting an OAuth provider answers
// 204 without a body in both families, and deletes it; without it the
// answer is the reference's 200.
func TestOAuthProviderDeleteAnswers204WhenAskedTo(t *testing.T) {
	for _, c := range []struct {
		deviations []Deviation
		want       int
	}{{nil, http.StatusOK}, {[]Deviation{DeviationOAuthProviderDelete204}, http.StatusNoContent}} {
		v := newEnv(t, Options{Deviations: c.deviations})
		br := "/projects/" + v.project + "/branches/" + v.branch + "/auth"
		wantStatus(t, v.do("POST", br, map[string]any{"auth_provider": "better_auth"}), http.StatusCreated)
		for path, id := range map[string]string{br + "/oauth_providers": "github", "/projects/" + v.project + "/auth/oauth_providers": "google"} {
			wantStatus(t, v.do("POST", path, map[string]any{"id": id}), http.StatusOK)
			r := v.do("DELETE", path+"/"+id, nil)
			wantStatus(t, r, c.want)
			wantNoBody(t, r)
			if list := digArray(t, v.do("GET", path, nil).JSON(), "providers"); len(list) != 0 {
				t.Errorf("%v: after the delete %s lists %v", c.deviations, path, list)
			}
		}
	}
}

func TestDeviationsAreNamed(t *testing.T) {
	got, err := ParseDeviations(" oauth-provider-delete-204 ,")
	if err != nil || len(got) != 1 || got[0] != DeviationOAuthProviderDelete204 {
		t.Errorf("ParseDeviations = %v, %v", got, err)
	}
	if got, err := ParseDeviations(""); err != nil || len(got) != 0 {
		t.Errorf(`ParseDeviations("") = %v, %v; want none`, got, err)
	}
	if _, err := ParseDeviations("delete-everything"); err == nil {
		t.Error("an unknown deviation was accepted")
	}
}
