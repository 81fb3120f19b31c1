package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
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
// a 404 it first finds out whether the scope's branch and integration are
// there (the only I/O), then explains with scopeErrorDetail.
func (d *providerData) explainFailure(ctx context.Context, s neonauth.Scope, what string, err error) string {
	if !isNotFound(err) {
		return apiErrorDetail(what, err)
	}
	if d.auth.BranchMissing(ctx, s) {
		return apiErrorDetail(what, err) + " " + branchNotInProject(s.ProjectID, s.BranchID)
	}
	p, perr := d.auth.Absence(ctx, s, nil)
	return scopeErrorDetail(s, what, err, p, perr)
}

// explainProjectFailure is explainFailure for a request on the scope itself
// (enabling Neon Auth): a 404 is a branch of another project, or a project
// this key cannot see.
func (d *providerData) explainProjectFailure(ctx context.Context, s neonauth.Scope, what string, err error) string {
	if isNotFound(err) && d.auth.BranchMissing(ctx, s) {
		return apiErrorDetail(what, err) + " " + branchNotInProject(s.ProjectID, s.BranchID)
	}
	return projectErrorDetail(s.ProjectID, what, err)
}

// readListed is the Read of a thing found by listing: true when it is
// listed. When a successful read shows it gone, it is removed from state (so
// the next plan creates it again); when the API does not say, an error leaves
// state as it is. listed is as for neonauth's Absence.
func (c *configured) readListed(ctx context.Context, s neonauth.Scope, listed neonauth.Listed, what string, resp *resource.ReadResponse) bool {
	p, err := c.data.auth.Absence(ctx, s, listed)
	switch p {
	case neonauth.Present:
		return true
	case neonauth.Gone:
		c.removeGone(ctx, s.ProjectID, s.BranchID, what, err, resp)
	case neonauth.NotVisible:
		resp.Diagnostics.AddError(c.unable("Read"), projectNotVisibleDetail(s.ProjectID, err)+stateRmWhenGone)
	default:
		resp.Diagnostics.AddError(c.unable("Read"), apiErrorDetail("Reading "+what, err))
	}
	return false
}

// removeGone removes from state an object that a successful read shows
// gone: warned about when it went with its branch or project (why wraps
// neonauth's ErrBranchGone or ErrProjectGone), only logged otherwise (the
// plan shows the create that brings it back).
func (c *configured) removeGone(ctx context.Context, projectID, branchID, what string, why error, resp *resource.ReadResponse) {
	tflog.Warn(ctx, what+" no longer exists; removing it from state", map[string]any{"project_id": projectID, "branch_id": branchID})
	c.warnGoneWith(&resp.Diagnostics, projectID, branchID, why)
	resp.State.RemoveResource(ctx)
}

// warnGoneWith warns that refresh removed an object of this type from state
// because its branch or project is gone (why wraps neonauth's ErrBranchGone
// or ErrProjectGone), and says what comes next; nothing for another why.
// The summary is the same for every type, so Terraform gathers the warnings
// of one refresh into one.
func (c *configured) warnGoneWith(diags *diag.Diagnostics, projectID, branchID string, why error) {
	var summary, gone string
	switch {
	case errors.Is(why, neonauth.ErrBranchGone):
		summary, gone = "Branch deleted: its objects removed from state", fmt.Sprintf("branch %s of project %s no longer exists", branchID, projectID)
	case errors.Is(why, neonauth.ErrProjectGone):
		summary, gone = "Project deleted: its objects removed from state", fmt.Sprintf("project %s was deleted", projectID)
	default:
		return
	}
	diags.AddWarning(summary, fmt.Sprintf("A %s was removed from the state: %s, and the object went with it. Platforms delete "+
		"a preview's branch when its pull request closes, often before the pull request's own `terraform destroy`: that "+
		"destroy now finishes with nothing left to delete, sending only reads. A configuration that still names the branch "+
		"plans to create the object again, and apply refuses: run `terraform destroy`, or point branch_id at an existing "+
		"branch.", c.typeName, gone))
}

