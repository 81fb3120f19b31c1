package walk

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// Random walks: the lifecycle tested by random sequences of what users and
// platforms do, through the real Terraform CLI, with the invariants checked
// after every step (see CONTRIBUTING, "Random walks"). `make test-walk`
// runs them:
//
//	WALK_SEED   the first seed (random, and printed, when unset)
//	WALK_SEEDS  how many walks, one seed after the other (default 1)
//	WALK_STEPS  steps per walk (default 15)
//	WALK_FAULTS 1: some steps run while the emulator injects faults and
//	            loses answers (in-process only)
//	WALK_SHRINK how long a failing walk may take to shrink (default 10m; 0: not at all)
//
// In-process each walk has an emulator of its own; with NEON_TEST_REMOTE
// (make test-walk against NEON_API_KEY and NEON_API_BASE_URL) a project of
// its own, or a branch of NEON_TEST_PROJECT_ID, and it sets up, changes and
// checks through the public API only.

// walkSettings are the variables of a campaign.
type walkSettings struct {
	seed          uint64
	seeds, steps  int
	faults        bool
	shrinkTimeout time.Duration
}

func readWalkSettings(t *testing.T) walkSettings {
	t.Helper()
	w := walkSettings{seeds: 1, steps: 15, shrinkTimeout: 10 * time.Minute}
	num := func(name string, dst *int) {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				t.Fatalf("%s=%q: give a whole number of at least 1", name, v)
			}
			*dst = n
		}
	}
	num("WALK_SEEDS", &w.seeds)
	num("WALK_STEPS", &w.steps)
	if v := os.Getenv("WALK_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("WALK_SEED=%q: give a whole number (the first seed of the campaign)", v)
		}
		w.seed = n
	} else {
		w.seed = rand.Uint64() % 1_000_000
	}
	w.faults = os.Getenv("WALK_FAULTS") == "1"
	if v := os.Getenv("WALK_SHRINK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("WALK_SHRINK=%q: give a duration such as 10m, or 0 not to shrink", v)
		}
		w.shrinkTimeout = d
	}
	return w
}

// TestWalk runs a campaign of random walks (make test-walk).
func TestWalk(t *testing.T) {
	if os.Getenv("WALK_STEPS") == "" && os.Getenv("WALK_SEEDS") == "" && os.Getenv("WALK_SEED") == "" {
		t.Skip("random walks run with make test-walk (WALK_SEED, WALK_SEEDS, WALK_STEPS)")
	}
	w := readWalkSettings(t)
	w.faults = w.faults && !acctest.Remote()
	t.Logf("walks: seeds %d to %d, %d steps each (WALK_SEED=%d WALK_SEEDS=%d WALK_STEPS=%d)", w.seed, w.seed+uint64(w.seeds)-1, w.steps,
		w.seed, w.seeds, w.steps)
	for i := range w.seeds {
		seed := w.seed + uint64(i)
		t.Run(fmt.Sprintf("seed_%d", seed), func(t *testing.T) {
			t.Parallel()
			walkSeed(t, seed, w)
		})
	}
}

// walkSeed runs the walk of one seed; a violation fails t with the seed,
// the step, the configuration, and the walk shrunk to its fewest steps,
// written as a test to paste.
func walkSeed(t *testing.T, seed uint64, w walkSettings) {
	family := walkFamily(seed)
	var steps []walkStep
	var v *walkViolation
	t.Run("walk", func(t *testing.T) {
		steps, v = generateWalk(t, family, seed, w)
	})
	if t.Failed() {
		return
	}
	if v == nil {
		t.Logf("seed %d (%s mode): %d steps, no violation", seed, family, len(steps))
		return
	}
	report := fmt.Sprintf("seed %d (%s mode) broke an invariant at %s\n\nwhat the walk did:\n%s\n\n"+
		"the configuration it applied:\n%s", seed, family, v.where(steps), strings.Join(v.log, "\n"), v.config)
	shrunk := steps[:min(v.step+1, len(steps))]
	if w.shrinkTimeout > 0 {
		shrunk = shrinkWalk(t, family, shrunk, w.shrinkTimeout)
	}
	t.Fatalf("%s\n\nthe violation: %s\n\nreproduce: make test-walk WALK_SEED=%d WALK_SEEDS=1 WALK_STEPS=%d\n\n"+
		"the walk shrunk to %d steps, as a test:\n\n%s", report, v.what, seed, w.steps, len(shrunk), regressionTest(seed, family, shrunk))
}

