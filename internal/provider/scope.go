package provider

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Where a Neon Auth object lives (project, branch, auth provider), how an
// omitted branch or auth provider is resolved, and what each API family
// allows, checked at plan time.

// authScope is where a Neon Auth object lives: a scope of the API (project,
// branch, family) and the auth provider of the integration that holds it.
type authScope struct {
	apiclient.Scope
	AuthProvider string
}

// scopeModel is embedded in the model of every resource under a Neon Auth
// integration.
type scopeModel struct {
	branchModel
	AuthProvider types.String `tfsdk:"auth_provider"`
}

// branchModel places an object on a project's branch; embedded in the models
// of the settings that belong to a branch's Neon Auth whatever its provider.
type branchModel struct {
	ProjectID types.String `tfsdk:"project_id"`
	BranchID  types.String `tfsdk:"branch_id"`
}

// where is the scope a model names (see beginIn).
func (m scopeModel) where() scopeModel  { return m }
func (m branchModel) where() scopeModel { return scopeModel{branchModel: m} }

// Provider setting auth_api: which family of endpoints the provider uses.
const (
	authAPIProject = "project"
	authAPIBranch  = "branch"
)

// defaultAuthProvider is what a new integration uses when auth_provider is
// omitted: what each family was made for.
func defaultAuthProvider(f apiclient.Family) string {
	if f == apiclient.FamilyBranch {
		return apiclient.AuthProviderBetterAuth
	}
	return apiclient.AuthProviderStack
}

// authProviderNotes annotate the auth providers in descriptions.
var authProviderNotes = map[string]string{apiclient.AuthProviderStack: "deprecated by Neon", apiclient.AuthProviderMock: "for tests only"}

// productionBranches remembers the production branch of each project for
// the life of the provider process: resolved once per project, shared by
// every resource.
type productionBranches struct {
	mu  sync.Mutex
	ids map[string]string
}

// productionBranch returns the id of the project's production branch.
func (d *providerData) productionBranch(ctx context.Context, projectID string) (string, error) {
	d.production.mu.Lock()
	id, ok := d.production.ids[projectID]
	d.production.mu.Unlock()
	if ok {
		return id, nil
	}
	branches, err := d.branches(ctx, projectID)
	if err != nil {
		return "", err
	}
	b, err := apiclient.ProductionBranch(projectID, branches)
	if err != nil {
		return "", err
	}
	d.production.mu.Lock()
	if d.production.ids == nil {
		d.production.ids = map[string]string{}
	}
	d.production.ids[projectID] = b.ID
	d.production.mu.Unlock()
	return b.ID, nil
}

// scopeOf is where the object of m lives. An omitted (or never recorded)
// branch_id is the production branch, resolved once per project: the
// branch-scoped family names it in every path, and both families record it.
func (d *providerData) scopeOf(ctx context.Context, m scopeModel) (authScope, error) {
	s := authScope{
		Scope:        apiclient.Scope{ProjectID: m.ProjectID.ValueString(), BranchID: knownString(m.BranchID), Family: d.family},
		AuthProvider: knownString(m.AuthProvider),
	}
	if s.BranchID == "" {
		id, err := d.productionBranch(ctx, s.ProjectID)
		if err != nil {
			return s, fmt.Errorf("looking up the production branch of project %s: %w", s.ProjectID, err)
		}
		s.BranchID = id
	}
	return s, nil
}

// resolveScope is scopeOf for a CRUD method, with an error diagnostic when
// the production branch cannot be found.
func (d *providerData) resolveScope(ctx context.Context, m scopeModel, summary string, diags *diag.Diagnostics) (authScope, bool) {
	s, err := d.scopeOf(ctx, m)
	if err != nil {
		diags.AddError(summary, projectErrorDetail(s.ProjectID, "Looking up the production branch of project "+s.ProjectID, err))
		return s, false
	}
	return s, true
}

// recordScope writes what was resolved back into the model.
func (m *scopeModel) recordScope(s authScope) {
	m.recordBranch(s)
	if s.AuthProvider != "" {
		m.AuthProvider = types.StringValue(s.AuthProvider)
	}
}

// recordBranch writes a resolved branch back into the model.
func (m *branchModel) recordBranch(s authScope) {
	if s.BranchID != "" {
		m.BranchID = types.StringValue(s.BranchID)
	}
}

