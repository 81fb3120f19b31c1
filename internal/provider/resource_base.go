package provider

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// What every resource and data source holds and does the same way: its type
// name and configured data, the explanation of an API failure, and the
// outcomes of reading and deleting something found by listing.

// configured is embedded by every resource: its type name and the data
// Configure hands over.
type configured struct {
	data *providerData
	typeName
}

// configuredAs is the configured of a resource of type t.
func configuredAs(t typeName) configured { return configured{typeName: t} }

func (c *configured) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = string(c.typeName)
}

// Configure keeps what the provider's Configure handed over.
func (c *configured) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// configuredDataSource is configured for data sources.
type configuredDataSource struct {
	data *providerData
	typeName
}

// dataSourceAs is the configuredDataSource of a data source of type t.
func dataSourceAs(t typeName) configuredDataSource { return configuredDataSource{typeName: t} }

func (c *configuredDataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = string(c.typeName)
}

// Configure keeps what the provider's Configure handed over.
func (c *configuredDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// explainFailure describes an API failure on something under a scope. After
// a 404 it first finds out whether the scope's integration is there (the
// only I/O), then explains with scopeErrorDetail.
func (d *providerData) explainFailure(ctx context.Context, s authScope, what string, err error) string {
	if !isNotFound(err) {
		return apiErrorDetail(what, err)
	}
	if detail, outside := d.branchOutside(ctx, s); outside {
		return apiErrorDetail(what, err) + " " + detail
	}
	p, perr := d.absence(ctx, s, nil)
	return scopeErrorDetail(s, what, err, p, perr)
}

// explainProjectFailure is explainFailure for a request on the scope itself
// (enabling Neon Auth): a 404 is a branch of another project, or a project
// this key cannot see.
func (d *providerData) explainProjectFailure(ctx context.Context, s authScope, what string, err error) string {
	if isNotFound(err) {
		if detail, outside := d.branchOutside(ctx, s); outside {
			return apiErrorDetail(what, err) + " " + detail
		}
	}
	return projectErrorDetail(s.ProjectID, what, err)
}

// branchOutside reports, after a 404 of the branch-scoped API, whether the
// scope's branch is missing from a fresh list of its project's branches (a
// branch of another project), and explains it naming branch_id.
func (d *providerData) branchOutside(ctx context.Context, s authScope) (string, bool) {
	if s.Family != apiclient.FamilyBranch || s.BranchID == "" {
		return "", false
	}
	d.reads.branches.invalidate(readKey{projectID: s.ProjectID})
	branches, err := d.branches(ctx, s.ProjectID)
	if err != nil || slices.ContainsFunc(branches, func(b apiclient.Branch) bool { return b.ID == s.BranchID }) {
		return "", false
	}
	return branchNotInProject(s.ProjectID, s.BranchID), true
}

// readListed is the Read of a thing found by listing: true when it is
// listed. When a successful read shows it gone, it is removed from state (so
// the next plan creates it again); when the API does not say, an error leaves
// state as it is.
func (d *providerData) readListed(ctx context.Context, s authScope, listed func(context.Context) (bool, error), summary, what string, resp *resource.ReadResponse) bool {
	p, err := d.absence(ctx, s, listed)
	switch p {
	case present:
		return true
	case gone:
		tflog.Warn(ctx, what+" no longer exists; removing it from state", map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID})
		resp.State.RemoveResource(ctx)
	case notVisible:
		resp.Diagnostics.AddError(summary, projectNotVisibleDetail(s.ProjectID, err)+stateRmWhenGone)
	default:
		resp.Diagnostics.AddError(summary, apiErrorDetail("Reading "+what, err))
	}
	return false
}

// settleDelete resolves the answer of a delete: success, or a 404 for
// something a successful read shows gone (already deleted counts as
// deleted). listed is as for absence.
func (d *providerData) settleDelete(ctx context.Context, s authScope, err error, listed func(context.Context) (bool, error), summary, what string, diags *diag.Diagnostics) {
	if err == nil {
		return
	}
	if !isNotFound(err) {
		diags.AddError(summary, apiErrorDetail(what, err))
		return
	}
	p, perr := d.absence(ctx, s, listed)
	switch p {
	case gone:
		tflog.Debug(ctx, what+": already gone", map[string]any{"project_id": s.ProjectID})
	case notVisible:
		diags.AddError(summary, projectNotVisibleDetail(s.ProjectID, perr)+stateRmWhenGone)
	case present:
		diags.AddError(summary, apiErrorDetail(what, err)+" Yet it is still listed; run apply again.")
	default:
		diags.AddError(summary, scopeErrorDetail(s, what, err, p, perr))
	}
}

// stateGetter is what resource.ReadRequest, UpdateRequest and DeleteRequest
// state share: reading the prior state into a model.
type stateGetter interface {
	Get(context.Context, any) diag.Diagnostics
}

// begin is the opening of every CRUD method that calls the API: the client
// must exist and the model must decode. ok is false when a diagnostic says
// why not.
func begin[M any](ctx context.Context, d *providerData, from stateGetter, diags *diag.Diagnostics) (M, bool) {
	var m M
	if !requireClient(d, diags) {
		return m, false
	}
	diags.Append(from.Get(ctx, &m)...)
	return m, !diags.HasError()
}

// located is a model that names where its object lives.
type located interface{ where() scopeModel }

// authProvider says whether beginIn leaves an auth provider the model does
// not name open (asModeled) or takes the scope's integration's
// (orIntegrations).
type authProvider bool

const (
	asModeled      authProvider = false
	orIntegrations authProvider = true
)

// beginIn is begin for an object under Neon Auth: it also resolves the
// object's scope (the production branch when the model names none) and,
// with orIntegrations, the integration's auth provider when the model has
// none.
func beginIn[M located](ctx context.Context, d *providerData, from stateGetter, summary string, provider authProvider, diags *diag.Diagnostics) (M, authScope, bool) {
	m, ok := begin[M](ctx, d, from, diags)
	if !ok {
		return m, authScope{}, false
	}
	s, ok := d.resolveScope(ctx, m.where(), summary, diags)
	if ok && provider == orIntegrations {
		s, ok = d.withIntegrationProvider(ctx, s, summary, diags)
	}
	return m, s, ok
}
