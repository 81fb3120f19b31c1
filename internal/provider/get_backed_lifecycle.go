package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The lifecycle of every get-backed type, one entry per phase: plan (the
// scope rules, the type's own check, what a create will take over, what
// destroy will restore), create (take over what is found, or create, wait
// and recover a lost answer), read (gone only when the API says so),
// update, delete (restore what was taken over, or delete and settle a 404)
// and the explanation of a failed request. What a type does differently is
// in its getBackedCalls; nothing here knows one type from another.

// ModifyPlan checks the branch at plan time, lets the type check a create,
// and says what apply will take over and what destroy restores.
func (r *getBackedResource[M, O, R]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	t := r.t
	r.planScope(ctx, scopeRules{anyBranch: true}, req, resp)
	if req.Plan.Raw.IsNull() {
		key := t.keyOf(ctx, req.State, &resp.Diagnostics)
		r.planRestore(ctx, req, resp, t.noun(key.ValueString()), getBackedLeftOnDestroy)
		return
	}
	if !req.State.Raw.IsNull() {
		return
	}
	var plan M
	if resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...); resp.Diagnostics.HasError() || !t.calls.planCreate(plan, &resp.Diagnostics) {
		return
	}
	if key := t.keyOf(ctx, resp.Plan, &resp.Diagnostics); isKnownSet(key) {
		k := key.ValueString()
		r.planTakeOver(ctx, req, resp, plannedTakeOver{object: neonauth.Object{Kind: t.kind, Key: k},
			what: t.noun(k), held: t.held(), onDestroy: getBackedLeftOnDestroy, besideAuth: true,
			onBranch: func(ctx context.Context, s neonauth.Scope) (bool, error) {
				o, err := t.calls.read(ctx, r.data.auth, t.calls.ref(s, k))
				return err == nil && o != nil, nil
			}})
	}
}

// gotObject is what a phase works on: the model planned (or in state),
// where its object lives, its key and its name in the API.
type gotObject[M any, R any] struct {
	m   M
	s   neonauth.Scope
	key string
	ref R
}

// begin opens a phase on the model in from.
func (r *getBackedResource[M, O, R]) begin(ctx context.Context, from interface {
	stateGetter
	attributeGetter
}, summary string, diags *diag.Diagnostics,
) (gotObject[M, R], bool) {
	var o gotObject[M, R]
	var ok bool
	if o.m, o.s, ok = beginIn[M](ctx, r.data, from, summary, fromModel, diags); !ok {
		return o, false
	}
	o.key = r.t.keyOf(ctx, from, diags).ValueString()
	o.ref = r.t.calls.ref(o.s, o.key)
	return o, !diags.HasError()
}

func (r *getBackedResource[M, O, R]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	calls, name := r.t.calls, r.t.name
	defer r.t.format().identifyCreated(ctx, resp)
	summary := r.unable("Create")
	o, ok := r.begin(ctx, req.Plan, summary, &resp.Diagnostics)
	if !ok || !r.data.requireBranch(ctx, o.s.ProjectID, o.s.BranchID, summary, &resp.Diagnostics) ||
		!calls.mayCreate(ctx, r.data.auth, o.m, o.s, summary, &resp.Diagnostics) {
		return
	}
	switch found, err := calls.read(ctx, r.data.auth, o.ref); {
	case err == nil:
		r.takeOver(ctx, o, found, resp)
		return
	case !isNotFound(err):
		resp.Diagnostics.AddError(summary, r.explain(ctx, o, "Reading "+o.ref.String(), err))
		return
	}
	created, recovered, err := calls.create(ctx, r.data.auth, o.ref, o.m)
	if errors.Is(err, apiclient.ErrConflict) {
		// Made since the read above: decide on what is there now.
		if found, rerr := calls.get(ctx, r.data.auth, o.ref); rerr == nil {
			r.takeOver(ctx, o, found, resp)
			return
		}
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, r.explain(ctx, o, "Creating "+o.ref.String(), err))
		return
	}
	if recovered {
		resp.Diagnostics.AddWarning(r.title()+" created; response lost", fmt.Sprintf("The response to creating %s was lost "+
			"in transit, but the %s exists, so it was recovered into the state.", o.ref, name))
	}
	if got := calls.created(ctx, r.data.auth, o.ref, &resp.Diagnostics); got != nil {
		created = got
	}
	tflog.Debug(ctx, "created "+name, map[string]any{"project_id": o.s.ProjectID, "branch_id": o.s.BranchID, r.t.key: o.key})
	r.setState(ctx, o, created, &resp.State, &resp.Diagnostics)
}

// setState records in state the model with what the API tells of got, its
// branch and its id.
func (r *getBackedResource[M, O, R]) setState(ctx context.Context, o gotObject[M, R], got *O, state *tfsdk.State, diags *diag.Diagnostics) {
	diags.Append(r.t.calls.toModel(ctx, &o.m, o.s, got)...)
	diags.Append(state.Set(ctx, &o.m)...)
	if o.s.BranchID != "" {
		diags.Append(state.SetAttribute(ctx, path.Root("branch_id"), o.s.BranchID)...)
	}
	diags.Append(state.SetAttribute(ctx, path.Root("id"), branchObjectID(o.s, o.key))...)
}

