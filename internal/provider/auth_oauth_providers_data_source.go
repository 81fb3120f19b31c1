package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The neon_auth_oauth_providers data source: the OAuth providers of a branch's
// Neon Auth.

// NewAuthOAuthProvidersDataSource is the neon_auth_oauth_providers data source.
func NewAuthOAuthProvidersDataSource() datasource.DataSource {
	return &authOAuthProvidersDataSource{configuredDataSource: dataSourceAs(typeAuthOAuthProviders)}
}

type authOAuthProvidersDataSource struct {
	configuredDataSource
}

type authOAuthProvidersDataModel struct {
	branchModel
	ID        types.String                 `tfsdk:"id"`
	Providers []authOAuthProviderItemModel `tfsdk:"providers"`
}

type authOAuthProviderItemModel struct {
	ID   types.String `tfsdk:"id"`
	Type types.String `tfsdk:"type"`
}

func (d *authOAuthProvidersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The OAuth providers of a branch's Neon Auth (`GET …/auth/oauth_providers`, or with `auth_api = \"branch\"` " +
			"the `oauth_providers` of `GET …/auth/plugins`, shared with the branch's other settings), for audits and checks " +
			"such as \"production uses its own OAuth apps\". Client secrets are never exposed.",
		Attributes: withAttributes(dataBranchAttributes("whose OAuth providers are read"), map[string]schema.Attribute{
			"id": computedDataString("`<project_id>/<branch_id>`."),
			"providers": schema.ListNestedAttribute{
				MarkdownDescription: "The OAuth providers, as the API lists them.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":   computedDataString(enumText(apiclient.OAuthProviderIDs, nil) + "."),
					"type": computedDataString("`shared` (the platform's keys) or `standard` (your own OAuth app)."),
				}},
			},
		}),
	}
}

func (d *authOAuthProvidersDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg authOAuthProvidersDataModel
	summary := d.unable("Read")
	s, ok := d.openData(ctx, req, &cfg, &resp.Diagnostics)
	if !ok {
		return
	}
	list, err := d.data.auth.OAuthProviders(ctx, s)
	if isNotFound(err) && d.readGone(ctx, s, err, &resp.Diagnostics) {
		list, err = nil, nil
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, d.data.explainFailure(ctx, s, "Listing the OAuth providers of "+s.String(), err))
		return
	}
	cfg.ID = types.StringValue(compositeID(s.ProjectID, s.BranchID))
	cfg.recordBranch(s)
	cfg.Providers = []authOAuthProviderItemModel{}
	for _, p := range list {
		warnUnknownValue(&resp.Diagnostics, "The type of the "+string(p.ID)+" OAuth provider", p.Type, apiclient.TypeShared, apiclient.TypeStandard)
		cfg.Providers = append(cfg.Providers, authOAuthProviderItemModel{ID: types.StringValue(string(p.ID)), Type: types.StringValue(string(p.Type))})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
