package walk

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The steps of a walk, one function per op: each checks its preconditions
// on the model (and, where the model cannot know, on the API), runs what
// users or platforms do, and checks the invariants.

// walkDesired is the configuration a step applies: the objects and the
// provider settings.
type walkDesired struct {
	objects         map[string]walkObject
	restore, refuse bool
	asList          bool
}

// desired is the stack's configuration as it is.
func (s *walkStack) desired() walkDesired {
	return walkDesired{objects: maps.Clone(s.objects), restore: s.restore, refuse: s.refuse, asList: s.asList}
}

// set makes d the stack's configuration.
func (s *walkStack) set(d walkDesired) {
	s.objects, s.restore, s.refuse, s.asList = d.objects, d.restore, d.refuse, d.asList
}

// do runs one step. It reports false, and does nothing, when the step's
// preconditions do not hold.
func (r *walkRun) do(st walkStep) (done bool, v *walkViolation) {
	logged := len(r.log)
	r.log = append(r.log, fmt.Sprintf("step %d: %s", r.step, st.GoString()))
	defer func() {
		if !done {
			r.log = r.log[:logged] // skipped: nothing happened
		}
	}()
	if st.Op == walkOpBranch {
		return r.makeBranch(st)
	}
	b := r.world.branchNamed(st.Branch)
	if b == nil {
		return false, nil
	}
	before := r.otherBranches(b)
	done, v = r.doOn(b, st)
	if v == nil && done {
		v = r.othersUnchanged(b, before)
	}
	return done, v
}

func (r *walkRun) doOn(b *walkBranch, st walkStep) (bool, *walkViolation) {
	s := b.stack
	d := s.desired()
	switch st.Op {
	case walkOpPut:
		if !r.canDeclare(b, st.Object) || d.objects[st.Object.id()] == st.Object {
			return false, nil
		}
		d.objects[st.Object.id()] = st.Object
	case walkOpRemove:
		o, ok := d.objects[st.Object.id()]
		if !ok {
			return false, nil
		}
		delete(d.objects, o.id())
		if o.Kind == kindIntegration && (s.managed[o.id()] == nil || !s.managed[o.id()].takenOver) {
			// Destroying Neon Auth takes everything in it along: the
			// configuration stops declaring it too.
			for id, x := range d.objects {
				if walkKinds[x.Kind].inAuth || x.Kind == kindDataAPI {
					delete(d.objects, id)
				}
			}
		}
	case walkOpSetting:
		switch st.Setting {
		case walkSettingRestore:
			d.restore = st.With
		case walkSettingRefuse:
			d.refuse = st.With
		}
		if d.restore == s.restore && d.refuse == s.refuse {
			return false, nil
		}
	case walkOpSwitch:
		if len(s.domains()) == 0 {
			return false, nil
		}
		d.asList = !d.asList
	case walkOpDeleteBranch:
		if b.parent == nil {
			return false, nil
		}
		return true, r.deleteBranch(b, st.With)
	case walkOpDrift:
		return r.drift(b, st)
	case walkOpRefresh:
		if _, v := r.cli(s, 0, "apply", "-refresh-only", "-auto-approve", "-input=false"); v != nil {
			return true, v
		}
		_, v := r.cli(s, 0, "plan", "-detailed-exitcode", "-input=false")
		return true, v
	case walkOpImport:
		return r.importOutside(b, st)
	case walkOpDestroy:
		if len(s.managed) == 0 {
			return false, nil
		}
		if v := r.destroy(b, st.Faults); v != nil {
			return true, v
		}
	default:
		return false, nil
	}
	return true, r.apply(b, d, st, 0)
}

// canDeclare reports whether a configuration of b may declare o, as the
// docs have it: an object of a branch's Neon Auth (and a Data API that
// takes its tokens) on a branch that has Neon Auth or with the
// integration; SDK keys with the integration; roles in branch mode.
func (r *walkRun) canDeclare(b *walkBranch, o walkObject) bool {
	k, ok := walkKinds[o.Kind]
	if !ok || !k.inFamily(o, r.world.family) || o.Kind == kindWhitelist {
		return false
	}
	s := b.stack
	switch {
	case o.Kind == kindSDKKeys || o.Kind == kindTransfer:
		return s.declares(kindIntegration)
	case o.Kind == kindIntegration:
		return true
	case k.inAuth || o.Kind == kindDataAPI:
		return s.declares(kindIntegration) || r.snapshot(b).hasAuth()
	}
	return true
}

