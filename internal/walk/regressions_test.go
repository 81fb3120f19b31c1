package walk

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// Walks that once broke an invariant, shrunk to their fewest steps and
// kept as tests (see CONTRIBUTING, "Random walks"), and the walk's own
// check that it fails when the server breaks an invariant.

// A preview whose configuration has no integration of its own, its objects
// on the Neon Auth it inherited, still names its branch after the platform
// deleted it: every create is refused for the one cause.
func TestWalkRegression_deletedBranchOneCause(t *testing.T) {
	replayWalk(t, acctest.ModeBranch, []walkStep{
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindIntegration, Variant: 1}},
		{Op: walkOpBranch, Branch: "preview1", With: true},
		{Op: walkOpPut, Branch: "preview1", Object: walkObject{Kind: kindDomain, Key: acctest.PreviewOrigin}},
		{Op: walkOpPut, Branch: "preview1", Object: walkObject{Kind: kindOAuth, Key: "github"}},
		{Op: walkOpPut, Branch: "preview1", Object: walkObject{Kind: kindUser, Key: walkEmails[1]}},
		{Op: walkOpDeleteBranch, Branch: "preview1", With: true},
	})
}

// inherited_auth = "refuse" on a preview that inherited an SMTP server:
// the shared server the configuration asks for is refused, not written.
func TestWalkRegression_refuseKeepsTheInheritedSMTPServer(t *testing.T) {
	replayWalk(t, acctest.ModeBranch, []walkStep{
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindIntegration}},
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindEmail, Variant: 1}},
		{Op: walkOpBranch, Branch: "preview1"},
		{Op: walkOpSetting, Branch: "preview1", Setting: walkSettingRefuse, With: true},
		{Op: walkOpPut, Branch: "preview1", Object: walkObject{Kind: kindEmail}, Resolve: walkResolveImport},
	})
}

// A JWKS trusted for a preview that the platform deleted stays trusted by
// the project: the plan warns that the branch is gone, and destroy deletes
// the JWKS.
func TestWalkRegression_jwksOfADeletedBranch(t *testing.T) {
	replayWalk(t, acctest.ModeBranch, []walkStep{
		{Op: walkOpBranch, Branch: "preview1"},
		{Op: walkOpPut, Branch: "preview1", Object: walkObject{Kind: kindJWKS, Key: walkJWKS[1]}},
		{Op: walkOpDeleteBranch, Branch: "preview1", With: true},
	})
}

// Domains moved from one neon_auth_domain each to neon_auth_domains in
// one apply, with inherited_auth = "refuse": the list finds them on the
// branch, as its plan did, and refuses them with the import command.
func TestWalkRegression_movedToTheListWhileRefusing(t *testing.T) {
	replayWalk(t, acctest.ModeBranch, []walkStep{
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindIntegration}},
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindDomain, Key: walkDomains[0]}},
		{Op: walkOpSetting, Branch: "production", Setting: walkSettingRefuse, With: true},
		{Op: walkOpSwitch, Branch: "production", Resolve: walkResolveImport},
	})
}

// Roles given to a user a preview took over are refused, as documented
// (no endpoint tells the user's id); the walk first expected only a
// create with roles to be.
func TestWalkRegression_rolesOfAUserTakenOver(t *testing.T) {
	replayWalk(t, acctest.ModeBranch, []walkStep{
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindIntegration, Variant: 2}},
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindUser, Key: walkEmails[0]}, Resolve: walkResolveRemove},
		{Op: walkOpBranch, Branch: "preview1"},
		{Op: walkOpPut, Branch: "preview1", Object: walkObject{Kind: kindUser, Key: walkEmails[0], Variant: 1}, Resolve: walkResolveDisposable},
		{Op: walkOpPut, Branch: "preview1", Object: walkObject{Kind: kindUser, Key: walkEmails[0], Variant: 1}, Resolve: walkResolveImport},
	})
}

// Domains moved from neon_auth_domains to a neon_auth_domain each with
// inherited_auth = "refuse": the creates find them and are refused, hold
// nothing, and the list's destroy removes them whichever runs first; the
// next apply creates them.
func TestWalkRegression_movedToEachDomainWhileRefusing(t *testing.T) {
	replayWalk(t, acctest.ModeProject, []walkStep{
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindIntegration}},
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindDomain, Key: walkDomains[1]}},
		{Op: walkOpSwitch, Branch: "production"},
		{Op: walkOpDestroy, Branch: "production"},
		{Op: walkOpSetting, Branch: "production", With: true, Setting: walkSettingRefuse},
		{Op: walkOpSwitch, Branch: "production", Resolve: walkResolveImport},
	})
}

// A walk fails, naming its step, when the server breaks an invariant: here
// a list of the whitelist that leaves out the second of two domains.
func TestWalk_aServerThatLosesADomainFailsTheWalk(t *testing.T) {
	dropSecond := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/auth/domains") {
				next.ServeHTTP(w, r)
				return
			}
			rec := &recorded{header: http.Header{}}
			next.ServeHTTP(rec, r)
			var body map[string][]json.RawMessage
			if err := json.Unmarshal(rec.body.Bytes(), &body); err == nil && len(body["domains"]) == 2 {
				body["domains"] = body["domains"][:1]
				out, _ := json.Marshal(body)
				rec.body = *bytes.NewBuffer(out)
				rec.header.Set("Content-Length", strconv.Itoa(len(out)))
			}
			for k, v := range rec.header {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.status)
			_, _ = io.Copy(w, &rec.body)
		})
	}
	t.Parallel()
	steps := []walkStep{
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindIntegration}},
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindDomain, Key: walkDomains[0]}},
		{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindDomain, Key: walkDomains[1]}},
	}
	r := newWalkRun(t, acctest.ModeBranch, dropSecond)
	v := r.run(steps)
	if v == nil || v.step != 2 {
		t.Fatalf("the walk reports %v; want a violation at step 2, where the list leaves out the second domain", v)
	}
	// The report is printed: it names the API key instead of showing it.
	if strings.Contains(v.config, r.env.Key) || !strings.Contains(v.config, "(the API key)") {
		t.Errorf("the report's configuration shows the API key, or does not say where it goes:\n%s", v.config)
	}
	t.Logf("as wanted, the walk broke at step %d: %s", v.step, strings.SplitN(v.what, "\n", 2)[0])
}

// recorded is an answer held back to be rewritten.
type recorded struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorded) Header() http.Header         { return r.header }
func (r *recorded) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorded) WriteHeader(status int)      { r.status = status }
