package walk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// How a walk's steps run: each changes the model (model_test.go), runs the
// Terraform CLI or the platform's API calls it stands for, and checks the
// invariants against the model's predictions (rules_test.go). A broken
// invariant is a walkViolation; a step whose preconditions do not hold (a
// shrunk walk may lack the step that made a branch) is skipped.

// walkStep is one thing users or platforms do. Its fields are plain data,
// so that a walk prints as Go (GoString) and a minimal failing walk can be
// pasted into a test (replayWalk).
type walkStep struct {
	// Op is what happens (the walkOp… constants).
	Op string
	// Branch is the branch it happens on, by its name in the walk.
	Branch string
	// Object is what a put, remove, drift or import declares or changes.
	Object walkObject
	// With qualifies the op: a preview made with its origin pre-set; a
	// deleted branch still named for a step; a drift followed by
	// `apply -refresh-only`; the value of a provider setting.
	With bool
	// Setting is the provider setting a walkOpSetting changes.
	Setting string
	// Resolve is what the user does when an apply is refused: import the
	// object, make the branch disposable, or remove the object.
	Resolve string
	// Faults runs the step's applies while the emulator injects faults and
	// loses answers (in-process only).
	Faults bool
}

// The ops of a step.
const (
	walkOpPut          = "put"           // declare an object, or declare it otherwise, and apply
	walkOpRemove       = "remove"        // stop declaring an object, and apply
	walkOpSetting      = "setting"       // change restore_on_destroy or inherited_auth, and apply
	walkOpSwitch       = "switch"        // declare the domains as one list instead of one each, or back, and apply
	walkOpBranch       = "branch"        // the platform makes a preview branch from production
	walkOpDeleteBranch = "delete_branch" // the platform deletes a preview branch
	walkOpDrift        = "drift"         // a person changes an object behind Terraform's back
	walkOpRefresh      = "refresh"       // apply -refresh-only
	walkOpImport       = "import"        // something makes an object outside Terraform; it is imported
	walkOpDestroy      = "destroy"       // destroy, then apply again
)

// The provider settings a walkOpSetting changes.
const (
	walkSettingRestore = "restore_on_destroy"
	walkSettingRefuse  = "inherited_auth"
)

// What the user does about a refused create.
const (
	walkResolveImport     = "import"
	walkResolveDisposable = "disposable"
	walkResolveRemove     = "remove"
)