// apply applies d to b's stack and checks the outcome against the model:
// what it removes or replaces is destroyed first, as documented, then
// what it adds is created, taken over or refused. A refused create is
// resolved as st.Resolve says and the configuration applied again.
func (r *walkRun) apply(b *walkBranch, d walkDesired, st walkStep, depth int) *walkViolation {
	s := b.stack
	pre, facts := r.snapshot(b), r.facts(b)
	s.set(d)
	resources := s.resources()
	var destroyed, created []string
	for _, id := range destroyOrder(s.managed) {
		if o, keep := resources[id]; !keep || replaced(s.managed[id].object, o) {
			destroyed = append(destroyed, id)
		}
	}
	for id := range resources {
		if _, kept := s.managed[id]; !kept || slices.Contains(destroyed, id) {
			created = append(created, id)
		}
	}
	// A whitelist handed over between its two holders keeps the domains
	// the new holder's creates hold (with inherited_auth = "refuse" they
	// hold none: they keep nothing they find).
	held := map[string]bool{}
	for _, id := range created {
		if s.refuse {
			break
		}
		if o := resources[id]; o.Kind == kindDomain {
			held[o.Key] = true
		} else if o.Kind == kindWhitelist {
			for _, d := range s.domains() {
				held[d] = true
			}
		}
	}
	predicted := pre.clone()
	for _, id := range destroyed {
		predictDestroy(s.managed[id], s.restore, predicted, held)
	}
	users := maps.Clone(b.users)
	for _, id := range destroyed {
		if m := s.managed[id]; m.object.Kind == kindUser && !m.takenOver {
			delete(users, m.object.Key)
		}
		if !predicted.hasAuth() {
			clear(users)
		}
	}
	facts.users = users
	creates := map[string]walkCreate{}
	enabledHere := !predicted.hasAuth() && resources[kindIntegration+"/"] != (walkObject{})
	for _, id := range created {
		o, from := resources[id], predicted
		if o.Kind == kindDomain || o.Kind == kindWhitelist {
			from = pre // what the branch held when the apply began, whichever holder removes it meanwhile
		}
		c := predictCreate(s, r.world.family, o, from, facts)
		if enabledHere && walkKinds[o.Kind].inAuth && o.Kind != kindIntegration {
			c = walkCreate{} // nothing on a branch whose Neon Auth this run enables was inherited
			if isSettingsKind(o.Kind) {
				c = walkCreate{takenOver: true, found: walkAny}
			}
		}
		creates[id] = c
	}
	r.config = s.config(r.env)
	s.dir.Write("main.tf", r.config)
	before := r.stateAddresses(s)
	r.faults(s, st.Faults)
	code, out := s.dir.Run("apply", "-auto-approve", "-input=false")
	r.faults(s, false)
	r.log = append(r.log, fmt.Sprintf("[%s] apply: exit %d", b.name, code))
	if v := r.noSecret("apply", out); v != nil {
		return v
	}
	refusals := map[string]string{} // what the error of each create or update refused says
	for id, c := range creates {
		if c.refused != "" {
			refusals[id] = c.refused
		}
	}
	for id, o := range resources {
		if m, kept := s.managed[id]; kept && !slices.Contains(destroyed, id) {
			if why := predictUpdate(m, o); why != "" {
				refusals[id] = why
			}
		}
	}
	refused := slices.Sorted(maps.Keys(refusals))
	if len(refused) == 0 {
		if code != 0 {
			return r.violated("apply on %s exited %d; the configuration is valid and nothing is refused, as documented:\n%s", b.name, code, out)
		}
		return r.applied(b, pre, predicted, destroyed, creates, users)
	}
	if code != 1 {
		return r.violated("apply on %s exited %d; %s must be refused (%s):\n%s", b.name, code, strings.Join(refused, ", "),
			refusals[refused[0]], out)
	}
	for _, id := range refused {
		if !strings.Contains(flat(out), refusals[id]) {
			return r.violated("apply on %s does not refuse %s saying %q:\n%s", b.name, id, refusals[id], out)
		}
	}
	after := r.stateAddresses(s)
	for _, id := range refused {
		if slices.Contains(after, resources[id].address()) && !slices.Contains(before, resources[id].address()) {
			return r.violated("the refused %s is in the state of %s", resources[id].address(), b.name)
		}
	}
	r.settleManaged(b, resources, creates, refusals, before, after)
	if depth > 3 {
		return r.violated("apply on %s is still refused after %d resolutions", b.name, depth)
	}
	next, v := r.resolve(b, refusals, st)
	if v != nil {
		return v
	}
	return r.apply(b, next, st, depth+1)
}

