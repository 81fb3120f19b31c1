package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Neon Auth branches with the database: a branch created from a parent
// starts with a copy of the parent's Better Auth (users, settings, OAuth
// providers, trusted domains, webhooks). What a create finds already there
// on such a branch was inherited, and is taken over instead of refused: the
// resource records what it found, applies its configuration, and destroy
// puts back what it found instead of deleting. Elsewhere — the production
// branch, a branch the provider cannot place, project mode, or with
// inherited_auth = "refuse" — an object that exists outside Terraform is
// refused with an import hint, as before.

// Provider setting inherited_auth: what a create does with an object its
// branch already has.
const (
	inheritedAdopt  = "adopt"
	inheritedRefuse = "refuse"
)

// inheritedAuthAttribute is the provider argument inherited_auth.
func inheritedAuthAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "What a create does with an object that a branch already has because it inherited it: a branch " +
			"created from a parent starts with a copy of the parent's Neon Auth (integration, users, settings, OAuth providers, " +
			"trusted domains, webhooks). `\"adopt\"` (default): take it over with a warning that names it, apply the " +
			"configuration to it, and put it back as found on destroy instead of deleting it. `\"refuse\"`: fail with an " +
			"import hint, as for any object made outside Terraform. On a root branch (the production branch) and in project " +
			"mode nothing is inherited, and such objects are always refused. Falls back to `" + envInheritedAuth + "`.",
		Optional:   true,
		Validators: []validator.String{stringvalidator.OneOf(inheritedAdopt, inheritedRefuse)},
	}
}

// branch returns a branch of a project as the branch list shows it; nil when
// the list lacks it. A list read earlier in the run (shared for
// defaultReadMaxAge) may predate a branch created since, by another resource
// or another provider in the same apply, so a branch missing from it is
// looked for in a list read after this call began before it is declared
// missing.
func (d *providerData) branch(ctx context.Context, projectID, branchID string) (*apiclient.Branch, error) {
	since := time.Now()
	find := func(bs []apiclient.Branch) *apiclient.Branch {
		if i := slices.IndexFunc(bs, func(b apiclient.Branch) bool { return b.ID == branchID }); i >= 0 {
			b := bs[i]
			return &b
		}
		return nil
	}
	bs, err := d.branches(ctx, projectID)
	if err != nil {
		return nil, err
	}
	if b := find(bs); b != nil {
		return b, nil
	}
	bs, err = d.reads.branches.getSince(ctx, readKey{projectID: projectID}, since, func(ctx context.Context) ([]apiclient.Branch, error) {
		return d.client.ListBranches(ctx, projectID)
	})
	if err != nil {
		return nil, err
	}
	return find(bs), nil
}

// enabledHere remembers the scopes whose Neon Auth this provider process
// enabled: nothing on them was inherited, whatever their branch's parent.
type enabledHere struct {
	mu     sync.Mutex
	scopes map[readKey]bool
}

func (d *providerData) enabledNeonAuth(s apiclient.Scope) {
	d.enabled.mu.Lock()
	defer d.enabled.mu.Unlock()
	if d.enabled.scopes == nil {
		d.enabled.scopes = map[readKey]bool{}
	}
	d.enabled.scopes[d.key(s)] = true
}

func (d *providerData) enabledInThisRun(s apiclient.Scope) bool {
	d.enabled.mu.Lock()
	defer d.enabled.mu.Unlock()
	return d.enabled.scopes[d.key(s)]
}

// inheritance is what a create that found its object already there may do
// with it: take it over (parent names the branch it was inherited from) or
// refuse it (why completes the import hint).
type inheritance struct {
	parent string
	why    string
}

func (i inheritance) adopt() bool { return i.parent != "" }

