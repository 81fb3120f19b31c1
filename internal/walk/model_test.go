package walk

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// The model of a random walk (walk_test.go): the branches of one project,
// the configuration a team applies to each branch (a stack, with a state of
// its own, as a preview workflow keeps one per pull request), and what each
// stack's state manages. The walk changes the model step by step and checks
// after each step that the API and Terraform agree with it.

// walkWorld is what one walk works on.
type walkWorld struct {
	// family is the provider's auth_api for every stack of the walk:
	// acctest.ModeBranch (Better Auth on production and its previews) or
	// acctest.ModeProject (Stack Auth on the production branch alone).
	family string
	// branches are the walk's production branch first, then the previews
	// a platform made from it and has not deleted.
	branches []*walkBranch
	// previews counts the previews made so far, for their names.
	previews int
}

// walkBranch is a branch of the walk's project.
type walkBranch struct {
	// name is the branch's name in the walk: "production", "preview1", …
	name string
	id   string
	// parent is the branch it was made from; nil for production.
	parent *walkBranch
	// root: the branch has no parent (the project's production branch);
	// remotely on NEON_TEST_PROJECT_ID the walk's production is a branch
	// of the suite's project, whose parent has no Neon Auth.
	root bool
	// users are the emails of the users on the branch, as the walk knows
	// them: no endpoint lists users.
	users map[string]bool
	// stack is the configuration applied to the branch.
	stack *walkStack
}

// walkStack is one configuration, in a working directory and state of its
// own, applied to one branch.
type walkStack struct {
	branch *walkBranch
	dir    *acctest.CLIDir
	// restore and refuse are the provider's restore_on_destroy and
	// inherited_auth = "refuse".
	restore, refuse bool
	// asList declares the domains as one neon_auth_domains instead of a
	// neon_auth_domain each.
	asList bool
	// omitBranch leaves branch_id out (the production branch) where the
	// configuration may.
	omitBranch bool
	// faults: the provider retries more, for a step run under faults.
	faults bool
	// objects are the objects the configuration declares, by id.
	objects map[string]walkObject
	// managed are the resources in the state, by id.
	managed map[string]*walkManaged
}

// walkObject is one object a configuration declares: its kind, its key
// among the branch's objects of the kind ("" for a singleton), and which
// of the kind's variants it is declared as.
type walkObject struct {
	Kind    string
	Key     string
	Variant int
}

func (o walkObject) id() string { return o.Kind + "/" + o.Key }

// whitelistID is the id of the one neon_auth_domains of a stack that
// declares its domains as a list.
const whitelistID = "whitelist/"

// walkManaged is a resource in a stack's state, and what its create found.
type walkManaged struct {
	object walkObject
	// found is what a take-over found (the API's fields of the object;
	// for the whitelist, "domains"); nil for an object the configuration
	// created or imported.
	found walkFields
	// takenOver: the create took the object over instead of creating it.
	takenOver bool
	// domains are the domains a whitelist's state holds.
	domains []string
	// kept, when set, are the fields an imported object keeps because its
	// configuration does not say to change them (an own OAuth app
	// imported into a configuration without client_id stays standard).
	kept walkFields
}

// newStack is an empty configuration for b, with the provider's defaults.
func newStack(b *walkBranch, dir *acctest.CLIDir) *walkStack {
	return &walkStack{branch: b, dir: dir, restore: true, objects: map[string]walkObject{}, managed: map[string]*walkManaged{}}
}

// declares reports whether the configuration declares an object of kind.
func (s *walkStack) declares(kind string) bool {
	return slices.ContainsFunc(slices.Collect(maps.Values(s.objects)), func(o walkObject) bool { return o.Kind == kind })
}

// sortedObjects are the declared objects in id order.
func (s *walkStack) sortedObjects() []walkObject {
	ids := slices.Sorted(maps.Keys(s.objects))
	out := make([]walkObject, 0, len(ids))
	for _, id := range ids {
		out = append(out, s.objects[id])
	}
	return out
}