// walkAny is a value the model cannot predict (the settings of Neon Auth
// enabled in the same apply): any value matches it.
var walkAny = walkFields{"\x00any": true}

// replaced reports whether declaring o instead of m's object replaces it.
func replaced(m, o walkObject) bool {
	k := walkKinds[m.Kind]
	return m.Kind == o.Kind && m.Variant != o.Variant && k.replaces != nil && k.replaces(m.Variant, o.Variant)
}

// destroyOrder are the ids of a state's resources with the integration
// last: everything of a branch's Neon Auth is destroyed before it.
func destroyOrder(managed map[string]*walkManaged) []string {
	ids := slices.Sorted(maps.Keys(managed))
	return slices.SortedStableFunc(slices.Values(ids), func(a, b string) int {
		ai, bi := strings.HasPrefix(a, kindIntegration+"/"), strings.HasPrefix(b, kindIntegration+"/")
		switch {
		case ai == bi:
			return 0
		case ai:
			return 1
		}
		return -1
	})
}

// settleManaged records what a refused apply changed in the state: the
// resources it created (with what the model expects their creates found),
// those it updated (all but the refused) and those it destroyed.
func (r *walkRun) settleManaged(b *walkBranch, resources map[string]walkObject, creates map[string]walkCreate, refusals map[string]string,
	before, after []string,
) {
	s := b.stack
	for id, m := range s.managed {
		if !slices.Contains(after, m.object.address()) {
			delete(s.managed, id)
		}
	}
	for id, o := range resources {
		addr := o.address()
		switch c, created := creates[id]; {
		case slices.Contains(after, addr) && (!slices.Contains(before, addr) || created && c.refused == ""):
			if created {
				s.managed[id] = &walkManaged{object: o, found: c.found, takenOver: c.takenOver, domains: s.domains()}
				if o.Kind == kindUser && !c.takenOver {
					b.users[o.Key] = true
				}
			}
		case slices.Contains(after, addr):
			if m := s.managed[id]; m != nil && refusals[id] == "" {
				m.object = o
			}
		}
	}
}

// resolve is what the user does about refused creates and updates: import
// the object (as the error says), make the branch disposable
// (restore_on_destroy = false, as the errors of what destroy could not
// restore say), or stop declaring it; roles of a user taken over go.
func (r *walkRun) resolve(b *walkBranch, refusals map[string]string, st walkStep) (walkDesired, *walkViolation) {
	s := b.stack
	d := s.desired()
	for _, id := range slices.Sorted(maps.Keys(refusals)) {
		o := s.resources()[id]
		switch why := refusals[id]; {
		case why == refusedUserRoles || why == refusedTakenOverRoles:
			o.Variant = 0
			d.objects[id] = o
		case (why == refusedOwnOAuthApp || why == refusedSMTP) && st.Resolve == walkResolveDisposable:
			d.restore = false
		case why == refusedImport && st.Resolve == walkResolveImport && r.importID(b, o) != "":
			if o.Kind != kindWhitelist && r.snapshot(b)[id] == nil {
				continue // gone since the refusal (its whitelist's other holder removed it): the next apply creates it
			}
			if _, v := r.cli(s, 0, "import", "-input=false", o.address(), r.importID(b, o)); v != nil {
				return d, v
			}
			s.managed[id] = r.imported(b, o)
		case o.Kind == kindWhitelist:
			for did, x := range d.objects {
				if x.Kind == kindDomain {
					delete(d.objects, did)
				}
			}
		default:
			delete(d.objects, id)
		}
	}
	return d, nil
}

