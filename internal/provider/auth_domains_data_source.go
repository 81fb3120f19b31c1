package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The neon_auth_domains data source: the redirect URI whitelist of a branch's
// Neon Auth.

// NewAuthDomainsDataSource is the neon_auth_domains data source.
func NewAuthDomainsDataSource() datasource.DataSource {
	return &authDomainsDataSource{configuredDataSource: dataSourceAs(typeAuthDomains)}
}

type authDomainsDataSource struct {
	configuredDataSource
}

type authDomainsDataModel struct {
	branchModel
	ID      types.String          `tfsdk:"id"`
	Domains []authDomainItemModel `tfsdk:"domains"`
}

type authDomainItemModel struct {
	Domain       types.String `tfsdk:"domain"`
	AuthProvider types.String `tfsdk:"auth_provider"`
}

func (d *authDomainsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The redirect URI whitelist of a branch's Neon Auth (`GET …/auth/domains`), for audits and checks.",
		Attributes: withAttributes(dataBranchAttributes("whose whitelist is read"), map[string]schema.Attribute{
			"id": computedDataString("`<project_id>/<branch_id>`."),
			"domains": schema.ListNestedAttribute{
				MarkdownDescription: "The whitelisted origins, as the API lists them.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"domain":        computedDataString("The origin, in the API's canonical form."),
					"auth_provider": computedDataString("Auth provider of the integration it belongs to."),
				}},
			},
		}),
	}
}

func (d *authDomainsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg authDomainsDataModel
	summary := d.unable("Read")
	s, ok := d.openData(ctx, req, &cfg, &resp.Diagnostics)
	if !ok {
		return
	}
	list, err := d.data.auth.Domains(ctx, s)
	if isNotFound(err) && d.readGone(ctx, s, err, &resp.Diagnostics) {
		list, err = nil, nil
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, d.data.explainFailure(ctx, s, "Listing the redirect URI whitelist of "+s.String(), err))
		return
	}
	cfg.ID = types.StringValue(compositeID(s.ProjectID, s.BranchID))
	cfg.recordBranch(s)
	cfg.Domains = []authDomainItemModel{}
	for _, l := range list {
		cfg.Domains = append(cfg.Domains, authDomainItemModel{Domain: types.StringValue(l.Domain), AuthProvider: optionalString(l.AuthProvider)})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