// settleDelete resolves the answer of a delete: success, or a 404 for
// something a successful read shows gone (already deleted counts as
// deleted). listed is as for neonauth's Absence.
func (c *configured) settleDelete(ctx context.Context, s neonauth.Scope, err error, listed neonauth.Listed, what string, diags *diag.Diagnostics) {
	c.settleDeleteBy(ctx, s.ProjectID, err, what, func() (neonauth.Presence, error) { return c.data.auth.Absence(ctx, s, listed) },
		func(p neonauth.Presence, perr error) string { return scopeErrorDetail(s, what, err, p, perr) }, diags)
}

// settleDeleteBy is settleDelete for an object whose 404 absent explains
// (neonauth's Absence, DataAPIAbsence or JWKSPresence); explain describes a
// 404 that absent could not settle (nil: the error and why it could not).
func (c *configured) settleDeleteBy(ctx context.Context, projectID string, err error, what string,
	absent func() (neonauth.Presence, error), explain func(neonauth.Presence, error) string, diags *diag.Diagnostics,
) {
	if err == nil {
		return
	}
	summary := c.unable("Delete")
	if !isNotFound(err) {
		diags.AddError(summary, apiErrorDetail(what, err))
		return
	}
	p, perr := absent()
	switch p {
	case neonauth.Gone:
		tflog.Debug(ctx, what+": already gone", map[string]any{"project_id": projectID})
	case neonauth.NotVisible:
		diags.AddError(summary, projectNotVisibleDetail(projectID, perr)+stateRmWhenGone)
	case neonauth.Present:
		diags.AddError(summary, apiErrorDetail(what, err)+" Yet it is still listed; run apply again.")
	default:
		if explain != nil {
			diags.AddError(summary, explain(p, perr))
		} else {
			diags.AddError(summary, apiErrorDetail(what, errors.Join(err, perr)))
		}
	}
}

// base is the configured part of a type, for what works on any type (its
// list resource).
func (c *configured) base() *configured { return c }

// stateGetter is what resource.ReadRequest, UpdateRequest and DeleteRequest
// state share: reading the prior state into a model.
type stateGetter interface {
	Get(context.Context, any) diag.Diagnostics
}

// requireClient reports an error when there is no service (so no API
// client) and returns whether the caller may go on. Only a provider block
// with unknown values is blamed on them; a type that was handed nothing is a
// bug of the provider.
func requireClient(pd *providerData, diags *diag.Diagnostics) bool {
	switch {
	case pd.ready():
		return true
	case pd != nil:
		diags.AddError("Neon provider not configured",
			"The provider block had values that were not known during plan (for example an api_key from another resource; "+
				"here "+pd.pending+"), so no API client exists yet. Run apply again once those values are known, or set them "+
				"from static values or environment variables.")
	default:
		diags.AddError("Neon provider not configured",
			"This type was not handed the provider's API client. This is a bug in the provider; please report it.")
	}
	return false
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

// providerSource says where beginIn finds the auth provider of a model that
// names none.
type providerSource bool

const (
	// fromModel leaves it open: what the method does needs none, or the
	// model always names one.
	fromModel providerSource = false
	// fromIntegration takes the one of the scope's integration (a shared
	// read of the integrations).
	fromIntegration providerSource = true
)

// beginIn is begin for an object under Neon Auth: it also resolves the
// object's scope (the production branch when the model names none) and,
// with fromIntegration, the integration's auth provider when the model has
// none.
func beginIn[M located](ctx context.Context, d *providerData, from stateGetter, summary string, source providerSource, diags *diag.Diagnostics) (M, neonauth.Scope, bool) {
	m, ok := begin[M](ctx, d, from, diags)
	if !ok {
		return m, neonauth.Scope{}, false
	}
	s, ok := d.resolveScope(ctx, m.where(), summary, diags)
	if ok && source == fromIntegration {
		s, ok = d.withIntegrationProvider(ctx, s, summary, diags)
	}
	return m, s, ok
}

// beginStack is beginIn for SDK keys and ownership transfers, which live
// on the production branch's Stack Auth integration (their endpoints have
// no branch-scoped successor): any other integration is an error naming t.
func beginStack[M located](ctx context.Context, d *providerData, t typeName, from stateGetter, summary string, diags *diag.Diagnostics) (M, neonauth.Scope, bool) {
	m, s, ok := beginIn[M](ctx, d, from, summary, fromIntegration, diags)
	if ok && s.AuthProvider != apiclient.AuthProviderStack {
		diags.AddError(summary, productionStackOnly(t))
		return m, s, false
	}
	return m, s, ok
}