// imported is the state's record of an object just imported: an own
// OAuth app imported into a configuration without client_id stays
// standard, as documented ("Import" of neon_auth_oauth_provider).
func (r *walkRun) imported(b *walkBranch, o walkObject) *walkManaged {
	m := &walkManaged{object: o, domains: b.stack.domains()}
	if o.Kind == kindOAuth && o.Variant == 0 {
		if f := r.snapshot(b)[o.id()]; f != nil {
			m.kept = f
		}
	}
	return m
}

// importID is the import id of an object already on b; "" when it cannot
// be found (a user, whose id no endpoint tells by email).
func (r *walkRun) importID(b *walkBranch, o walkObject) string {
	if walkKinds[o.Kind].listed {
		return r.branchObjectID(b, o.Key)
	}
	switch o.Kind {
	case kindIntegration:
		return r.branchObjectID(b, r.authProvider(b))
	case kindDataAPI:
		return r.branchObjectID(b, o.Key)
	case kindWhitelist, kindEmail:
		return r.branchObjectID(b)
	case kindJWKS:
		all, err := r.env.Client().ListJWKS(context.Background(), r.env.ProjectID)
		r.env.Must(err)
		for _, j := range all {
			if j.JWKSURL == o.Key && apiclient.Deref(j.BranchID) == b.id {
				return r.env.ProjectID + "/" + j.ID
			}
		}
	}
	return ""
}

// applied checks a successful apply: the next plan is empty, the state
// holds the configuration's resources, the API holds what the
// configuration declares, and nothing else on the branch changed but
// what the model predicts (destroys, and a whitelist owned whole).
func (r *walkRun) applied(b *walkBranch, pre, predicted walkSnapshot, destroyed []string, creates map[string]walkCreate,
	users map[string]bool,
) *walkViolation {
	s := b.stack
	resources := s.resources()
	if _, v := r.cli(s, 0, "plan", "-detailed-exitcode", "-input=false"); v != nil {
		v.what = "the plan right after a successful apply is not empty: " + v.what
		return v
	}
	if got, want := r.stateAddresses(s), addresses(resources); !slices.Equal(got, want) {
		return r.violated("the state of %s holds %q, want the configuration's %q", b.name, got, want)
	}
	for _, id := range destroyed {
		delete(s.managed, id)
	}
	b.users = users
	for id, o := range resources {
		if c, created := creates[id]; created {
			s.managed[id] = &walkManaged{object: o, found: c.found, takenOver: c.takenOver}
			if o.Kind == kindUser {
				b.users[o.Key] = true
			}
		}
		if m := s.managed[id]; m.object.Variant != o.Variant {
			m.kept = nil
		}
		s.managed[id].object, s.managed[id].domains = o, s.domains()
	}
	post := r.snapshot(b)
	return r.holds(b, post, predicted, pre.hasAuth())
}

