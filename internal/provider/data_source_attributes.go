package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
)

// Schema attributes that data sources share.

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
