package provider

import (
	"context"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// A settings resource manages one part of the Better Auth configuration of a
// branch's Neon Auth (sign-in methods, plugins, webhooks): a singleton per
// (project, branch) that always exists while Neon Auth is enabled. Every
// setting is optional: an omitted one keeps the branch's value. Create takes
// the singleton over and remembers what it found; destroy restores it.
// Each type is a settingsKind: how to read and write it, and how its API
// value maps to its model.

// settingsBase is embedded in the model of every settings resource.
type settingsBase struct {
	branchModel
	ID types.String `tfsdk:"id"`
}

func (b *settingsBase) base() *settingsBase { return b }

// settingsModel is the pointer to a settings model.
type settingsModel[M any] interface {
	*M
	base() *settingsBase
}

// settingsKind describes one settings type: A is its API value (a type of
// the reference, package neonapi), M its model, whose attributes are A's
// fields of the same names (settings_fields.go).
type settingsKind[A any, M any] struct {
	typeName    typeName
	setting     betterauth.Setting
	description string
	attributes  map[string]schema.Attribute
	// prepare completes a value before it is written, where the API would
	// otherwise reset what is left out (a PUT replaces the whole value);
	// nil: sent as it is.
	prepare func(A) A
}

// settingsResource is the resource of a settingsKind.
type settingsResource[A any, M any, PM settingsModel[M]] struct {
	configured
	kind   settingsKind[A, M]
	fields []settingField
}

// settingsOf is the resource of kind k.
func settingsOf[A any, M any, PM settingsModel[M]](k settingsKind[A, M]) settingsResource[A, M, PM] {
	return settingsResource[A, M, PM]{configured: configuredAs(k.typeName), kind: k,
		fields: settingFields(reflect.TypeFor[M](), reflect.TypeFor[A]())}
}

// get reads the branch's current value (from the branch's bundle where it
// carries the setting).
func (r *settingsResource[A, M, PM]) get(ctx context.Context, s neonauth.Scope) (A, error) {
	return neonauth.ReadSetting[A](ctx, r.data.auth, s, r.kind.setting)
}

// set sends a whole value and returns what the API stored.
func (r *settingsResource[A, M, PM]) set(ctx context.Context, s neonauth.Scope, v A) (A, error) {
	if r.kind.prepare != nil {
		v = r.kind.prepare(v)
	}
	return neonauth.WriteSetting(ctx, r.data.auth, s, r.kind.setting, v)
}

// toModel writes an API value into a model's settings.
func (r *settingsResource[A, M, PM]) toModel(v A, m PM) { settingsToModel(r.fields, v, m) }

// overlay is base with the model's known settings on top.
func (r *settingsResource[A, M, PM]) overlay(m PM, base A) A {
	settingsOverlay(r.fields, *m, &base)
	return base
}

func (r *settingsResource[A, M, PM]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: r.kind.description + " Needs `auth_api = \"branch\"`. Destroy restores the values found at creation (with `restore_on_destroy = false` it leaves them as configured). " +
			"Import with `<project_id>/<branch_id>`.",
		Attributes: withAttributes(branchAttributes("whose Neon Auth is configured", true), map[string]schema.Attribute{
			"id": computedString("`<project_id>/<branch_id>`.", false),
		}, r.kind.attributes),
	}
}

func (r *settingsResource[A, M, PM]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.planScope(ctx, scopeRules{branchOnly: true}, req, resp)
	what := string(r.typeName) + " settings"
	r.planTakeOver(ctx, req, resp, plannedTakeOver{object: neonauth.Object{Kind: neonauth.KindSettings, Key: r.kind.setting.Name}, what: what,
		onDestroy: settingsOnDestroy})
	if req.Plan.Raw.IsNull() && req.Private != nil && r.data.ready() {
		if raw, d := req.Private.GetKey(ctx, privateFound); len(raw) > 0 && !d.HasError() && r.data.restore {
			resp.Diagnostics.AddWarning("Destroy restores the "+what+" found",
				fmt.Sprintf("Settings cannot be deleted: destroying %s sets the values its branch had when this configuration created "+
					"it, instead of removing anything.", r.typeName))
		} else if len(raw) > 0 && !d.HasError() {
			resp.Diagnostics.AddWarning("Destroy leaves the "+what+" as configured",
				fmt.Sprintf("Settings cannot be deleted, and restore_on_destroy is false: destroying %s sends nothing, and the branch "+
					"keeps the values this configuration set.", r.typeName))
		}
	}
}

func (r *settingsResource[A, M, PM]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer r.importFormat().identifyCreated(ctx, resp)
	plan, s, ok := r.begin(ctx, req.Plan, "Create", &resp.Diagnostics)
	if !ok || !r.data.requireBranch(ctx, s.ProjectID, s.BranchID, r.summary("Create"), &resp.Diagnostics) {
		return
	}
	found, err := r.get(ctx, s)
	if err != nil {
		resp.Diagnostics.AddError(r.summary("Create"), r.data.explainFailure(ctx, s, "Reading the "+r.what(s), err))
		return
	}
	if !r.send(ctx, s, &plan, found, "Create", &resp.Diagnostics) {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	raw, err := encodeFound(found)
	if err != nil {
		resp.Diagnostics.AddError(r.summary("Create"), fmt.Sprintf("Recording the values found at creation: %v. This is a bug in the provider; please report it.", err))
		return
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateFound, raw)...)
	if to := r.data.auth.MayTakeOver(ctx, s, neonauth.Object{Kind: neonauth.KindSettings, Key: r.kind.setting.Name}); to.Allowed() {
		takeOverWarning(&resp.Diagnostics, s, to.Parent, string(r.typeName)+" settings", "and started with a copy of its settings", r.data.onDestroy(settingsOnDestroy))
	}
}