// holds checks the branch's snapshot post against the configuration and,
// for everything the configuration does not declare, against predicted.
func (r *walkRun) holds(b *walkBranch, post, predicted walkSnapshot, hadAuth bool) *walkViolation {
	s := b.stack
	declared := map[string]bool{}
	for id, o := range s.objects {
		declared[id] = true
		k := walkKinds[o.Kind]
		if o.Kind == kindUser {
			if !r.userExists(b, o.Key) {
				return r.violated("branch %s has no user %s, which the configuration declares", b.name, o.Key)
			}
			continue
		}
		if k.read == nil {
			continue
		}
		got, want := post[id], k.fieldsOf(o)
		if m := s.managed[id]; m != nil && m.kept != nil {
			want = m.kept
		}
		if got == nil || !sameFields(got, want) {
			return r.violated("branch %s holds %s as %v; the configuration declares %v", b.name, id, got, want)
		}
		if was := predicted[id]; k.keepsOmitted && was != nil && !sameFields(was, walkAny) {
			for f, v := range was {
				if _, set := want[f]; !set && !sameValue(got[f], v) {
					return r.violated("branch %s changed %s of %s, which the configuration leaves out, from %v to %v", b.name, f, id, v, got[f])
				}
			}
		}
	}
	if s.asList && len(s.domains()) > 0 {
		if got, want := post.whitelist(), s.domains(); !slices.Equal(got, want) {
			return r.violated("the whitelist of %s is %q; neon_auth_domains declares it whole as %q", b.name, got, want)
		}
	}
	for id := range unionKeys(post, predicted) {
		kind := strings.SplitN(id, "/", 2)[0]
		switch {
		case declared[id], s.asList && len(s.domains()) > 0 && kind == kindDomain, sameFields(predicted[id], walkAny):
			continue
		case !hadAuth && walkKinds[kind].inAuth && post.hasAuth():
			continue // Neon Auth enabled in this apply: what it starts with
		}
		if got, want := post[id], predicted[id]; !sameObject(got, want) {
			return r.violated("branch %s holds %s as %v; the model expects %v (the configuration does not declare it)", b.name, id, got, want)
		}
	}
	return nil
}

func unionKeys(a, b walkSnapshot) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// destroy runs `terraform destroy` on b's stack and checks that it
// restored what was taken over and deleted what was created, as
// predictDestroy says, and emptied the state.
func (r *walkRun) destroy(b *walkBranch, faults bool) *walkViolation {
	s := b.stack
	pre := r.snapshot(b)
	predicted := pre.clone()
	for _, id := range destroyOrder(s.managed) {
		predictDestroy(s.managed[id], s.restore, predicted, nil)
	}
	r.config = s.config(r.env)
	s.dir.Write("main.tf", r.config)
	r.faults(s, faults)
	code, out := s.dir.Run("destroy", "-auto-approve", "-input=false")
	r.faults(s, false)
	r.log = append(r.log, fmt.Sprintf("[%s] destroy: exit %d", b.name, code))
	if v := r.noSecret("destroy", out); v != nil {
		return v
	}
	if code != 0 {
		return r.violated("destroy on %s exited %d:\n%s", b.name, code, out)
	}
	if got := r.stateAddresses(s); len(got) != 0 {
		return r.violated("destroy on %s left %q in the state", b.name, got)
	}
	for _, m := range s.managed {
		if m.object.Kind == kindUser && !m.takenOver {
			delete(b.users, m.object.Key)
			if predicted.hasAuth() && r.userExists(b, m.object.Key) {
				return r.violated("destroy on %s left the user %s it created", b.name, m.object.Key)
			}
		}
	}
	if !predicted.hasAuth() {
		clear(b.users)
	}
	clear(s.managed)
	post := r.snapshot(b)
	for id := range unionKeys(post, predicted) {
		if sameFields(predicted[id], walkAny) {
			continue
		}
		if got, want := post[id], predicted[id]; !sameObject(got, want) {
			return r.violated("after destroy, branch %s holds %s as %v; the restore rules give %v (restore_on_destroy = %v)", b.name, id, got, want, s.restore)
		}
	}
	return nil
}

// drift changes a declared object behind Terraform's back: the next plan
// must show it (optionally after `apply -refresh-only`), and an apply
// repairs it.
func (r *walkRun) drift(b *walkBranch, st walkStep) (bool, *walkViolation) {
	s := b.stack
	o, declared := s.objects[st.Object.id()]
	k := walkKinds[o.Kind]
	if !declared || k.drift == nil {
		return false, nil
	}
	managedID := o.id()
	if o.Kind == kindDomain && s.asList {
		managedID = whitelistID
	}
	if s.managed[managedID] == nil {
		return false, nil
	}
	switch err := k.drift(r, b, o); {
	case errors.Is(err, errNoDrift):
		return false, nil
	case err != nil:
		r.env.Must(err)
	}
	r.log = append(r.log, fmt.Sprintf("[%s] %s changed behind Terraform's back", b.name, o.id()))
	if _, v := r.cli(s, 2, "plan", "-detailed-exitcode", "-input=false"); v != nil {
		v.what = "the drift of " + o.id() + " does not show: " + v.what
		return true, v
	}
	// A listed object's drift removes it (a domain of the whitelist as one
	// neon_auth_domains is no resource of its own).
	if gone := walkKinds[o.Kind].listed && (o.Kind != kindDomain || !s.asList) || o.Kind == kindJWKS; gone {
		delete(s.managed, managedID) // the refresh removes it from the state
	}
	if st.With {
		if _, v := r.cli(s, 0, "apply", "-refresh-only", "-auto-approve", "-input=false"); v != nil {
			return true, v
		}
		if _, v := r.cli(s, 2, "plan", "-detailed-exitcode", "-input=false"); v != nil {
			v.what = "after apply -refresh-only, the configuration's change back does not show: " + v.what
			return true, v
		}
	}
	return true, r.apply(b, s.desired(), st, 0)
}

