package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The framework side of taking over what a branch already holds (neonauth
// decides, see MayTakeOver): the provider settings inherited_auth and
// restore_on_destroy, why a found object is refused, the warnings of a
// take-over, and what destroy does with it. Private state keeps what was
// taken over (recordTakeOver), so that destroy restores it.

// Provider setting inherited_auth: what a create does with an object its
// branch already has.
const (
	inheritedTakeOver = "take_over"
	inheritedRefuse   = "refuse"
	// envInheritedAuth is read when the provider block has no
	// inherited_auth.
	envInheritedAuth = "NEON_INHERITED_AUTH"
	// envRestoreOnDestroy is read when the provider block has no
	// restore_on_destroy.
	envRestoreOnDestroy = "NEON_RESTORE_ON_DESTROY"
)

// inheritedAuthAttribute is the provider argument inherited_auth.
func inheritedAuthAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "What a create does with an object that a branch already has: a branch created from a parent " +
			"starts with a copy of the parent's Neon Auth (integration, users, settings, OAuth providers, trusted domains, " +
			"webhooks), and a platform such as the Vercel integration adds a preview's origin to its trusted domains. " +
			"`\"take_over\"` (default): take it over with a warning that names it and apply the configuration to it — a trusted " +
			"domain whatever made it, anything else only when the parent holds the same object (one the parent lacks was made " +
			"on the branch by something else, and is refused). Destroy then restores what was found (see " +
			"`restore_on_destroy`). `\"refuse\"`: fail with an import hint, before anything is sent, as for any object made " +
			"outside Terraform (a whitelist that holds entries and an inherited email server too; the sign-in settings, plugins and " +
			"webhooks, which every branch with Neon Auth has, are still taken over and restored). On a root " +
			"branch (the production branch) and in project mode nothing is inherited, and such objects other than trusted " +
			"domains are always refused. Falls back to `" + envInheritedAuth + "`.",
		Optional:   true,
		Validators: []validator.String{stringvalidator.OneOf(inheritedTakeOver, inheritedRefuse)},
	}
}

// restoreOnDestroyAttribute is the provider argument restore_on_destroy.
func restoreOnDestroyAttribute() schema.BoolAttribute {
	return schema.BoolAttribute{
		MarkdownDescription: "Whether destroy restores what a create took over instead of creating it (see `inherited_auth`): " +
			"`true` (default) writes back the values found — names, settings, the whitelist of trusted domains, shared OAuth keys — so " +
			"the branch is left as the configuration found it. `false`, for a disposable branch that its platform deletes " +
			"anyway, leaves what was taken over as the configuration set it and sends nothing for it; it also lets a take-over " +
			"change what could not be restored, such as an inherited OAuth app or SMTP server made shared. Objects the " +
			"configuration created are deleted either way. Falls back to `" + envRestoreOnDestroy + "` (`true` or `false`).",
		Optional: true,
	}
}

// takeOverRefusal says why a create refuses the object it found on s (it
// completes the import hint); "" for a take-over.
func takeOverRefusal(s neonauth.Scope, t neonauth.TakeOver) string {
	switch t.Refused {
	case neonauth.RefusedProjectMode:
		return "The project-level endpoints (auth_api = \"project\") reach only the production branch, which inherits nothing."
	case neonauth.RefusedBySetting:
		return "inherited_auth is \"refuse\" (in the provider block or " + envInheritedAuth + "), so objects a branch inherited from its parent are not taken over either."
	case neonauth.RefusedEnabledHere:
		return fmt.Sprintf("This run enabled Neon Auth on %s itself, so nothing on it was inherited.", s.Scope)
	case neonauth.RefusedBranchUnread:
		return "Whether the branch inherited it from a parent could not be told: " + apiErrorDetail("Listing the branches of project "+s.ProjectID, t.Err)
	case neonauth.RefusedBranchMissing:
		return branchNotInProject(s.ProjectID, s.BranchID)
	case neonauth.RefusedRootBranch:
		return fmt.Sprintf("Branch %[1]s is a root branch (the production branch, or one created schema-only): it inherited nothing, so "+
			"the object was made there outside this configuration. Either branch_id points at the wrong branch — a preview's "+
			"configuration names the preview branch's id (br-…), which `neon branches list --project-id %[2]s`, the API's "+
			"GET /projects/%[2]s/branches, the official Neon provider's neon_branch.<name>.id or the Neon console shows — or this "+
			"configuration should manage the object on branch %[1]s.", s.BranchID, s.ProjectID)
	case neonauth.RefusedParentLacks:
		return fmt.Sprintf("Branch %[1]s was created from branch %[2]s, but %[2]s holds no such object, so %[1]s did not inherit it: "+
			"another configuration, a person or a tool made it on %[1]s (or %[2]s has lost it since). If another configuration "+
			"manages it, leave it to that one and remove it from this configuration.", s.BranchID, t.Parent)
	case neonauth.RefusedParentUnread:
		return fmt.Sprintf("Whether branch %s inherited it from branch %s could not be told: %s", s.BranchID, t.Parent,
			apiErrorDetail("Reading what branch "+t.Parent+" holds", t.Err))
	}
	return ""
}