// takeOver follows a create that found its object already there: a
// branch's copy of its parent's is taken over and given the plan; anything
// else is refused with an import hint.
func (r *getBackedResource[M, O, R]) takeOver(ctx context.Context, o gotObject[M, R], found *O, resp *resource.CreateResponse) {
	t := r.t
	to, ok := r.mayTakeOver(ctx, decidedIn(o.s), neonauth.Object{Kind: t.kind, Key: o.key},
		fmt.Sprintf("Creating %s: it is already there.", o.ref), t.already(o.key, o.s),
		compositeID(o.s.ProjectID, o.s.BranchID, o.key), &resp.Diagnostics)
	if !ok {
		return
	}
	got, record, what, err := t.calls.takeOver(ctx, r.data.auth, o.s, o.ref, o.m, found)
	if err != nil {
		resp.Diagnostics.AddError(r.unable("Create"), r.explain(ctx, o, what, err))
		return
	}
	r.setState(ctx, o, got, &resp.State, &resp.Diagnostics)
	tookOver(ctx, resp.Private, &resp.Diagnostics, o.s, to.Parent, record, t.noun(o.key), t.held(),
		r.data.onDestroy(getBackedLeftOnDestroy)+t.tookOver)
}

func (r *getBackedResource[M, O, R]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.t.format().identifyRead(ctx, req, resp)
	summary := r.unable("Read")
	o, ok := r.begin(ctx, req.State, summary, &resp.Diagnostics)
	if !ok {
		return
	}
	got, err := r.t.calls.read(ctx, r.data.auth, o.ref)
	if isNotFound(err) {
		switch p, perr := r.t.calls.absence(ctx, r.data.auth, o.ref); p {
		case neonauth.Gone:
			r.removeGone(ctx, o.s.ProjectID, o.s.BranchID, o.ref.String(), perr, resp)
		case neonauth.NotVisible:
			resp.Diagnostics.AddError(summary, projectNotVisibleDetail(o.s.ProjectID, perr)+stateRmWhenGone)
		default:
			resp.Diagnostics.AddError(summary, apiErrorDetail("Reading "+o.ref.String(), errors.Join(err, perr)))
		}
		return
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, apiErrorDetail("Reading "+o.ref.String(), err))
		return
	}
	r.setState(ctx, o, got, &resp.State, &resp.Diagnostics)
}

// Update sends what changed, then reads the object back. A create-time
// option that changes here was never known (after an import): it is
// recorded as configured, with nothing sent.
func (r *getBackedResource[M, O, R]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer r.t.format().identifyUpdated(ctx, resp)
	summary := r.unable("Update")
	o, ok := r.begin(ctx, req.Plan, summary, &resp.Diagnostics)
	if !ok {
		return
	}
	var state M
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	got, what, err := r.t.calls.update(ctx, r.data.auth, o.ref, o.m, state)
	if err != nil {
		resp.Diagnostics.AddError(summary, r.explain(ctx, o, what, err))
		return
	}
	r.setState(ctx, o, got, &resp.State, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateImported, nil)...) // the configuration now says them
}

// Delete restores what a create took over, or deletes the object; a 404 is
// settled by absence.
func (r *getBackedResource[M, O, R]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	calls := r.t.calls
	o, ok := r.begin(ctx, req.State, r.unable("Delete"), &resp.Diagnostics)
	if !ok {
		return
	}
	var err error
	what := "Deleting " + o.ref.String()
	takenOver := restoreTakenOver(ctx, r.data, req.Private, &resp.Diagnostics, func(rec takeOverRecord[json.RawMessage]) {
		what, err = calls.restore(ctx, r.data.auth, o.s, o.ref, rec.Found)
	})
	if resp.Diagnostics.HasError() {
		return
	}
	if !takenOver {
		err = calls.remove(ctx, r.data.auth, o.ref)
	}
	r.settleDeleteBy(ctx, o.s.ProjectID, err, what, func() (neonauth.Presence, error) { return calls.absence(ctx, r.data.auth, o.ref) },
		nil, &resp.Diagnostics)
}

// explain describes a failed request (what) on o's object; after a 404 it
// says which part of the path is missing.
func (r *getBackedResource[M, O, R]) explain(ctx context.Context, o gotObject[M, R], what string, err error) string {
	if !isNotFound(err) {
		return apiErrorDetail(what, err)
	}
	switch p, perr := r.t.calls.absence(ctx, r.data.auth, o.ref); p {
	case neonauth.NotVisible:
		return projectNotVisibleDetail(o.s.ProjectID, perr)
	case neonauth.Gone:
		if r.data.auth.BranchMissing(ctx, decidedIn(o.s)) {
			return apiErrorDetail(what, err) + " " + branchNotInProject(o.s.ProjectID, o.s.BranchID)
		}
		return apiErrorDetail(what, err) + r.t.missing(o.key, o.s)
	default:
		return apiErrorDetail(what, err)
	}
}