// inheritanceOf decides whether what a create found on the scope's branch is
// taken over: only in branch mode, with inherited_auth = "adopt", on a branch
// created from a parent whose Neon Auth this run did not enable itself.
// Costs the project's branch list, shared by every resource of the run.
func (d *providerData) inheritanceOf(ctx context.Context, s authScope) inheritance {
	switch {
	case s.Family != apiclient.FamilyBranch:
		return inheritance{why: "The project-level endpoints (auth_api = \"project\") reach only the production branch, which inherits nothing."}
	case d.inherited == inheritedRefuse:
		return inheritance{why: "inherited_auth is \"refuse\" (in the provider block or " + envInheritedAuth + "), so objects a branch inherited from its parent are not taken over either."}
	case d.enabledInThisRun(s.Scope):
		return inheritance{why: fmt.Sprintf("This run enabled Neon Auth on %s itself, so nothing on it was inherited.", s.Scope)}
	}
	b, err := d.branch(ctx, s.ProjectID, s.BranchID)
	switch {
	case err != nil:
		return inheritance{why: "Whether the branch inherited it from a parent could not be told: " + apiErrorDetail("Listing the branches of project "+s.ProjectID, err)}
	case b == nil:
		return inheritance{why: branchNotInProject(s.ProjectID, s.BranchID)}
	case b.Default || apiclient.Deref(b.ParentID) == "":
		return inheritance{why: fmt.Sprintf("Branch %s is a root branch (the production branch, or one created schema-only): it inherited "+
			"nothing, so an object on it that is not in the state was made outside Terraform.", s.BranchID)}
	}
	return inheritance{parent: apiclient.Deref(b.ParentID)}
}

// adoptedWarning is the warning of a take-over: what was found, where it came
// from, and what destroy does with it.
func adoptedWarning(diags *diag.Diagnostics, s authScope, parent, what, onDestroy string) {
	diags.AddWarning("Inherited "+what+" taken over",
		fmt.Sprintf("Branch %[1]s of project %[2]s was created from branch %[3]s and started with a copy of its Neon Auth, so its %[4]s "+
			"was already there: the provider took it over instead of creating it, and applied this configuration to it. %[5]s "+
			"To refuse inherited objects instead, set inherited_auth = \"refuse\" in the provider block.",
			s.BranchID, s.ProjectID, parent, what, onDestroy))
}

// adoptedVersion is the version of the record privateAdopted holds.
const adoptedVersion = 1

// adoptedRecord is what privateAdopted holds: the branch the object was
// inherited from and what the create found, in a shape of the resource's own
// (F), which destroy puts back.
type adoptedRecord[F any] struct {
	Version int    `json:"version"`
	Parent  string `json:"parent"`
	Found   F      `json:"found"`
}

// recordAdopted stores a take-over in private state.
func recordAdopted[F any](ctx context.Context, p privateSetter, parent string, found F, diags *diag.Diagnostics) {
	raw, err := json.Marshal(adoptedRecord[F]{Version: adoptedVersion, Parent: parent, Found: found})
	if err != nil {
		diags.AddError("Unwritable private state", fmt.Sprintf("Encoding what was taken over: %v. This is a bug in the provider; please report it.", err))
		return
	}
	diags.Append(p.SetKey(ctx, privateAdopted, raw)...)
}

// adoptedFrom reads a take-over from private state; ok is false for an
// object this provider created (or imported).
func adoptedFrom[F any](ctx context.Context, p privateGetter, diags *diag.Diagnostics) (rec adoptedRecord[F], ok bool) {
	raw, d := p.GetKey(ctx, privateAdopted)
	diags.Append(d...)
	if len(raw) == 0 {
		return rec, false
	}
	if err := json.Unmarshal(raw, &rec); err != nil || rec.Version != adoptedVersion {
		diags.AddError("Unreadable private state",
			fmt.Sprintf("The record of what this resource took over at creation cannot be read (version %d, %v): upgrade the provider, "+
				"or remove the resource with `terraform state rm` and put the inherited object back by hand.", rec.Version, err))
		return rec, false
	}
	return rec, true
}