// mayTakeOver decides on the object a create found on s: true for a
// take-over; otherwise an error says what the create met (met), what is
// there (found), why it is refused and the import command for importID.
func (c *configured) mayTakeOver(ctx context.Context, s neonauth.Scope, object neonauth.Object, met, found, importID string,
	diags *diag.Diagnostics,
) (neonauth.TakeOver, bool) {
	to := c.data.auth.MayTakeOver(ctx, s, object)
	if !to.Allowed() {
		diags.AddError(c.unable("Create"), met+importHint(found+" "+takeOverRefusal(s, to), c.typeName, importID))
	}
	return to, to.Allowed()
}

// tookOver ends a take-over on s: it records in private state what was
// found (for destroy to restore) and warns of it (see takeOverWarning).
func tookOver[F any](ctx context.Context, private privateSetter, diags *diag.Diagnostics, s neonauth.Scope, parent string, found F,
	what, held, onDestroy string,
) {
	recordTakeOver(ctx, private, parent, found, diags)
	takeOverWarning(diags, s, parent, what, held, onDestroy)
}

// takeOverWarning is the warning of a take-over: what was found, why it
// counts as inherited (held: by default, that the parent holds the same),
// and what destroy does with it.
func takeOverWarning(diags *diag.Diagnostics, s neonauth.Scope, parent, what, held, onDestroy string) {
	diags.AddWarning("Inherited "+what+" taken over",
		fmt.Sprintf("Branch %[1]s of project %[2]s was created from branch %[3]s, %[4]s: %[1]s inherited it, so the provider took it "+
			"over instead of creating it, and applied this configuration to it. %[5]s To refuse inherited objects instead, set "+
			"inherited_auth = \"refuse\" in the provider block.", s.BranchID, s.ProjectID, parent, heldBy(what, held), onDestroy))
}

// onDestroy is what destroy does with an object taken over: restoring, the
// sentence for restore_on_destroy = true (the default); otherwise the object
// is left as the configuration set it.
func (d *providerData) onDestroy(restoring string) string {
	if d.restore {
		return restoring
	}
	return "restore_on_destroy is false, so destroy leaves it as this configuration set it, restoring nothing."
}

// disposableHint completes a refusal that restore_on_destroy = false lifts.
const disposableHint = " On a disposable branch, which its platform deletes anyway, set restore_on_destroy = false in the provider " +
	"block: destroy then restores nothing, and the take-over may change what could not be restored."

// restoreTakenOver is the destroy of an object its create took over: with
// restore_on_destroy, restore writes back what was found; without it,
// nothing is sent. It reports whether the object was taken over (false: one
// this configuration created or imported, which the caller deletes) or
// its record could not be read (an error diagnostic says why).
func restoreTakenOver[F any](ctx context.Context, d *providerData, p privateGetter, diags *diag.Diagnostics, restore func(takeOverRecord[F])) bool {
	rec, takenOver := recordedTakeOver[F](ctx, p, diags)
	switch {
	case diags.HasError():
		return true
	case !takenOver:
		return false
	case d.restore:
		restore(rec)
	default:
		tflog.Info(ctx, "restore_on_destroy is false: leaving what was taken over as configured")
	}
	return true
}

// plannedTakeOver is what the plan of a create knows of the object that
// apply would take over on a branch created from a parent.
type plannedTakeOver struct {
	object neonauth.Object
	// what names the object in the warning; held says how the parent holds
	// it ("": "which holds the same <what>").
	what, held string
	// onDestroy is the sentence for what a restoring destroy does.
	onDestroy string
	// onBranch tells whether the branch holds the object, for the kinds a
	// branch may lack; nil for the singletons of its Neon Auth.
	onBranch func(context.Context, neonauth.Scope) (bool, error)
	// besideAuth: the object lives beside Neon Auth, not in it (the Data
	// API), so the branch needs no integration to hold it.
	besideAuth bool
}