// importOutside makes an object on b outside Terraform, declares it and
// imports it; the apply after the import fills in what the API does not
// return and changes nothing else.
func (r *walkRun) importOutside(b *walkBranch, st walkStep) (bool, *walkViolation) {
	s, o := b.stack, st.Object
	k, ok := walkKinds[o.Kind]
	if !ok || k.outside == nil || !k.inFamily(o, r.world.family) || s.objects[o.id()] != (walkObject{}) ||
		s.asList && o.Kind == kindDomain || o.Kind == kindUser && o.Variant == 1 {
		return false, nil
	}
	snap := r.snapshot(b)
	switch {
	case o.Kind == kindIntegration:
		if snap.hasAuth() {
			return false, nil
		}
	case k.inAuth && !snap.hasAuth():
		return false, nil
	case o.Kind == kindUser:
		if b.users[o.Key] {
			return false, nil
		}
	case k.keys != nil && snap[o.id()] != nil:
		return false, nil
	}
	id, err := k.outside(r, b, o)
	r.env.Must(err)
	if o.Kind == kindUser {
		b.users[o.Key] = true
	}
	d := s.desired()
	d.objects[o.id()] = o
	s.set(d)
	r.config = s.config(r.env)
	s.dir.Write("main.tf", r.config)
	if _, v := r.cli(s, 0, "import", "-input=false", o.address(), id); v != nil {
		return true, v
	}
	s.managed[o.id()] = r.imported(b, o)
	return true, r.apply(b, d, st, 0)
}

// makeBranch is the platform making a preview branch from production,
// through the API, with the preview's origin in its whitelist when With
// (as the Vercel integration does).
func (r *walkRun) makeBranch(st walkStep) (bool, *walkViolation) {
	production := r.world.branches[0]
	if r.world.family != acctest.ModeBranch || len(r.world.branches) > 2 || r.world.branchNamed(st.Branch) != nil {
		return false, nil
	}
	before := r.otherBranches(nil)
	name := "walk-" + st.Branch
	if n := r.env.RemoteName(); n != "" {
		name = n + "-" + st.Branch
	}
	b := &walkBranch{name: st.Branch, parent: production, users: map[string]bool{}}
	b.id = acctest.NewBranch(r.t, r.env.Client(), r.env.ProjectID, production.id, name)
	r.branchIDs = append(r.branchIDs, b.id)
	if r.snapshot(b).hasAuth() {
		b.users = maps.Clone(production.users)
		if st.With {
			_, err := r.env.Client().AddDomain(context.Background(), r.scope(b),
				apiclient.AddDomainRequest{Domain: acctest.PreviewOrigin, AuthProvider: "better_auth"})
			if !errors.Is(err, apiclient.ErrConflict) { // a copy of production's already has it
				r.env.Must(err)
			}
		}
	}
	b.stack = r.newStack(b)
	r.world.branches = append(r.world.branches, b)
	r.world.previews++
	r.log = append(r.log, fmt.Sprintf("the platform made %s (%s) from production", b.name, b.id))
	return true, r.othersUnchanged(b, before)
}