// walkFamily is the API family of a seed's walk: one walk in five is a
// Stack Auth production in project mode (where the remote key may create
// a project of its own).
func walkFamily(seed uint64) string {
	if seed%5 == 4 && (!acctest.Remote() || os.Getenv(acctest.EnvTestProjectID) == "") {
		return acctest.ModeProject
	}
	return acctest.ModeBranch
}

// generateWalk draws the steps of a walk from its seed while it runs them:
// what may happen next depends on what the walk has made. It answers the
// steps that ran and the first violation.
func generateWalk(t *testing.T, family string, seed uint64, w walkSettings) ([]walkStep, *walkViolation) {
	rng := rand.New(rand.NewPCG(seed, 0x6e656f6e))
	r := newWalkRun(t, family)
	if family == acctest.ModeBranch && rng.IntN(2) == 0 {
		r.next = productionSetup(rng)
	}
	var steps []walkStep
	for tries := 0; len(steps) < w.steps && tries < 50*w.steps; tries++ {
		st, ok := r.draw(rng, w.faults)
		if !ok {
			break
		}
		r.step = len(steps)
		done, v := r.do(st)
		if !done {
			continue
		}
		steps = append(steps, st)
		t.Logf("step %d: %s", r.step, st.GoString())
		if v != nil {
			return steps, v
		}
	}
	r.step = len(steps)
	return steps, r.finish()
}

// finish destroys every stack, the previews' first, and checks what each
// destroy leaves.
func (r *walkRun) finish() *walkViolation {
	for i := len(r.world.branches) - 1; i >= 0; i-- {
		if v := r.destroy(r.world.branches[i], false); v != nil {
			return v
		}
	}
	return nil
}

// replayWalk runs a given walk, such as one a failing campaign shrank to,
// and fails t on its first violation.
func replayWalk(t *testing.T, family string, steps []walkStep) {
	t.Helper()
	t.Parallel()
	if v := runSteps(t, family, steps); v != nil {
		t.Fatalf("%v\n\nwhat the walk did:\n%s\n\nthe configuration it applied:\n%s", v, strings.Join(v.log, "\n"), v.config)
	}
}

// runSteps runs steps in order (those whose preconditions do not hold are
// skipped), then the final destroys; it answers the first violation.
func runSteps(t *testing.T, family string, steps []walkStep) *walkViolation {
	return newWalkRun(t, family).run(steps)
}

// run runs steps on the walk's place, then the final destroys.
func (r *walkRun) run(steps []walkStep) *walkViolation {
	for i, st := range steps {
		r.step = i
		if _, v := r.do(st); v != nil {
			return v
		}
	}
	r.step = len(steps)
	return r.finish()
}

// shrinkWalk looks for a shorter walk that still breaks an invariant:
// first the shortest prefix that does, then without each step in turn,
// for as long as timeout allows.
func shrinkWalk(t *testing.T, family string, steps []walkStep, timeout time.Duration) []walkStep {
	deadline := time.Now().Add(timeout)
	attempt := 0
	fails := func(candidate []walkStep) bool {
		attempt++
		var v *walkViolation
		t.Run(fmt.Sprintf("shrink_%d", attempt), func(t *testing.T) { v = runSteps(t, family, candidate) })
		return v != nil
	}
	for n := 1; n < len(steps) && time.Now().Before(deadline); n *= 2 {
		if fails(steps[:n]) {
			steps = steps[:n]
			break
		}
	}
	for i := len(steps) - 1; i >= 0 && time.Now().Before(deadline); i-- {
		candidate := slices.Delete(slices.Clone(steps), i, i+1)
		if len(candidate) > 0 && fails(candidate) {
			steps = candidate
		}
	}
	return steps
}