// planTakeOver warns at the plan of a create on a branch created from a
// parent when apply will take over, instead of creating, the branch's copy
// of the object, which the parent holds. It reads only for a create whose
// branch_id is known and names a branch with a parent, in branch mode (any
// mode for an object besideAuth, whose endpoints are branch-scoped in
// both): the branch list, the branch's integration (unless besideAuth),
// whether the branch holds the object (onBranch), and what the parent holds
// of the kind, each shared by the plan's resources (Terraform plans a create
// again at apply, where the create's own reads share them). An object the
// parent lacks gets no warning: apply refuses it and says why.
func (c *configured) planTakeOver(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, p plannedTakeOver) {
	if !c.data.ready() || req.Plan.Raw.IsNull() || !req.State.Raw.IsNull() || (!p.besideAuth && c.data.auth.Family() != apiclient.FamilyBranch) {
		return
	}
	var m scopeModel
	if resp.Diagnostics.Append(getScopeModel(ctx, resp.Plan, req.Plan.Schema.GetAttributes(), &m)...); resp.Diagnostics.HasError() {
		return
	}
	if !isKnownSet(m.ProjectID) || !isKnownSet(m.BranchID) {
		return
	}
	s := neonauth.Scope{Scope: apiclient.Scope{ProjectID: m.ProjectID.ValueString(), BranchID: m.BranchID.ValueString(),
		Family: apiclient.FamilyBranch}}
	if !p.besideAuth {
		s.AuthProvider = knownString(m.AuthProvider) // besideAuth: an auth_provider that is not Neon Auth's
	}
	if b, err := c.data.auth.Branch(ctx, s.ProjectID, s.BranchID); err != nil || b == nil || apiclient.Deref(b.ParentID) == "" || b.Default {
		return // apply says what it finds on a root branch, or one that cannot be read
	}
	if !p.besideAuth {
		// A branch without Neon Auth holds nothing: one read, shared by the
		// plan's resources, spares each its own.
		anyProvider := s
		anyProvider.AuthProvider = ""
		if it, err := c.data.auth.Integration(ctx, anyProvider); err != nil || it == nil {
			return
		}
	}
	if p.onBranch != nil {
		if held, err := p.onBranch(ctx, s); err != nil || !held {
			return
		}
	}
	if to := c.data.auth.MayTakeOver(ctx, s, p.object); to.Allowed() {
		resp.Diagnostics.AddWarning("Inherited "+p.what+" will be taken over",
			fmt.Sprintf("Branch %[1]s of project %[2]s was created from branch %[3]s, %[4]s: apply will take over the branch's "+
				"copy instead of creating it (or create it, if the branch no longer has one), and apply this configuration to it. %[5]s",
				s.BranchID, s.ProjectID, to.Parent, heldBy(p.what, p.held), c.data.onDestroy(p.onDestroy)))
	}
}

// heldBy says how the parent holds what it shares with the branch: held,
// or by default that it holds the same what.
func heldBy(what, held string) string {
	if held == "" {
		return fmt.Sprintf("which holds the same %s", what)
	}
	return held
}

// planRestore says, at the plan of a destroy, what destroy does with the
// object the resource took over at creation: restore it as found
// (restoring says how) instead of deleting it, or, with restore_on_destroy
// = false, leave it as configured. It reads the resource's private state
// only.
func (c *configured) planRestore(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, what, restoring string) {
	if !req.Plan.Raw.IsNull() || req.Private == nil {
		return
	}
	rec, ok := recordedTakeOver[json.RawMessage](ctx, req.Private, &resp.Diagnostics)
	if !ok {
		return
	}
	from := "that its branch inherited from branch " + rec.Parent
	if rec.Parent == "" {
		from = "that it found on its branch"
	}
	if !c.data.ready() || c.data.restore {
		resp.Diagnostics.AddWarning("Destroy restores what was taken over: "+what,
			fmt.Sprintf("%s took over the %s %s, so destroying it does not delete it: %s", c.typeName, what, from, restoring))
		return
	}
	resp.Diagnostics.AddWarning("Destroy leaves what was taken over: "+what,
		fmt.Sprintf("%s took over the %s %s, so destroying it does not delete it: %s", c.typeName, what, from, c.data.onDestroy(restoring)))
}