// deleteBranch is the platform deleting a preview's branch; with
// stillNamed the stack plans and applies once more before its destroy.
// The plan warns, the apply refuses before sending anything, and destroy
// succeeds with an empty state, sending nothing but reads (in-process,
// where the requests can be counted).
func (r *walkRun) deleteBranch(b *walkBranch, stillNamed bool) *walkViolation {
	s := b.stack
	r.env.Must(r.env.Client().DeleteBranch(context.Background(), r.env.ProjectID, b.id))
	r.log = append(r.log, fmt.Sprintf("the platform deleted %s (%s)", b.name, b.id))
	r.config = s.config(r.env)
	if stillNamed {
		out, v := r.cli(s, 0, "plan", "-input=false")
		if v != nil {
			return v
		}
		if len(s.objects) > 0 && !strings.Contains(flat(out), refusedBranchGone) {
			return r.violated("the plan after %s was deleted does not warn %q:\n%s", b.name, refusedBranchGone, out)
		}
		// The refresh removed every object of the branch from the state but
		// a JWKS, which belongs to the project: what the configuration then
		// declares besides is planned again, and refused.
		want := 0
		for id, o := range s.resources() {
			if o.Kind != kindJWKS || s.managed[id] == nil {
				want = 1
			}
		}
		out, v = r.cli(s, want, "apply", "-auto-approve", "-input=false")
		if v != nil {
			return v
		}
		if errs := strings.Count(out, "Error: "); want == 1 && (errs == 0 || errs != strings.Count(out, "Error: "+refusedBranchGone)) {
			return r.violated("the apply after %s was deleted does not refuse every create with one cause, %q:\n%s", b.name, refusedBranchGone, out)
		}
	}
	if r.env.Emu != nil {
		r.env.Emu.ResetStats()
	}
	if _, v := r.cli(s, 0, "destroy", "-auto-approve", "-input=false"); v != nil {
		return v
	}
	if r.env.Emu != nil {
		for route := range r.env.Emu.Stats().Requests {
			// A JWKS belongs to the project, not to the branch it names:
			// destroy deletes one the configuration added for the branch.
			if !strings.HasPrefix(route, "GET ") && route != "DELETE /projects/{project_id}/jwks/{jwks_id}" {
				return r.violated("the destroy after %s was deleted sent %s; it must send nothing but reads", b.name, route)
			}
		}
	}
	if got := r.stateAddresses(s); len(got) != 0 {
		return r.violated("the destroy after %s was deleted left %q in the state", b.name, got)
	}
	r.world.drop(b)
	return nil
}

// flat is CLI output with its line wrapping undone.
func flat(out string) string { return strings.Join(strings.Fields(out), " ") }

// otherBranches are the snapshots of every branch of the walk but b.
func (r *walkRun) otherBranches(b *walkBranch) map[*walkBranch]walkSnapshot {
	out := map[*walkBranch]walkSnapshot{}
	for _, x := range r.world.branches {
		if x != b {
			out[x] = r.snapshot(x)
		}
	}
	return out
}

// othersUnchanged checks that a step on b changed nothing on the other
// branches: nothing is ever sent to a branch a configuration does not
// name.
func (r *walkRun) othersUnchanged(b *walkBranch, before map[*walkBranch]walkSnapshot) *walkViolation {
	for x, was := range before {
		if x == b || r.world.branchNamed(x.name) == nil {
			continue
		}
		now := r.snapshot(x)
		for id := range unionKeys(was, now) {
			if got, want := now[id], was[id]; !sameObject(got, want) {
				return r.violated("a step on %s changed %s on %s from %v to %v", b.name, id, x.name, want, got)
			}
		}
	}
	return nil
}

// faults turns the emulator's faults on for a step run under them (with
// more retries in the provider block), or off; nothing remotely.
func (r *walkRun) faults(s *walkStack, on bool) {
	if r.env.Emu == nil || on == s.faults {
		return
	}
	s.faults = on
	if on {
		r.env.Emu.SetFaults(walkFaults(int64(r.step)))
		s.dir.Write("main.tf", s.config(r.env))
		return
	}
	r.env.Emu.SetFaults(walkFaultsOff)
	s.dir.Write("main.tf", s.config(r.env))
}