// regressionTest is a walk written as an acceptance test.
func regressionTest(seed uint64, family string, steps []walkStep) string {
	var b strings.Builder
	fmt.Fprintf(&b, "func TestWalkSeed%d(t *testing.T) {\n\treplayWalk(t, %q, []walkStep{\n", seed, family)
	for _, st := range steps {
		fmt.Fprintf(&b, "\t\t%s,\n", st.GoString())
	}
	b.WriteString("\t})\n}\n")
	return b.String()
}

// draw is the next step of a walk: an op drawn by weight, then what it
// works on, drawn among what the walk has. It answers false when nothing
// can happen.
func (r *walkRun) draw(rng *rand.Rand, faults bool) (walkStep, bool) {
	if len(r.next) > 0 {
		st := r.next[0]
		r.next = r.next[1:]
		return st, true
	}
	ops := []struct {
		op     string
		weight int
	}{
		{walkOpPut, 40}, {walkOpRemove, 10}, {walkOpSetting, 5}, {walkOpSwitch, 5}, {walkOpBranch, 7}, {walkOpDeleteBranch, 4},
		{walkOpDrift, 10}, {walkOpRefresh, 3}, {walkOpImport, 6}, {walkOpDestroy, 4},
	}
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	for range 100 {
		n := rng.IntN(total)
		var op string
		for _, o := range ops {
			if n -= o.weight; n < 0 {
				op = o.op
				break
			}
		}
		if st, ok := r.drawOp(rng, op); ok {
			st.Faults = faults && rng.IntN(6) == 0
			return st, true
		}
	}
	return walkStep{}, false
}

// drawOp fills in a step of op, or answers false when the walk has nothing
// it could work on.
func (r *walkRun) drawOp(rng *rand.Rand, op string) (walkStep, bool) {
	st := walkStep{Op: op}
	// Previews are where a create finds what the branch inherited: two
	// steps in three go to one when there is one.
	b := r.world.branches[0]
	if n := len(r.world.branches); n > 1 && rng.IntN(3) > 0 {
		b = r.world.branches[1+rng.IntN(n-1)]
	}
	st.Branch = b.name
	resolves := []string{walkResolveImport, walkResolveDisposable, walkResolveRemove}
	st.Resolve = resolves[rng.IntN(len(resolves))]
	switch op {
	case walkOpPut, walkOpImport:
		names := slices.Sorted(maps.Keys(walkKinds))
		name := names[rng.IntN(len(names))]
		key := ""
		if k := walkKinds[name]; k.keys != nil {
			key = k.keys[rng.IntN(len(k.keys))]
		}
		if held := r.held(b); op == walkOpPut && len(held) > 0 && rng.IntN(2) == 0 {
			// Declare what the branch already holds: take-overs and refusals.
			name, key, _ = strings.Cut(held[rng.IntN(len(held))], "/")
		}
		k := walkKinds[name]
		if name == kindWhitelist || k.family != "" && k.family != r.world.family {
			return st, false
		}
		st.Object = walkObject{Kind: name, Key: key}
		if n := len(k.variants); n > 0 {
			st.Object.Variant = rng.IntN(n)
		}
		if op == walkOpPut && b.stack.objects[st.Object.id()] == st.Object {
			return st, false
		}
	case walkOpRemove, walkOpDrift:
		objs := b.stack.sortedObjects()
		if len(objs) == 0 {
			return st, false
		}
		st.Object = objs[rng.IntN(len(objs))]
		st.With = rng.IntN(3) == 0
	case walkOpSetting:
		st.Setting = []string{walkSettingRestore, walkSettingRefuse}[rng.IntN(2)]
		st.With = rng.IntN(2) == 0
	case walkOpSwitch:
		if len(b.stack.domains()) == 0 {
			return st, false
		}
	case walkOpBranch:
		if r.world.family != acctest.ModeBranch || len(r.world.branches) > 2 {
			return st, false
		}
		st.Branch = fmt.Sprintf("preview%d", r.world.previews+1)
		st.With = rng.IntN(2) == 0
		// A preview's workflow often sets the provider up for previews
		// before its first apply: disposable, or refusing what it inherited.
		for _, setting := range []string{walkSettingRestore, walkSettingRefuse} {
			if rng.IntN(3) == 0 {
				r.next = append(r.next, walkStep{Op: walkOpSetting, Branch: st.Branch, Setting: setting, With: setting == walkSettingRefuse})
			}
		}
	case walkOpDeleteBranch:
		// A platform deletes a preview when its pull request closes: most
		// often after the pull request's configuration was applied.
		if b.parent == nil || len(b.stack.objects) == 0 && rng.IntN(5) > 0 {
			return st, false
		}
		st.With = rng.IntN(2) == 0
	case walkOpDestroy:
		if len(b.stack.managed) == 0 {
			return st, false
		}
	}
	return st, true
}

