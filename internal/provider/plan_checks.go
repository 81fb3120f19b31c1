package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The plan-time checks of where an object lives: what each API family
// allows, a branch_id that names another branch or none of the project, and
// two resource types that would manage one whitelist. Each is a step of a
// resource's ModifyPlan.

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
	// anyBranch: the type's endpoints reach every branch whatever the family
	// (the Data API has a single, branch-scoped family of endpoints).
	anyBranch bool
}

// planScope completes the plan of an object under Neon Auth — the default
// auth provider of a new integration, the recorded branch — and refuses at
// plan time what the chosen API family cannot do. It needs the provider's
// data; when the provider block is not known yet it checks nothing (apply
// does).
func (c *configured) planScope(ctx context.Context, rules scopeRules, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !c.data.ready() || req.Plan.Raw.IsNull() {
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
	family := c.data.auth.Family()
	if family != apiclient.FamilyBranch {
		refuseInProjectMode(c.typeName, rules, req, &resp.Diagnostics)
	}
	if rules.integration && p.creating && p.cfg.AuthProvider.IsNull() {
		p.plan.AuthProvider = types.StringValue(neonauth.DefaultAuthProvider(family))
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("auth_provider"), p.plan.AuthProvider)...)
	}
	if rules.productionStack && isKnownSet(p.plan.AuthProvider) && p.plan.AuthProvider.ValueString() != apiclient.AuthProviderStack {
		resp.Diagnostics.AddAttributeError(path.Root("auth_provider"), "Only for Stack Auth integrations", productionStackOnly(c.typeName))
	}
	if isKnownSet(p.cfg.BranchID) && isKnownSet(p.cfg.ProjectID) {
		c.planBranch(ctx, rules, p, &resp.Diagnostics)
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
func (c *configured) planBranch(ctx context.Context, rules scopeRules, p scopePlan, diags *diag.Diagnostics) {
	t, auth := c.typeName, c.data.auth
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
	branchMode := auth.Family() == apiclient.FamilyBranch || rules.anyBranch
	if branchMode && !rules.productionStack && !legacy && !p.creating {
		return
	}
	projectID, branchID := cfg.ProjectID.ValueString(), cfg.BranchID.ValueString()
	if !c.data.planBranchExists(ctx, projectID, branchID, diags) {
		return
	}
	if branchMode && !rules.productionStack && !legacy {
		return
	}
	prod, err := auth.ProductionBranch(ctx, projectID)
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

// planBranchExists checks, at the plan of a create, that branchID is a
// branch of projectID. A branch or project that no longer
// exists is only warned about, and ok is false: the plan of `terraform
// destroy` plans again the create of an object that its refresh removed
// because its branch was deleted (a preview's branch, deleted with its pull
// request), and an error there would stop that destroy. Apply refuses the
// create before sending anything (requireBranch). A list that cannot be
// read is an error.
func (d *providerData) planBranchExists(ctx context.Context, projectID, branchID string, diags *diag.Diagnostics) bool {
	gone, err := d.branchGone(ctx, projectID, branchID)
	switch {
	case err != nil:
		diags.AddError("Unable to check branch_id", projectErrorDetail(projectID, "Listing the branches of project "+projectID, err))
	case gone != "":
		diags.AddAttributeWarning(path.Root("branch_id"), "Branch not in the project",
			gone+" Apply will refuse to create anything on it. If it was deleted, as platforms delete a preview's branch when its "+
				"pull request closes, `terraform destroy` still removes what the state holds; to apply, point branch_id at an "+
				"existing branch (and project_id at an existing project).")
	default:
		return true
	}
	return false
}

// requireBranch is the first step of a create on branchID of projectID: an
// error, before anything is sent, when the branch or its project no longer
// exists. The branch list it reads is the one the create's plan read (it is
// shared), so it costs no request.
func (d *providerData) requireBranch(ctx context.Context, projectID, branchID, summary string, diags *diag.Diagnostics) bool {
	if branchID == "" || branchID == d.auth.KnownProduction(projectID) {
		return true // the production branch, which scopeOf resolved
	}
	gone, err := d.branchGone(ctx, projectID, branchID)
	switch {
	case err != nil:
		diags.AddError(summary, projectErrorDetail(projectID, "Listing the branches of project "+projectID, err))
	case gone != "":
		refuseGoneBranch(gone, diags)
	default:
		return true
	}
	return false
}

// refuseGoneBranch is the error of a create on a branch or project that no
// longer exists (gone says which), before anything is sent.
func refuseGoneBranch(gone string, diags *diag.Diagnostics) {
	diags.AddAttributeError(path.Root("branch_id"), "Branch not in the project", gone+" Nothing was sent. If it was deleted, "+
		"as platforms delete a preview's branch when its pull request closes, run `terraform destroy` to empty the state "+
		"(it sends only reads), or point branch_id at an existing branch.")
}

// branchGone says why a project has no branch branchID, as the shared
// branch list shows it: the list lacks it, or the project was deleted; ""
// when the branch is there. err is a list that could not be read (a
// project this key cannot see among them).
func (d *providerData) branchGone(ctx context.Context, projectID, branchID string) (gone string, err error) {
	b, err := d.auth.Branch(ctx, projectID, branchID)
	switch {
	case isNotFound(err):
		if p, _ := d.auth.ProjectAbsence(ctx, projectID, err); p == neonauth.Gone {
			return fmt.Sprintf("Project %s was deleted, and branch %s with it.", projectID, branchID), nil
		}
		return "", err
	case err != nil:
		return "", err
	case b == nil:
		return branchNotInProject(projectID, branchID), nil
	}
	return "", nil
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

// planWhitelist is the ModifyPlan step of the two whitelist resources: it
// claims the configured project and branch for the type.
func (c *configured) planWhitelist(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) {
	if !c.data.ready() || req.Plan.Raw.IsNull() {
		return
	}
	var project, branch types.String
	diags.Append(req.Config.GetAttribute(ctx, path.Root("project_id"), &project)...)
	diags.Append(req.Config.GetAttribute(ctx, path.Root("branch_id"), &branch)...)
	c.data.claimWhitelist(c.typeName, project, branch, diags)
}

// claimWhitelist records that a resource type plans the whitelist of a
// project and branch, and warns when the other type does too.
func (d *providerData) claimWhitelist(t typeName, project, branch types.String, diags *diag.Diagnostics) {
	if !isKnownSet(project) || branch.IsUnknown() {
		return
	}
	key := compositeID(project.ValueString(), branch.ValueString())
	d.claims.mu.Lock()
	defer d.claims.mu.Unlock()
	if d.claims.byType == nil {
		d.claims.byType = map[string]map[typeName]bool{}
	}
	if d.claims.byType[key] == nil {
		d.claims.byType[key] = map[typeName]bool{}
	}
	d.claims.byType[key][t] = true
	if len(d.claims.byType[key]) > 1 {
		diags.AddWarning("Two resource types manage one whitelist",
			fmt.Sprintf("This configuration has both %[1]s and %[2]s for project %[3]s (branch %[4]s). "+
				"%[1]s owns the whole whitelist and removes every domain it does not list, including those of "+
				"%[2]s: each apply would undo the other. List every domain in %[1]s and remove the "+
				"%[2]s resources (a `removed` block keeps the domains while dropping them from state).",
				typeAuthDomains, typeAuthDomain, project.ValueString(), orProduction(branch)))
	}
}

func orProduction(branch types.String) string {
	if branch.IsNull() {
		return "production"
	}
	return branch.ValueString()
}

// planDomains is the plan of trusted domains: the whitelist's claims
// (planWhitelist), and, at a create, the take-over of those declared
// (canonical) that the branch already whitelists (planTakeOverDomains).
func (c *configured) planDomains(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, declared []string) {
	c.planWhitelist(ctx, req, &resp.Diagnostics)
	c.planTakeOverDomains(ctx, req, resp, declared)
}

// planTakeOverDomains warns at the plan of a create of neon_auth_domain or
// neon_auth_domains when the branch already whitelists domains the
// configuration declares (canonical): apply takes them over instead of
// adding them — whatever put them there: the branch's parent, a platform
// such as the Vercel integration, a person or another configuration — and
// destroy leaves them. It reads the branch's whitelist once, shared with the
// other domain resources of the plan, and only for a create whose
// project_id and branch_id are known (project mode resolves the production
// branch), on a branch whose Neon Auth this run did not enable.
func (c *configured) planTakeOverDomains(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, declared []string) {
	if !c.data.ready() || req.Plan.Raw.IsNull() || !req.State.Raw.IsNull() || len(declared) == 0 || resp.Diagnostics.HasError() {
		return
	}
	var m scopeModel
	resp.Diagnostics.Append(getScopeModel(ctx, resp.Plan, req.Plan.Schema.GetAttributes(), &m)...)
	if !isKnownSet(m.ProjectID) || m.BranchID.IsUnknown() || resp.Diagnostics.HasError() {
		return
	}
	if c.data.auth.MayTakeOver(ctx, neonauth.Scope{}, neonauth.Object{Kind: neonauth.KindDomain}).Refused == neonauth.RefusedBySetting {
		return // apply refuses, and says why
	}
	s, err := c.data.auth.Resolve(ctx, m.ProjectID.ValueString(), m.BranchID.ValueString(), "")
	if err != nil || c.data.auth.EnabledHere(s) {
		// A branch whose Neon Auth this run enabled got its whitelist with
		// it in this apply, after the plan: a read would only stand in front
		// of the create, which says what it finds.
		return
	}
	listed, err := c.data.auth.Domains(ctx, s)
	if err != nil {
		return // apply says what it finds
	}
	var found []string
	for _, d := range declared {
		if slices.ContainsFunc(listed, func(l apiclient.Domain) bool { return apiclient.SameOrigin(l.Domain, d) }) {
			found = append(found, d)
		}
	}
	if len(found) == 0 {
		return
	}
	resp.Diagnostics.AddWarning("Trusted domains already on the branch will be taken over: "+strings.Join(found, ", "),
		fmt.Sprintf("The whitelist of %s already holds %s, which this configuration declares: apply will take %s over instead of "+
			"adding %s — whatever put %s there: the branch's parent (a branch starts with a copy of its parent's whitelist), a "+
			"platform such as the Vercel integration (it adds a preview's origin), a person or another configuration. "+
			"Destroy leaves %s in the whitelist, since this configuration did not add %s.",
			s, strings.Join(found, ", "), them(found), them(found), them(found), them(found), them(found)))
}

// them is the pronoun for a list of one or more things.
func them(items []string) string {
	if len(items) == 1 {
		return "it"
	}
	return "them"
}