// withIntegrationProvider fills an auth provider the configuration left to
// the integration: the one integration of the scope.
func (d *providerData) withIntegrationProvider(ctx context.Context, s authScope, summary string, diags *diag.Diagnostics) (authScope, bool) {
	if s.AuthProvider != "" {
		return s, true
	}
	its, err := d.integrations(ctx, s.Scope)
	switch {
	case err != nil && !isNotFound(err):
		diags.AddError(summary, apiErrorDetail("Reading the integration of "+s.String(), err))
		return s, false
	case err != nil || len(its) == 0:
		p, perr := d.absence(ctx, s, nil)
		if p == notVisible {
			diags.AddError(summary, projectNotVisibleDetail(s.ProjectID, perr))
			return s, false
		}
		diags.AddError(summary, fmt.Sprintf("The %s has no Neon Auth integration, so auth_provider cannot be taken from it. "+
			"Create a neon_auth_integration first and set project_id (and branch_id) from it, such as "+
			"project_id = neon_auth_integration.<name>.project_id, so that Terraform creates it before this resource.", s.Scope))
		return s, false
	}
	s.AuthProvider = string(its[0].AuthProvider)
	return s, true
}

// scopeRules are what a resource type allows, checked at plan time.
type scopeRules struct {
	// integration: the integration itself, whose omitted auth_provider is
	// the family's default at creation.
	integration bool
	// productionStack: only a stack integration on the production branch
	// (SDK keys, ownership transfers have no branch-scoped successor).
	productionStack bool
	// branchOnly: the resource exists only in the branch-scoped API.
	branchOnly bool
	// branchAttrs are attributes that need the branch-scoped API when set.
	branchAttrs []string
}

// planScope completes the plan of an object under Neon Auth — the default
// auth provider of a new integration, the recorded branch — and refuses at
// plan time what the chosen API family cannot do. It needs the provider's
// data; when the provider block is not known yet it checks nothing (apply
// does).
func (d *providerData) planScope(ctx context.Context, t typeName, rules scopeRules, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !d.ready() || req.Plan.Raw.IsNull() {
		return
	}
	var p scopePlan
	for _, g := range []struct {
		from attributeGetter
		to   *scopeModel
	}{{req.Config, &p.cfg}, {req.Plan, &p.plan}, {req.State, &p.state}} {
		if g.from != nil {
			resp.Diagnostics.Append(getScopeModel(ctx, g.from, req.Plan.Schema.GetAttributes(), g.to)...)
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	p.creating = req.State.Raw.IsNull()
	if d.family != apiclient.FamilyBranch {
		refuseInProjectMode(t, rules, req, &resp.Diagnostics)
	}
	if rules.integration && p.creating && p.cfg.AuthProvider.IsNull() {
		p.plan.AuthProvider = types.StringValue(defaultAuthProvider(d.family))
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("auth_provider"), p.plan.AuthProvider)...)
	}
	if rules.productionStack && isKnownSet(p.plan.AuthProvider) && p.plan.AuthProvider.ValueString() != apiclient.AuthProviderStack {
		resp.Diagnostics.AddAttributeError(path.Root("auth_provider"), "Only for Stack Auth integrations", productionStackOnly(t))
	}
	if isKnownSet(p.cfg.BranchID) && isKnownSet(p.cfg.ProjectID) {
		d.planBranch(ctx, t, rules, p, &resp.Diagnostics)
	}
}

// scopePlan is the scope of an object as planScope sees it: configured,
// planned and in state.
type scopePlan struct {
	cfg, plan, state scopeModel
	creating         bool
}

// getScopeModel reads the scope attributes a schema has into m.
func getScopeModel[A any](ctx context.Context, from attributeGetter, attrs map[string]A, m *scopeModel) diag.Diagnostics {
	var diags diag.Diagnostics
	for name, dst := range map[string]*types.String{"project_id": &m.ProjectID, "branch_id": &m.BranchID, "auth_provider": &m.AuthProvider} {
		if _, ok := attrs[name]; ok {
			diags.Append(from.GetAttribute(ctx, path.Root(name), dst)...)
		}
	}
	return diags
}

// refuseInProjectMode refuses, in project mode, a type or an attribute that
// only the branch-scoped API offers. A value the object already has (read
// back, or written by -generate-config-out) needs no write; only setting one
// does.
func refuseInProjectMode(t typeName, rules scopeRules, req resource.ModifyPlanRequest, diags *diag.Diagnostics) {
	creating := req.State.Raw.IsNull()
	if rules.branchOnly {
		needBranchAPI(diags, path.Root("project_id"), "`"+string(t)+"`")
	}
	for _, a := range rules.branchAttrs {
		if isConfigured(req.Config.Raw, a) && (creating || !sameAttribute(req.Config.Raw, req.State.Raw, a)) {
			needBranchAPI(diags, path.Root(a), "`"+a+"`")
		}
	}
}

