package walk

import (
	"maps"
	"slices"
	"strings"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// What the walk expects of the provider: the documented rules of a create
// that finds its object already on the branch (take it over or refuse it),
// and of destroy (restore what was taken over, delete what was created),
// each written once, as the preview-branches guide and the resource pages
// state them. The walk compares the API with these predictions after every
// step.

// walkSnapshot is what a branch holds as the public API shows it, by
// object id (kind/key): the object's fields.
type walkSnapshot map[string]walkFields

// whitelist is the snapshot's trusted domains, sorted.
func (s walkSnapshot) whitelist() []string {
	var out []string
	for id := range s {
		if d, ok := strings.CutPrefix(id, kindDomain+"/"); ok {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// hasAuth reports whether the snapshot's branch has Neon Auth.
func (s walkSnapshot) hasAuth() bool { return s[kindIntegration+"/"] != nil }

// clone is a copy of the snapshot whose objects can be changed.
func (s walkSnapshot) clone() walkSnapshot {
	out := walkSnapshot{}
	for id, f := range s {
		out[id] = maps.Clone(f)
	}
	return out
}

// walkCreate is what the model expects of the create of a resource.
type walkCreate struct {
	// refused is what the apply's error says when the create is refused;
	// "" when it succeeds.
	refused string
	// takenOver: the object was there and the create took it over;
	// found is what it found.
	takenOver bool
	found     walkFields
}

// walkBranchFacts is what decides a take-over on a branch: whether it is
// a root branch, what its parent holds now (the evidence is the parent as
// it is now), and which users it has.
type walkBranchFacts struct {
	root   bool
	parent walkSnapshot // nil for a root branch
	users  map[string]bool
	// parentUsers are the parent's users.
	parentUsers map[string]bool
}

// What a refused create's error says.
const (
	refusedImport      = "terraform import"
	refusedOwnOAuthApp = "Inherited OAuth provider has its own app"
	refusedSMTP        = "Inherited email server is standard"
	refusedUserRoles   = "no endpoint tells a user's id"
	refusedBranchGone  = "Branch not in the project"
	// refusedTakenOverRoles: roles set on a user taken over, whose id no
	// endpoint tells.
	refusedTakenOverRoles = "taken over from the branch's parent without its id"
)

// predictUpdate is what the error of an update of m to o says when the
// update is refused; "" when it applies. A user taken over has no id, so
// it gets no roles ("What this provider does with what the branch has").
func predictUpdate(m *walkManaged, o walkObject) string {
	if o.Kind == kindUser && m.takenOver && o.Variant == 1 && m.object.Variant != 1 {
		return refusedTakenOverRoles
	}
	return ""
}

// predictCreate is the outcome of creating o on a branch that holds pre,
// by a stack with its provider settings ("Preview branches", "What this
// provider does with what the branch has").
func predictCreate(s *walkStack, family string, o walkObject, pre walkSnapshot, facts walkBranchFacts) walkCreate {
	found, exists := pre[o.id()]
	if o.Kind == kindUser {
		exists = facts.users[o.Key]
	}
	// Objects of a branch's Neon Auth are inherited from a parent that
	// holds the same object; nothing is in project mode or on a root
	// branch, and nothing when inherited_auth = "refuse".
	inherited := func(parentHolds bool) bool {
		return family == acctest.ModeBranch && !facts.root && parentHolds
	}
	parentHas := func(id string) bool { return facts.parent[id] != nil }
	switch o.Kind {
	case kindDomain: // a trusted domain is taken over whatever put it there
		switch {
		case !exists:
			return walkCreate{}
		case s.refuse:
			return walkCreate{refused: refusedImport}
		}
		return walkCreate{takenOver: true, found: walkFields{}}
	case kindWhitelist: // the whole list, whatever it holds
		listed := pre.whitelist()
		switch {
		case len(listed) == 0:
			return walkCreate{}
		case s.refuse:
			return walkCreate{refused: refusedImport}
		}
		return walkCreate{takenOver: true, found: walkFields{"domains": anyStrings(listed)}}
	case kindEmail:
		// A singleton: written whatever the branch had; recorded for
		// destroy to restore where it was inherited.
		if !inherited(facts.parent.hasAuth()) {
			return walkCreate{}
		}
		switch {
		case s.refuse && exists:
			return walkCreate{refused: refusedImport}
		case exists && found["type"] == "standard" && o.Variant == 0 && s.restore:
			return walkCreate{refused: refusedSMTP}
		}
		return walkCreate{takenOver: true, found: found}
	case kindUser:
		switch {
		case !exists:
			return walkCreate{}
		case s.refuse || !inherited(facts.parent.hasAuth() && facts.parent[kindIntegration+"/"]["auth_provider"] == "better_auth"):
			return walkCreate{refused: refusedImport}
		case o.Variant == 1:
			return walkCreate{refused: refusedUserRoles}
		}
		return walkCreate{takenOver: true, found: walkFields{}}
	case kindJWKS: // a project's, never inherited
		if exists {
			return walkCreate{refused: refusedImport}
		}
		return walkCreate{}
	case kindSDKKeys, kindTransfer:
		return walkCreate{}
	}
	if isSettingsKind(o.Kind) {
		// Settings always exist where Neon Auth does: taken over, and
		// restored on destroy, on any branch.
		return walkCreate{takenOver: true, found: found}
	}
	if !exists {
		return walkCreate{}
	}
	var held bool
	switch o.Kind {
	case kindIntegration:
		held = parentHas(o.id()) && facts.parent[o.id()]["auth_provider"] == found["auth_provider"]
	default: // an OAuth provider, a Data API: the same one on the parent
		held = parentHas(o.id())
	}
	if s.refuse || !inherited(held) {
		return walkCreate{refused: refusedImport}
	}
	if o.Kind == kindOAuth && found["type"] == "standard" && o.Variant == 0 && s.restore {
		return walkCreate{refused: refusedOwnOAuthApp}
	}
	return walkCreate{takenOver: true, found: found}
}

// isSettingsKind reports whether a kind is a Better Auth settings resource.
func isSettingsKind(kind string) bool { return strings.HasPrefix(kind, "neon_auth_") }

// predictDestroy applies to snap what destroying m does ("Two ways to
// destroy: restore_on_destroy"): what the configuration created goes, and
// what it took over is restored (restore) or left as configured. A domain
// that the other holder of the whitelist holds in the same apply (held)
// stays.
func predictDestroy(m *walkManaged, restore bool, snap walkSnapshot, held map[string]bool) {
	id := m.object.id()
	if k := walkKinds[m.object.Kind]; k.inAuth && m.object.Kind != kindIntegration && !snap.hasAuth() {
		return // gone with Neon Auth
	}
	removeDomain := func(d string) {
		if !held[d] {
			delete(snap, kindDomain+"/"+d)
		}
	}
	switch {
	case m.object.Kind == kindWhitelist:
		if !m.takenOver || !restore {
			if !m.takenOver {
				for _, d := range m.domains {
					removeDomain(d)
				}
			}
			return
		}
		for _, d := range snap.whitelist() {
			removeDomain(d)
		}
		found, _ := m.found["domains"].([]any)
		for _, d := range found {
			if d, ok := d.(string); ok {
				snap[kindDomain+"/"+d] = walkFields{}
			}
		}
	case m.object.Kind == kindDomain && !m.takenOver:
		removeDomain(m.object.Key)
	case m.takenOver && !restore:
	case m.takenOver:
		restoreFound(m, snap)
	case isSettingsKind(m.object.Kind): // imported: forgotten, nothing to restore
	case m.object.Kind == kindEmail:
		snap[id] = walkFields{"type": "shared"}
	case m.object.Kind == kindIntegration:
		for oid := range snap {
			if k := walkKinds[strings.SplitN(oid, "/", 2)[0]]; k.inAuth {
				delete(snap, oid)
			}
		}
	default:
		delete(snap, id)
	}
}

// restoreFound writes back what a take-over found, as each type restores
// it.
func restoreFound(m *walkManaged, snap walkSnapshot) {
	id := m.object.id()
	switch m.object.Kind {
	case kindDomain, kindUser: // stays
	case kindOAuth: // a shared provider goes back to the shared keys; an own app's secret cannot be restored
		if m.found["type"] == "shared" && snap[id] != nil {
			snap[id] = walkFields{"type": "shared"}
		}
	case kindIntegration: // Neon Auth stays, with the name and allow_localhost found
		if cur := snap[id]; cur != nil {
			cur["name"], cur["allow_localhost"] = m.found["name"], m.found["allow_localhost"]
		}
	case kindEmail:
		if m.found == nil {
			snap[id] = walkFields{"type": "shared"}
			return
		}
		snap[id] = maps.Clone(m.found)
	default: // settings, the Data API: the values found
		if snap[id] != nil {
			snap[id] = maps.Clone(m.found)
		}
	}
}

func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