func (r *settingsResource[A, M, PM]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.importFormat().identifyRead(ctx, req, resp)
	state, s, ok := r.begin(ctx, req.State, "Read", &resp.Diagnostics)
	if !ok {
		return
	}
	v, err := r.get(ctx, s)
	if err != nil {
		if isNotFound(err) {
			// Neon Auth disabled on the branch (or the branch gone) took
			// these settings with it; the integration read tells that from
			// a project this key cannot see, and from the endpoint's own
			// 404 while Neon Auth is there.
			switch p, perr := r.data.auth.SingletonAbsence(ctx, s, err); p {
			case neonauth.Gone:
				r.removeGone(ctx, s.ProjectID, s.BranchID, r.what(s)+" (gone with the branch's Neon Auth)", perr, resp)
			case neonauth.NotVisible:
				resp.Diagnostics.AddError(r.summary("Read"), projectNotVisibleDetail(s.ProjectID, perr))
			default:
				resp.Diagnostics.AddError(r.summary("Read"), apiErrorDetail("Reading the "+r.what(s), perr))
			}
			return
		}
		resp.Diagnostics.AddError(r.summary("Read"), apiErrorDetail("Reading the "+r.what(s), err))
		return
	}
	r.toModel(v, state)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *settingsResource[A, M, PM]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer r.importFormat().identifyUpdated(ctx, resp)
	plan, s, ok := r.begin(ctx, req.Plan, "Update", &resp.Diagnostics)
	if !ok {
		return
	}
	current, err := r.get(ctx, s)
	if err != nil {
		resp.Diagnostics.AddError(r.summary("Update"), r.data.explainFailure(ctx, s, "Reading the "+r.what(s), err))
		return
	}
	if r.send(ctx, s, &plan, current, "Update", &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// settingsOnDestroy is what destroy does with settings taken over.
const settingsOnDestroy = "Destroy restores the values found."

// Delete restores the values found at creation (with restore_on_destroy =
// false it sends nothing). Settings imported (nothing was found by this
// resource) are only forgotten; settings whose Neon Auth is gone went with
// it.
func (r *settingsResource[A, M, PM]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	_, s, ok := r.begin(ctx, req.State, "Delete", &resp.Diagnostics)
	if !ok {
		return
	}
	raw, d := req.Private.GetKey(ctx, privateFound)
	resp.Diagnostics.Append(d...)
	switch {
	case len(raw) == 0:
		tflog.Warn(ctx, string(r.typeName)+" removed from state; it was imported, so there are no earlier values to restore",
			map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID})
		return
	case !r.data.restore:
		tflog.Info(ctx, "restore_on_destroy is false: leaving the "+r.what(s)+" as configured")
		return
	}
	found, err := decodeFound[A](raw)
	if err != nil {
		resp.Diagnostics.AddError(r.summary("Delete"), fmt.Sprintf("The values recorded at creation cannot be read (%v). This is a bug in the provider; "+
			"please report it. Remove the resource with `terraform state rm` and set the values by hand.", err))
		return
	}
	_, err = r.set(ctx, s, found)
	r.settleDelete(ctx, s, err, nil, "Restoring the "+r.what(s)+" found at creation", &resp.Diagnostics)
}

// importFormat is the import id of a settings type: its scope.
func (r *settingsResource[A, M, PM]) importFormat() importFormat {
	return importFormat{resourceType: r.typeName, withBranch: true, example: "autumn-frost-12345678/br-quiet-leaf-12345678"}
}

func (r *settingsResource[A, M, PM]) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = r.importFormat().identitySchema()
}

func (r *settingsResource[A, M, PM]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if v, ok := r.importFormat().importState(ctx, &req, resp); ok {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), importedID(v))...)
	}
}

// begin opens every method: the model from plan or state, and its scope
// (the production branch when branch_id is omitted).
func (r *settingsResource[A, M, PM]) begin(ctx context.Context, from stateGetter, op string, diags *diag.Diagnostics) (PM, neonauth.Scope, bool) {
	m, ok := begin[M](ctx, r.data, from, diags)
	pm := PM(&m)
	if !ok {
		return pm, neonauth.Scope{}, false
	}
	s, ok := r.data.resolveScope(ctx, scopeModel{branchModel: pm.base().branchModel}, r.summary(op), diags)
	if ok {
		pm.base().recordBranch(s)
		pm.base().ID = types.StringValue(compositeID(s.ProjectID, s.BranchID))
	}
	return pm, s, ok
}

// send overlays the plan's settings on base, sends them, and writes what the
// API stored back into the plan.
func (r *settingsResource[A, M, PM]) send(ctx context.Context, s neonauth.Scope, plan *PM, base A, op string, diags *diag.Diagnostics) bool {
	stored, err := r.set(ctx, s, r.overlay(*plan, base))
	if err != nil {
		diags.AddError(r.summary(op), r.data.explainFailure(ctx, s, "Setting the "+r.what(s), err))
		return false
	}
	r.toModel(stored, *plan)
	return true
}

func (r *settingsResource[A, M, PM]) summary(op string) string { return r.unable(op) }

func (r *settingsResource[A, M, PM]) what(s neonauth.Scope) string {
	return fmt.Sprintf("%s settings of %s", r.typeName, s.Scope)
}
