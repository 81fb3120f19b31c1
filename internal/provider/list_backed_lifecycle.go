package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The lifecycle of every list-backed type, one entry per phase: plan (the
// scope rules, what a create will take over, what destroy will restore),
// create (take over what is found, or add and recover a lost answer), read
// (gone only when a successful list lacks it), update, delete (restore what
// was taken over, or delete and settle a 404) and import. A type's hooks
// (listedHooks) change a phase; nothing else here knows one type from
// another.

func (r *listBackedResource[M, O, A]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	t := r.t
	r.planScope(ctx, scopeRules{branchOnly: !t.api.ProjectLevel}, req, resp)
	var key types.String
	var from attributeGetter = resp.Plan
	if req.Plan.Raw.IsNull() {
		from = req.State
	}
	resp.Diagnostics.Append(from.GetAttribute(ctx, path.Root(t.key), &key)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// An unknown key (from a value known only at apply) names no object
	// yet: the plan looks for none, and the hook gets "".
	k := ""
	if isKnownSet(key) {
		k = t.canonicalKey(key.ValueString())
		r.planRestore(ctx, req, resp, t.nounOf(k), t.onDestroy)
	}
	if t.hooks.plan != nil {
		t.hooks.plan(ctx, &r.configured, req, resp, k)
		return
	}
	if k == "" {
		return
	}
	r.planTakeOver(ctx, req, resp, plannedTakeOver{object: t.api.Object(k),
		what: t.nounOf(k), onDestroy: t.onDestroy, onBranch: func(ctx context.Context, s neonauth.Scope) (bool, error) {
			return t.api.Listed(r.data.auth, s, k, nil)(ctx)
		}})
}

// begin opens a write: the model planned (or in state), its scope (the
// integration's auth provider when it names none, with fromIntegration) and
// key, and the configuration.
func (r *listBackedResource[M, O, A]) begin(ctx context.Context, planned modelGetter, cfg attributeGetter, summary string,
	source providerSource, diags *diag.Diagnostics,
) (listedWrite[M, A], bool) {
	var w listedWrite[M, A]
	m, ok := begin[M](ctx, r.data, planned, diags)
	if !ok {
		return w, false
	}
	w.plan = m
	var where scopeModel
	if diags.Append(getScopeModel(ctx, planned, listedScope, &where)...); diags.HasError() {
		return w, false
	}
	if w.s, ok = r.data.resolveScope(ctx, where, summary, diags); !ok {
		return w, false
	}
	if source == fromIntegration {
		if w.s, ok = r.data.withIntegrationProvider(ctx, w.s, summary, diags); !ok {
			return w, false
		}
	}
	var key types.String
	diags.Append(planned.GetAttribute(ctx, path.Root(r.t.key), &key)...)
	w.key = key.ValueString()
	if cfg == nil { // a key in state: as it was stored, canonical when it can be
		w.key = r.t.canonicalKey(w.key)
	} else if r.t.canonical != nil {
		canonical, err := r.t.canonical(w.key)
		if err != nil {
			diags.AddAttributeError(path.Root(r.t.key), summary, fmt.Sprintf("The %s %q %s.", r.t.key, w.key, err))
			return w, false
		}
		w.key = canonical
	}
	w.cfg = cfg
	if r.t.input != nil && !diags.HasError() {
		w.in = r.t.input(ctx, w, diags)
	}
	return w, !diags.HasError()
}

// listedScope are the scope attributes every list-backed type has (its
// schema's scopeAttributes), read by begin without building the schema.
var listedScope = map[string]bool{"project_id": true, "branch_id": true, "auth_provider": true}

// modelGetter is the plan or state a write begins from.
type modelGetter interface {
	stateGetter
	attributeGetter
}

// settle writes the object into the write's model and the state.
func (r *listBackedResource[M, O, A]) settle(ctx context.Context, w listedWrite[M, A], o *O, state *tfsdk.State, diags *diag.Diagnostics) {
	if r.t.toModel != nil {
		diags.Append(r.t.toModel(&w.plan, w.s, o)...)
	}
	diags.Append(state.Set(ctx, &w.plan)...)
	var where scopeModel
	where.recordScope(w.s)
	for name, v := range map[string]types.String{"id": types.StringValue(branchObjectID(w.s, w.key)), "branch_id": where.BranchID,
		"auth_provider": where.AuthProvider} {
		if !v.IsNull() {
			diags.Append(state.SetAttribute(ctx, path.Root(name), v)...)
		}
	}
}

func (r *listBackedResource[M, O, A]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	t := r.t
	f := t.format()
	defer f.identifyCreated(ctx, resp)
	summary := r.unable("Create")
	w, ok := r.begin(ctx, req.Plan, req.Config, summary, fromIntegration, &resp.Diagnostics)
	if !ok || !r.data.requireBranch(ctx, w.s.ProjectID, w.s.BranchID, summary, &resp.Diagnostics) {
		return
	}
	found, addBack, err := t.api.FoundBy(r.data.auth, ctx, w.s, w.key)
	var o *O
	var recovered bool
	if err == nil && found == nil {
		o, recovered, err = t.api.AddTo(r.data.auth, ctx, w.s, w.key, w.in)
		if errors.Is(err, apiclient.ErrConflict) && t.api.ConflictFound {
			found, err = new(O), nil
		}
	}
	if found != nil && err == nil {
		if o, ok = r.takeOver(ctx, w, found, addBack, resp); ok {
			r.settle(ctx, w, o, &resp.State, &resp.Diagnostics)
		}
		return
	}
	if err == nil && recovered {
		o, err = r.recovered(ctx, w, o, &resp.Diagnostics)
	}
	if err != nil {
		r.addFailed(ctx, w, err, &resp.Diagnostics)
		return
	}
	tflog.Debug(ctx, "created "+string(t.typeName), map[string]any{"project_id": w.s.ProjectID, "branch_id": w.s.BranchID, t.key: w.key})
	r.settle(ctx, w, o, &resp.State, &resp.Diagnostics)
}

// takeOver is a create that found its object: taken over when neonauth's
// rules allow it, refused with the import command otherwise.
func (r *listBackedResource[M, O, A]) takeOver(ctx context.Context, w listedWrite[M, A], found *O, addBack bool, resp *resource.CreateResponse) (*O, bool) {
	t := r.t
	to, ok := r.mayTakeOver(ctx, w.s, t.api.Object(w.key), t.addingTo(w.key, w.s)+": it is already there.",
		r.alreadyThere(w), compositeID(w.s.ProjectID, w.s.BranchID, w.key), &resp.Diagnostics)
	if !ok {
		return nil, false
	}
	if addBack {
		if _, _, err := t.api.AddTo(r.data.auth, ctx, w.s, w.key, w.in); err != nil && !errors.Is(err, apiclient.ErrConflict) {
			r.addFailed(ctx, w, err, &resp.Diagnostics)
			return nil, false
		}
	}
	if t.api.TakeOver != nil {
		return r.applyTakeOver(ctx, w, found, to, resp)
	}
	if t.hooks.tookOver == nil {
		tookOver(ctx, resp.Private, &resp.Diagnostics, w.s, to.Parent, struct{}{}, t.nounOf(w.key), "", r.data.onDestroy(t.onDestroy))
		return found, true
	}
	recordTakeOver(ctx, resp.Private, to.Parent, struct{}{}, &resp.Diagnostics)
	resp.Diagnostics.AddWarning(t.hooks.tookOver(w.key, w.s))
	return found, true
}

// applyTakeOver gives the configuration to the object taken over, through
// the API's rules, and records what it had.
func (r *listBackedResource[M, O, A]) applyTakeOver(ctx context.Context, w listedWrite[M, A], found *O, to neonauth.TakeOver,
	resp *resource.CreateResponse,
) (*O, bool) {
	taken, err := r.t.api.TakeOver(r.data.auth, ctx, w.s, found, w.in, to, r.data.restore)
	var refused *neonauth.TakeOverRefused
	var failed *neonauth.TakeOverFailed
	switch {
	case errors.As(err, &refused):
		resp.Diagnostics.AddError(refused.Summary, refused.Why+disposableHint)
		return nil, false
	case errors.As(err, &failed):
		resp.Diagnostics.AddError(r.unable("Create"), r.data.explainFailure(ctx, w.s, failed.Doing, failed.Err))
		return nil, false
	case err != nil:
		resp.Diagnostics.AddError(r.unable("Create"), r.data.explainFailure(ctx, w.s, "Taking over the "+r.t.nounOf(w.key), err))
		return nil, false
	}
	tookOver(ctx, resp.Private, &resp.Diagnostics, w.s, to.Parent, taken.Found, taken.What, taken.Held, taken.Did+r.data.onDestroy(taken.OnDestroy))
	return taken.Object, true
}

// alreadyThere says, in a refusal, that the branch already holds the object.
func (r *listBackedResource[M, O, A]) alreadyThere(w listedWrite[M, A]) string {
	if r.t.already != nil {
		return r.t.already(w.key, w.s)
	}
	return fmt.Sprintf("The %s already has the %s.", w.s.Scope, r.t.nounOf(w.key))
}

// recovered settles an add whose answer was lost but whose object is listed:
// the create's own, with a warning.
func (r *listBackedResource[M, O, A]) recovered(ctx context.Context, w listedWrite[M, A], o *O, diags *diag.Diagnostics) (*O, error) {
	if r.t.api.Recover != nil {
		got, err := r.t.api.Recover(r.data.auth, ctx, w.s, o, w.in, branchObjectID(w.s, w.key))
		if err != nil {
			return nil, err
		}
		o = got
	}
	diags.AddWarning(r.title()+" created; response lost",
		fmt.Sprintf("The response to %s was lost in transit, but it is listed, so it was recovered into the state.",
			strings.ToLower(r.t.addingTo(w.key, w.s)[:1])+r.t.addingTo(w.key, w.s)[1:]))
	return o, nil
}

// addFailed explains a failed add: after a 409, with the import command.
func (r *listBackedResource[M, O, A]) addFailed(ctx context.Context, w listedWrite[M, A], err error, diags *diag.Diagnostics) {
	if r.t.hooks.failed != nil && r.t.hooks.failed(w, err, diags) {
		return
	}
	detail := r.data.explainFailure(ctx, w.s, r.t.addingTo(w.key, w.s), err)
	if errors.Is(err, apiclient.ErrConflict) {
		detail += importHint(r.alreadyThere(w), r.typeName, compositeID(w.s.ProjectID, w.s.BranchID, w.key))
	}
	diags.AddError(r.unable("Create"), detail)
}

func (r *listBackedResource[M, O, A]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	t := r.t
	defer t.format().identifyRead(ctx, req, resp)
	w, ok := r.begin(ctx, req.State, nil, r.unable("Read"), fromIntegration, &resp.Diagnostics)
	if !ok {
		return
	}
	var found *O
	if !r.readListed(ctx, w.s, t.api.Listed(r.data.auth, w.s, w.key, &found), "the "+t.nounOf(w.key), resp) {
		return
	}
	r.settle(ctx, w, found, &resp.State, &resp.Diagnostics)
}

// Update sends the change when the type has an update; without one, every
// argument replaces the object and the plan is kept.
func (r *listBackedResource[M, O, A]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	t := r.t
	defer t.format().identifyUpdated(ctx, resp)
	if t.api.Update == nil {
		resp.State.Raw = req.Plan.Raw
		return
	}
	summary := r.unable("Update")
	w, ok := r.begin(ctx, req.Plan, req.Config, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	updated, err := t.api.UpdateOn(r.data.auth, ctx, w.s, w.key, w.in)
	if err != nil {
		detail := r.data.explainFailure(ctx, w.s, "Updating the "+t.nounOf(w.key)+" of "+w.s.String(), err)
		if isNotFound(err) {
			detail += " If only the object was deleted outside Terraform, run `terraform apply -refresh-only` and apply again to re-create it."
		}
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	r.settle(ctx, w, updated, &resp.State, &resp.Diagnostics)
}

func (r *listBackedResource[M, O, A]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	t := r.t
	w, ok := r.begin(ctx, req.State, nil, r.unable("Delete"), fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	if restoreTakenOver(ctx, r.data, req.Private, &resp.Diagnostics, func(rec takeOverRecord[json.RawMessage]) {
		if t.api.Restore != nil {
			r.restore(ctx, w, rec.Found, &resp.Diagnostics)
			return
		}
		tflog.Info(ctx, "leaving the "+t.nounOf(w.key)+" taken over on the branch", map[string]any{"project_id": w.s.ProjectID, "branch_id": w.s.BranchID})
	}) {
		return
	}
	r.settleDelete(ctx, w.s, t.api.DeleteFrom(r.data.auth, ctx, w.s, w.key), t.api.Listed(r.data.auth, w.s, w.key, nil),
		fmt.Sprintf("Deleting the %s of %s", t.nounOf(w.key), w.s.Scope), &resp.Diagnostics)
}

// restore is the restoring destroy of what the create took over, through
// the API's rules: what it wrote is settled as a delete.
func (r *listBackedResource[M, O, A]) restore(ctx context.Context, w listedWrite[M, A], found json.RawMessage, diags *diag.Diagnostics) {
	wrote, err := r.t.api.Restore(r.data.auth, ctx, w.s, w.key, found, w.in)
	switch {
	case wrote:
		r.settleDelete(ctx, w.s, err, nil, fmt.Sprintf("Restoring the %s %s inherited", r.t.nounOf(w.key), w.s.Scope), diags)
	case err != nil:
		diags.AddError(r.unable("Delete"), err.Error())
	default:
		tflog.Info(ctx, "leaving the "+r.t.nounOf(w.key)+" taken over on the branch as it was", map[string]any{"project_id": w.s.ProjectID,
			"branch_id": w.s.BranchID})
	}
}