// needBranchAPI refuses what only the branch-scoped endpoints offer.
func needBranchAPI(diags *diag.Diagnostics, p path.Path, what string) {
	diags.AddAttributeError(p, "Needs the branch-scoped API",
		fmt.Sprintf("%s is only offered by Neon's branch-scoped endpoints (/projects/{project_id}/branches/{branch_id}/auth…), "+
			"and the provider uses the project-level ones (auth_api = %q). Remove auth_api from the provider block (%q is the "+
			"default) or set it to %q; a configuration applied in project mode switches without replacing anything.",
			what, authAPIProject, authAPIBranch, authAPIBranch))
}

// planBranch checks a configured branch_id: never another branch than the
// object's in state, a branch of the project, and the production branch
// where the API family or the type needs it.
func (d *providerData) planBranch(ctx context.Context, t typeName, rules scopeRules, p scopePlan, diags *diag.Diagnostics) {
	cfg, state := p.cfg, p.state
	if !p.creating && isKnownSet(state.BranchID) {
		// The object's branch is known without a request: never replace it
		// by one on another branch.
		if !cfg.BranchID.Equal(state.BranchID) || !cfg.ProjectID.Equal(state.ProjectID) {
			onOtherBranch(diags, t, state.branchModel, cfg.branchModel)
			return
		}
	}
	legacy := !p.creating && state.BranchID.IsNull() // recorded before branch_id existed: the production branch
	branchMode := d.family == apiclient.FamilyBranch
	if branchMode && !rules.productionStack && !legacy && !p.creating {
		return
	}
	projectID, branchID := cfg.ProjectID.ValueString(), cfg.BranchID.ValueString()
	b, err := d.branch(ctx, projectID, branchID)
	if err != nil {
		diags.AddError("Unable to check branch_id", projectErrorDetail(projectID, "Listing the branches of project "+projectID, err))
		return
	}
	if b == nil {
		diags.AddAttributeError(path.Root("branch_id"), "Branch not in the project", branchNotInProject(projectID, branchID))
		return
	}
	if branchMode && !rules.productionStack && !legacy {
		return
	}
	prod, err := d.productionBranch(ctx, projectID)
	if err != nil {
		diags.AddError("Unable to check branch_id", projectErrorDetail(projectID, "Looking up the production branch of project "+projectID, err))
		return
	}
	other := branchID != prod
	switch {
	case other && legacy:
		onOtherBranch(diags, t, branchModel{ProjectID: state.ProjectID, BranchID: types.StringValue(prod)}, cfg.branchModel)
	case other && !branchMode:
		diags.AddAttributeError(path.Root("branch_id"), "Branch not reachable in project mode",
			fmt.Sprintf("Branch %s is not the production branch (%s) of project %s. The project-level endpoints (auth_api = %q) "+
				"reach only the production branch's Neon Auth. Set auth_api = %q in the provider block to manage Neon Auth on "+
				"other branches, or remove branch_id.", branchID, prod, projectID, authAPIProject, authAPIBranch))
	case other && rules.productionStack:
		diags.AddAttributeError(path.Root("branch_id"), "Only on the production branch", productionStackOnly(t))
	}
}

// onOtherBranch refuses a plan whose configuration names another branch than
// the one the object in state lives on: replacing it would delete an object
// on a branch that the configuration does not name (such as production's
// Google sign-in, imported by an id that named no branch into a resource
// configured for a preview branch).
func onOtherBranch(diags *diag.Diagnostics, t typeName, object, configured branchModel) {
	diags.AddAttributeError(path.Root("branch_id"), "Object on another branch",
		fmt.Sprintf("This %[1]s in the state lives on branch %[2]s of project %[3]s, but the configuration names branch %[4]s of project %[5]s. "+
			"The provider never replaces an object across branches: that would delete the one on %[2]s, which this configuration "+
			"does not name. If it was imported with the wrong id (an id without a branch, such as `%[3]s/…`, means the production "+
			"branch), remove it from the state (`terraform state rm`, or drop the import block) and import it with an id that names "+
			"%[4]s: `%[5]s/%[4]s/…`. To move it on purpose, first remove the resource from the configuration and apply (that deletes "+
			"it on %[2]s), then add it back with the new branch_id.",
			t, object.BranchID.ValueString(), object.ProjectID.ValueString(), configured.BranchID.ValueString(), configured.ProjectID.ValueString()))
}

// branchNotInProject explains a branch_id that the project's branch list
// lacks: a branch of another project, or one that no longer exists.
func branchNotInProject(projectID, branchID string) string {
	return fmt.Sprintf("branch_id %s is not a branch of project %s: it belongs to another project, or it does not exist (any "+
		"more). Set branch_id to a branch of project %s (its production branch when omitted), or set project_id to the project "+
		"that has branch %s.", branchID, projectID, projectID, branchID)
}