// GoString writes the step as a Go literal.
func (s walkStep) GoString() string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	add("Op: %q", s.Op)
	add("Branch: %q", s.Branch)
	if s.Object != (walkObject{}) {
		add("Object: walkObject{Kind: %q, Key: %q, Variant: %d}", s.Object.Kind, s.Object.Key, s.Object.Variant)
	}
	if s.With {
		add("With: true")
	}
	if s.Setting != "" {
		add("Setting: %q", s.Setting)
	}
	if s.Resolve != "" {
		add("Resolve: %q", s.Resolve)
	}
	if s.Faults {
		add("Faults: true")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// walkViolation is a broken invariant: the step (its index in the walk)
// and the configuration it applied.
type walkViolation struct {
	step   int
	what   string
	config string
	// log is what the walk did up to the violation.
	log []string
}

func (v *walkViolation) Error() string { return fmt.Sprintf("step %d: %s", v.step, v.what) }

// where names the step of steps that broke the invariant: one of them, or
// the destroys that end the walk (step len(steps)).
func (v *walkViolation) where(steps []walkStep) string {
	if v.step < len(steps) {
		return fmt.Sprintf("step %d of %d: %s", v.step, len(steps), steps[v.step].GoString())
	}
	return fmt.Sprintf("the destroys that end the walk, after its %d steps", len(steps))
}

// walkRun is one walk in progress on its own place on the API.
type walkRun struct {
	t     *testing.T
	env   *acctest.Env
	world *walkWorld
	// step is the index of the step running.
	step int
	// log says what each step did (the CLI commands and their exits, the
	// platform's and people's changes), for the report.
	log []string
	// config is the configuration of the stack the step applied last.
	config string
	// next are steps the generator has already chosen to come next.
	next []walkStep
	// branchIDs are every branch the walk worked on.
	branchIDs []string
}

// violated is a violation of the step running.
func (r *walkRun) violated(format string, args ...any) *walkViolation {
	return &walkViolation{step: r.step, what: r.redacted(fmt.Sprintf(format, args...)), config: r.redacted(r.config), log: slices.Clone(r.log)}
}

// redacted is text with every secret the walk knows replaced by a name for
// it: the API key and the secrets of the kinds' variants.
func (r *walkRun) redacted(text string) string {
	var pairs []string
	if r.env.Key != "" {
		pairs = append(pairs, r.env.Key, "(the API key)")
	}
	for secret, kind := range walkSecrets() {
		pairs = append(pairs, secret, "(a secret of "+kind+")")
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// walkSecrets are the secrets the walk sets, each with the kind that sets
// it (or "outside" for what the walk sets through the API).
func walkSecrets() map[string]string {
	secrets := map[string]string{"walk-outside-secret": "outside"}
	for name, k := range walkKinds {
		for _, v := range k.variants {
			if v.secret != "" {
				secrets[v.secret] = name
			}
		}
	}
	return secrets
}

// newWalkRun opens a walk of a family on a place of its own: in-process an
// emulator of its own, whose production branch is the walk's; remotely a
// project of its own, or a branch of NEON_TEST_PROJECT_ID's (branch mode
// only), deleted when the walk ends.
// wrap, when set, stands in front of the in-process emulator (a walk with
// it runs only there).
func newWalkRun(t *testing.T, family string, wrap ...func(http.Handler) http.Handler) *walkRun {
	t.Helper()
	var env *acctest.Env
	root := true
	switch {
	case len(wrap) > 0:
		env = acctest.NewEmulatorEnv(t, "it rewrites the API's answers", wrap[0], func(o *emulator.Options) { o.SeedProjects = 1 })
	case !acctest.Remote():
		env = acctest.NewEmulatorEnv(t, "", nil, func(o *emulator.Options) { o.SeedProjects = 1 })
	case family == acctest.ModeBranch && os.Getenv(acctest.EnvTestProjectID) != "":
		env, root = acctest.NewBranchEnv(t), false
	default:
		env = acctest.NewProjectEnv(t)
	}
	env.Mode = family
	r := &walkRun{t: t, env: env, world: &walkWorld{family: family}}
	production := &walkBranch{name: "production", id: env.BranchID, root: root, users: map[string]bool{}}
	production.stack = r.newStack(production)
	r.branchIDs = append(r.branchIDs, production.id)
	production.stack.omitBranch = root && family == acctest.ModeBranch && len(env.ProjectID)%2 == 0
	if family == acctest.ModeProject {
		production.stack.omitBranch = true
	}
	r.world.branches = []*walkBranch{production}
	if acctest.Remote() && !root {
		// The branches go when the walk ends; a JWKS scoped to one of them
		// belongs to the suite's project, and goes too.
		t.Cleanup(r.deleteWalkJWKS)
	}
	return r
}

// deleteWalkJWKS deletes what a walk that stopped early left of its JWKS
// in the suite's project: those scoped to its branches.
func (r *walkRun) deleteWalkJWKS() {
	ctx, c := context.Background(), r.env.Client()
	all, err := c.ListJWKS(ctx, r.env.ProjectID)
	if err != nil {
		r.t.Errorf("listing the JWKS of project %s to delete the walk's: %v", r.env.ProjectID, err)
		return
	}
	for _, j := range all {
		if slices.Contains(r.branchIDs, apiclient.Deref(j.BranchID)) {
			if err := c.DeleteJWKS(ctx, r.env.ProjectID, j.ID); err != nil && !errors.Is(err, apiclient.ErrNotFound) {
				r.t.Errorf("deleting the walk's JWKS %s: %v", j.ID, err)
			}
		}
	}
}

// newStack is an empty configuration for b in a working directory of its
// own.
func (r *walkRun) newStack(b *walkBranch) *walkStack {
	s := newStack(b, r.env.CLI(nil, nil))
	s.dir.Write("main.tf", s.config(r.env))
	if _, v := r.cli(s, 0, "init", "-input=false"); v != nil {
		r.t.Fatal(v)
	}
	return s
}

// scope is a branch in the walk's family.
func (r *walkRun) scope(b *walkBranch) apiclient.Scope {
	f := apiclient.FamilyBranch
	if r.world.family == acctest.ModeProject {
		f = apiclient.FamilyProject
	}
	return apiclient.Scope{ProjectID: r.env.ProjectID, BranchID: b.id, Family: f}
}

// authProvider is the auth provider of the walk's integrations.
func (r *walkRun) authProvider(*walkBranch) string {
	if r.world.family == acctest.ModeProject {
		return apiclient.AuthProviderStack
	}
	return apiclient.AuthProviderBetterAuth
}

// branchObjectID is an import id on b: project, branch, then parts.
func (r *walkRun) branchObjectID(b *walkBranch, parts ...string) string {
	return strings.Join(append([]string{r.env.ProjectID, b.id}, parts...), "/")
}

// cli runs a CLI command of a stack; an exit other than want is a
// violation, with the command's output. Every output is checked for the
// walk's secrets.
func (r *walkRun) cli(s *walkStack, want int, args ...string) (string, *walkViolation) {
	code, out := s.dir.Run(args...)
	r.log = append(r.log, fmt.Sprintf("[%s] %s: exit %d", s.branch.name, strings.Join(args, " "), code))
	if v := r.noSecret(strings.Join(args, " "), out); v != nil {
		return out, v
	}
	if code != want {
		return out, r.violated("`%s` on %s exited %d, want %d:\n%s", strings.Join(args, " "), s.branch.name, code, want, out)
	}
	return out, nil
}

// noSecret is a violation when out shows the API key or a secret the walk
// uses.
func (r *walkRun) noSecret(what, out string) *walkViolation {
	if r.env.Key != "" && strings.Contains(out, r.env.Key) {
		return r.violated("the output of `%s` shows the API key:\n%s", what, out)
	}
	for secret, kind := range walkSecrets() {
		if strings.Contains(out, secret) {
			return r.violated("the output of `%s` shows a secret of %s:\n%s", what, kind, out)
		}
	}
	return nil
}

// snapshot is what b holds as the public API shows it.
func (r *walkRun) snapshot(b *walkBranch) walkSnapshot {
	r.t.Helper()
	snap := walkSnapshot{}
	its, err := readIntegration(r, b)
	r.env.Must(err)
	for key, f := range its {
		snap[kindIntegration+"/"+key] = f
	}
	for _, name := range slices.Sorted(maps.Keys(walkKinds)) {
		k := walkKinds[name]
		if name == kindIntegration || k.read == nil || k.family != "" && k.family != r.world.family || k.inAuth && !snap.hasAuth() {
			continue
		}
		objs, err := k.read(r, b)
		r.env.Must(err)
		for key, f := range objs {
			snap[name+"/"+key] = f
		}
	}
	return snap
}

// parentFacts are what decides a take-over on b: its parent's snapshot and
// users, and its own users.
func (r *walkRun) facts(b *walkBranch) walkBranchFacts {
	f := walkBranchFacts{root: b.root, users: b.users}
	switch {
	case b.parent != nil:
		f.parent, f.parentUsers = r.snapshot(b.parent), b.parent.users
	case !b.root:
		f.parent = walkSnapshot{} // the suite's production branch, which has no Neon Auth
	}
	return f
}

// stateAddresses are the resource addresses a stack's state holds.
func (r *walkRun) stateAddresses(s *walkStack) []string {
	r.t.Helper()
	var state struct {
		Resources []struct {
			Mode, Type, Name string
		}
	}
	raw, err := os.ReadFile(filepath.Join(s.dir.Dir(), "terraform.tfstate"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	r.env.Must(err)
	r.env.Must(json.Unmarshal(raw, &state))
	var out []string
	for _, res := range state.Resources {
		if res.Mode == "managed" {
			out = append(out, res.Type+"."+res.Name)
		}
	}
	slices.Sort(out)
	return out
}

// addresses are the addresses of resources by id.
func addresses(resources map[string]walkObject) []string {
	var out []string
	for _, o := range resources {
		out = append(out, o.address())
	}
	slices.Sort(out)
	return out
}

// userExists tells whether b has a user with the email: no endpoint reads
// users, so it asks by creating one (a 409 says the email is taken; a user
// created instead is deleted again).
func (r *walkRun) userExists(b *walkBranch, email string) bool {
	r.t.Helper()
	ctx, c := context.Background(), r.env.Client()
	u, err := c.CreateUser(ctx, r.scope(b), apiclient.CreateUserRequest{AuthProvider: r.authProvider(b), Email: email})
	if errors.Is(err, apiclient.ErrConflict) {
		return true
	}
	r.env.Must(err)
	r.env.Must(c.DeleteUser(ctx, r.scope(b), u.ID))
	return false
}

// faults are the emulator's faults of a step run under them: refusals and
// server errors, and lost answers, but none whose outcome no endpoint can
// read back (a user's or an SDK key pair's create).
func walkFaults(seed int64) emulator.Faults {
	return emulator.Faults{
		Rate: 0.1, Statuses: []int{500, 503, 423, 429}, LostResponseRate: 0.1, Seed: seed,
		NoLossRoutes: []string{"POST /projects/auth/user", "POST /projects/auth/keys", "POST /projects/{project_id}/branches/{branch_id}/auth/users"},
	}
}