// domains are the declared domains, sorted.
func (s *walkStack) domains() []string {
	var out []string
	for _, o := range s.sortedObjects() {
		if o.Kind == kindDomain {
			out = append(out, o.Key)
		}
	}
	return out
}

// resources are the ids of the resources the configuration declares: each
// object's, the domains' folded into one whitelist in list mode.
func (s *walkStack) resources() map[string]walkObject {
	out := map[string]walkObject{}
	for id, o := range s.objects {
		if o.Kind == kindDomain && s.asList {
			out[whitelistID] = walkObject{Kind: kindWhitelist}
			continue
		}
		out[id] = o
	}
	return out
}

// address is the resource address of an object (or of the whitelist).
func (o walkObject) address() string {
	k := walkKinds[o.Kind]
	return k.typeName + "." + k.resourceName(o.Key)
}

// config is the stack's configuration: the provider block of env with the
// stack's settings, and a block per resource. Objects of a branch's Neon
// Auth name their branch through the integration when the stack declares
// it, as configurations do, so that they are created after it and
// destroyed before it.
func (s *walkStack) config(env *acctest.Env) string {
	var args []string
	if !s.restore {
		args = append(args, "restore_on_destroy = false")
	}
	if s.refuse {
		args = append(args, `inherited_auth = "refuse"`)
	}
	if s.faults {
		args = append(args, "max_retries = 10")
	}
	var b strings.Builder
	b.WriteString(acctest.RequiredProviders)
	b.WriteString(env.ProviderBlock(args...))
	for _, o := range s.sortedObjects() {
		if o.Kind == kindDomain && s.asList {
			continue
		}
		b.WriteString(s.block(env, o, walkKinds[o.Kind].argsOf(o)))
	}
	if ds := s.domains(); s.asList && len(ds) > 0 {
		quoted := make([]string, len(ds))
		for i, d := range ds {
			quoted[i] = fmt.Sprintf("%q", d)
		}
		b.WriteString(s.block(env, walkObject{Kind: kindWhitelist}, "domains = ["+strings.Join(quoted, ", ")+"]"))
	}
	return b.String()
}

// block is the resource block of o with args after its scope.
func (s *walkStack) block(env *acctest.Env, o walkObject, args string) string {
	k := walkKinds[o.Kind]
	var scope []string
	switch {
	case (k.inAuth || o.Kind == kindDataAPI) && o.Kind != kindIntegration && s.declares(kindIntegration):
		scope = []string{"project_id = neon_auth_integration.this.project_id"}
		if env.Mode == acctest.ModeBranch {
			scope = append(scope, "branch_id  = neon_auth_integration.this.branch_id")
		}
	case o.Kind == kindJWKS:
		// A JWKS of one branch: the project's other branches (and the
		// other stacks) do not see it.
		scope = []string{fmt.Sprintf("project_id = %q", env.ProjectID), fmt.Sprintf("branch_id  = %q", s.branch.id)}
	default:
		scope = []string{fmt.Sprintf("project_id = %q", env.ProjectID)}
		if env.Mode == acctest.ModeBranch && !s.omitBranch {
			scope = append(scope, fmt.Sprintf("branch_id  = %q", s.branch.id))
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(args), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			scope = append(scope, line)
		}
	}
	body := strings.Join(scope, "\n  ")
	return fmt.Sprintf("\nresource %q %q {\n  %s\n}\n", k.typeName, k.resourceName(o.Key), body)
}

// branchNamed is the walk's branch of the name; nil when there is none
// (never made, or deleted).
func (w *walkWorld) branchNamed(name string) *walkBranch {
	for _, b := range w.branches {
		if b.name == name {
			return b
		}
	}
	return nil
}

// drop forgets a deleted branch.
func (w *walkWorld) drop(b *walkBranch) {
	w.branches = slices.DeleteFunc(w.branches, func(x *walkBranch) bool { return x == b })
}