// isConfigured reports whether a top-level attribute of a configuration is
// set (known or not), whatever its type.
func isConfigured(config tftypes.Value, name string) bool {
	v, _, err := tftypes.WalkAttributePath(config, tftypes.NewAttributePath().WithAttributeName(name))
	tv, ok := v.(tftypes.Value)
	return err == nil && ok && !tv.IsNull()
}

// sameAttribute reports whether a top-level attribute has the same value in
// two objects (a configuration and a state).
func sameAttribute(a, b tftypes.Value, name string) bool {
	p := tftypes.NewAttributePath().WithAttributeName(name)
	va, _, errA := tftypes.WalkAttributePath(a, p)
	vb, _, errB := tftypes.WalkAttributePath(b, p)
	ta, okA := va.(tftypes.Value)
	tb, okB := vb.(tftypes.Value)
	return errA == nil && errB == nil && okA && okB && ta.Equal(tb)
}

// productionStackOnly explains why SDK keys and ownership transfers exist
// only for a Stack Auth integration on the production branch.
func productionStackOnly(t typeName) string {
	return fmt.Sprintf("`%s` works only for a Stack Auth (`stack`) integration on the project's production branch: its endpoint "+
		"has no branch-scoped successor. Better Auth integrations have no SDK keys and no managed project to transfer: their "+
		"clients use the integration's `base_url` and verify tokens with its JWKS (`jwks_url`).", t)
}

// checkImportBranch refuses, in project mode, an import id that names a
// branch other than the production one (the project-level endpoints would
// read the production branch's Neon Auth instead).
func (d *providerData) checkImportBranch(ctx context.Context, v map[string]string, resp *resource.ImportStateResponse) {
	if !d.ready() || d.family == apiclient.FamilyBranch || v["branch_id"] == "" {
		return
	}
	prod, err := d.productionBranch(ctx, v["project_id"])
	if err != nil {
		resp.Diagnostics.AddError("Unable to Import", projectErrorDetail(v["project_id"], "Looking up the production branch of project "+v["project_id"], err))
		return
	}
	if v["branch_id"] != prod {
		resp.Diagnostics.AddError("Branch not reachable in project mode",
			fmt.Sprintf("The import id names branch %s, which is not the production branch (%s) of project %s. The project-level "+
				"endpoints (auth_api = %q) reach only the production branch. Set auth_api = %q in the provider block to import "+
				"Neon Auth objects of other branches.", v["branch_id"], prod, v["project_id"], authAPIProject, authAPIBranch))
	}
}

// stackScope resolves where SDK keys and ownership transfers live: the
// production branch's Stack Auth integration (their endpoints have no
// branch-scoped successor).
func (d *providerData) stackScope(ctx context.Context, m scopeModel, t typeName, summary string, diags *diag.Diagnostics) (authScope, bool) {
	s, ok := d.resolveScope(ctx, m, summary, diags)
	if ok {
		s, ok = d.withIntegrationProvider(ctx, s, summary, diags)
	}
	if ok && s.AuthProvider != apiclient.AuthProviderStack {
		diags.AddError(summary, productionStackOnly(t))
		return s, false
	}
	return s, ok
}

// dataScope resolves the scope a data source reads: the branch named, or the
// production branch. In project mode a branch other than the production one
// is refused (the project-level endpoints would read the production
// branch's Neon Auth instead).
func (d *providerData) dataScope(ctx context.Context, m branchModel, summary string, diags *diag.Diagnostics) (authScope, bool) {
	s, ok := d.resolveScope(ctx, scopeModel{branchModel: m}, summary, diags)
	if !ok || d.family == apiclient.FamilyBranch || m.BranchID.IsNull() {
		return s, ok
	}
	prod, err := d.productionBranch(ctx, s.ProjectID)
	if err != nil {
		diags.AddError(summary, projectErrorDetail(s.ProjectID, "Looking up the production branch of project "+s.ProjectID, err))
		return s, false
	}
	if s.BranchID != prod {
		diags.AddAttributeError(path.Root("branch_id"), "Branch not reachable in project mode",
			fmt.Sprintf("Branch %s is not the production branch (%s) of project %s. The project-level endpoints (auth_api = %q) "+
				"reach only the production branch's Neon Auth. Set auth_api = %q in the provider block to read other branches.",
				s.BranchID, prod, s.ProjectID, authAPIProject, authAPIBranch))
		return s, false
	}
	return s, true
}