// productionSetup are the first steps of one walk in two: production
// configured with Neon Auth and some of what previews then inherit, as a
// team has it before its first pull request.
func productionSetup(rng *rand.Rand) []walkStep {
	steps := []walkStep{{Op: walkOpPut, Branch: "production", Object: walkObject{Kind: kindIntegration, Variant: 1 + rng.IntN(2)}}}
	for _, o := range []walkObject{
		{Kind: kindEmail, Variant: 1 + rng.IntN(2)},
		{Kind: kindOAuth, Key: "google", Variant: rng.IntN(3)},
		{Kind: kindDomain, Key: walkDomains[0]},
		{Kind: "neon_auth_webhooks", Variant: rng.IntN(2)},
		{Kind: kindUser, Key: walkEmails[0]},
		{Kind: kindDataAPI, Key: "neondb", Variant: rng.IntN(2)},
	} {
		if rng.IntN(2) == 0 {
			steps = append(steps, walkStep{Op: walkOpPut, Branch: "production", Object: o, Resolve: walkResolveRemove})
		}
	}
	return append(steps, walkStep{Op: walkOpBranch, Branch: "preview1", With: rng.IntN(2) == 0})
}

// held are the ids of the objects b holds that its configuration does not
// declare yet, in the walk's kinds and keys.
func (r *walkRun) held(b *walkBranch) []string {
	var out []string
	for id := range r.snapshot(b) {
		kind, key, _ := strings.Cut(id, "/")
		k, ok := walkKinds[kind]
		if _, declared := b.stack.objects[id]; !ok || declared || (k.keys == nil) != (key == "") || k.keys != nil && !slices.Contains(k.keys, key) {
			continue
		}
		out = append(out, id)
	}
	for email := range b.users {
		if _, declared := b.stack.objects[kindUser+"/"+email]; !declared {
			out = append(out, kindUser+"/"+email)
		}
	}
	slices.Sort(out)
	return out
}

// walkFaultsOff is the emulator without faults.
var walkFaultsOff = emulator.Faults{}

func TestWalkViolation_namesTheStepOrTheFinalDestroys(t *testing.T) {
	steps := []walkStep{{Op: walkOpRefresh, Branch: "production"}}
	if got := (&walkViolation{step: 0}).where(steps); !strings.HasPrefix(got, "step 0 of 1: ") {
		t.Errorf("a violation at a step is reported as %q, want that step", got)
	}
	if got, want := (&walkViolation{step: 1}).where(steps), "the destroys that end the walk, after its 1 steps"; got != want {
		t.Errorf("a violation in the final destroys is reported as %q, want %q", got, want)
	}
}
