package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// Where a model places its object (project, branch, auth provider), the
// scope neonauth resolves from it, and the diagnostics of a scope that
// cannot be resolved.

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

// authProviderNotes annotate the auth providers in descriptions.
var authProviderNotes = map[string]string{apiclient.AuthProviderStack: "deprecated by Neon", apiclient.AuthProviderMock: "for tests only"}

// recordScope writes what was resolved back into the model.
func (m *scopeModel) recordScope(s neonauth.Scope) {
	m.recordBranch(s)
	if s.AuthProvider != "" {
		m.AuthProvider = types.StringValue(s.AuthProvider)
	}
}

// recordBranch writes a resolved branch back into the model.
func (m *branchModel) recordBranch(s neonauth.Scope) {
	if s.BranchID != "" {
		m.BranchID = types.StringValue(s.BranchID)
	}
}

// scopeOf is where the object of m lives (see neonauth.Service.Resolve): an
// omitted (or never recorded) branch_id is the production branch.
func (d *providerData) scopeOf(ctx context.Context, m scopeModel) (neonauth.Scope, error) {
	return d.auth.Resolve(ctx, m.ProjectID.ValueString(), knownString(m.BranchID), knownString(m.AuthProvider))
}

// resolveScope is scopeOf for a CRUD method, with an error diagnostic when
// the production branch cannot be found.
func (d *providerData) resolveScope(ctx context.Context, m scopeModel, summary string, diags *diag.Diagnostics) (neonauth.Scope, bool) {
	s, err := d.scopeOf(ctx, m)
	if err != nil {
		diags.AddError(summary, projectErrorDetail(s.ProjectID, "Looking up the production branch of project "+s.ProjectID, err))
		return s, false
	}
	return s, true
}

// withIntegrationProvider fills an auth provider the configuration left to
// the integration: the one integration of the scope. When there is none,
// an error diagnostic says why: the branch (or its project) is gone, or it
// has no Neon Auth.
func (d *providerData) withIntegrationProvider(ctx context.Context, s neonauth.Scope, summary string, diags *diag.Diagnostics) (neonauth.Scope, bool) {
	s, p, err := d.auth.WithIntegrationProvider(ctx, s)
	switch p {
	case neonauth.Present:
		return s, true
	case neonauth.Unknown:
		diags.AddError(summary, apiErrorDetail("Reading the integration of "+s.String(), err))
	case neonauth.NotVisible:
		diags.AddError(summary, projectNotVisibleDetail(s.ProjectID, err))
	default:
		if gone, gerr := d.branchGone(ctx, s.ProjectID, s.BranchID); gerr == nil && gone != "" {
			refuseGoneBranch(gone, diags) // the branch went with its integration: one cause, one message
			return s, false
		}
		diags.AddError(summary, fmt.Sprintf("The %s has no Neon Auth integration, so auth_provider cannot be taken from it. "+
			"Create a neon_auth_integration first and set project_id (and branch_id) from it, such as "+
			"project_id = neon_auth_integration.<name>.project_id, so that Terraform creates it before this resource.", s.Scope))
	}
	return s, false
}
