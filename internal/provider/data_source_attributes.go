package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// Schema attributes that data sources share, and the opening of their Read:
// the scope they read.

// dataBranchAttributes are project_id and branch_id of a data source.
func dataBranchAttributes(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"project_id": schema.StringAttribute{
			MarkdownDescription: "Id of the Neon project.",
			Required:            true,
			Validators:          projectIDValidators(),
		},
		"branch_id": schema.StringAttribute{
			MarkdownDescription: "Id of the branch " + what + ". Omitted: the production branch. Another branch needs `auth_api = \"branch\"`. " +
				"A branch that no longer exists (or a deleted project) reads as empty, with a warning, so that `terraform destroy` " +
				"still finishes after a platform deleted a preview's branch.",
			Optional:   true,
			Computed:   true,
			Validators: projectIDValidators(),
		},
	}
}

// computedDataString is a string a data source reports.
func computedDataString(description string) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: description, Computed: true}
}

// openData is the opening of a Neon Auth data source's Read: the client must
// exist, the configuration decodes into cfg, and the branch it names
// resolves.
func (c *configuredDataSource) openData(ctx context.Context, req datasource.ReadRequest, cfg any, diags *diag.Diagnostics) (neonauth.Scope, bool) {
	if !requireClient(c.data, diags) {
		return neonauth.Scope{}, false
	}
	diags.Append(req.Config.Get(ctx, cfg)...)
	var m branchModel
	diags.Append(req.Config.GetAttribute(ctx, path.Root("project_id"), &m.ProjectID)...)
	diags.Append(req.Config.GetAttribute(ctx, path.Root("branch_id"), &m.BranchID)...)
	if diags.HasError() {
		return neonauth.Scope{}, false
	}
	return c.dataScope(ctx, m, diags)
}

// dataScope resolves the scope a data source reads: the branch named, or the
// production branch. In project mode a branch other than the production one
// is refused (the project-level endpoints would read the production
// branch's Neon Auth instead).
func (c *configuredDataSource) dataScope(ctx context.Context, m branchModel, diags *diag.Diagnostics) (neonauth.Scope, bool) {
	summary, auth := c.unable("Read"), c.data.auth
	s, ok := c.data.resolveScope(ctx, scopeModel{branchModel: m}, summary, diags)
	if !ok || auth.Family() == apiclient.FamilyBranch || m.BranchID.IsNull() {
		return s, ok
	}
	prod, err := auth.ProductionBranch(ctx, s.ProjectID)
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

// readGone reports whether a data source's read failed because its branch
// or its project was deleted: a list of the project's branches, read
// afresh, lacks the branch; or the project answered 404 (notFound) and is
// among the key's deleted ones. Then it warns, and the caller sets its state
// empty instead of failing. Terraform reads data sources in the plan that
// `terraform destroy` makes too, and platforms delete a preview's branch
// when its pull request closes, often before that pull request's destroy:
// an error would keep the destroy from ever finishing. A configuration that
// still uses the branch is stopped where its resources name it (their plan
// warns and their apply refuses).
func (c *configuredDataSource) readGone(ctx context.Context, s neonauth.Scope, notFound error, diags *diag.Diagnostics) bool {
	var summary, gone string
	switch {
	case c.data.auth.BranchMissing(ctx, s):
		summary, gone = "Branch not in the project: data source read as empty", branchNotInProject(s.ProjectID, s.BranchID)
	case isNotFound(notFound):
		if p, _ := c.data.auth.ProjectAbsence(ctx, s.ProjectID, notFound); p != neonauth.Gone {
			return false
		}
		summary, gone = "Project deleted: data source read as empty", fmt.Sprintf("Project %s was deleted.", s.ProjectID)
	default:
		return false
	}
	diags.AddWarning(summary, gone+fmt.Sprintf(" %s reads as empty instead of failing, so that `terraform destroy`, which reads "+
		"data sources too, still finishes after a platform deleted a preview's branch. A configuration that still needs it "+
		"fails where its resources name the branch; point branch_id at an existing branch.", c.typeName))
	return true
}
