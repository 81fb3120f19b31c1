package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// Schema attributes that data sources share, and the opening of their Read.

// dataBranchAttributes are project_id and branch_id of a data source.
func dataBranchAttributes(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"project_id": schema.StringAttribute{
			MarkdownDescription: "Id of the Neon project.",
			Required:            true,
			Validators:          projectIDValidators(),
		},
		"branch_id": schema.StringAttribute{
			MarkdownDescription: "Id of the branch " + what + ". Omitted: the production branch. Another branch needs `auth_api = \"branch\"`.",
			Optional:            true,
			Computed:            true,
			Validators:          projectIDValidators(),
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
func (d *providerData) openData(ctx context.Context, req datasource.ReadRequest, cfg any, summary string, diags *diag.Diagnostics) (authScope, bool) {
	if !requireClient(d, diags) {
		return authScope{}, false
	}
	diags.Append(req.Config.Get(ctx, cfg)...)
	var m branchModel
	diags.Append(req.Config.GetAttribute(ctx, path.Root("project_id"), &m.ProjectID)...)
	diags.Append(req.Config.GetAttribute(ctx, path.Root("branch_id"), &m.BranchID)...)
	if diags.HasError() {
		return authScope{}, false
	}
	return d.dataScope(ctx, m, summary, diags)
}
