package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The neon_auth_integration data source: the Neon Auth integration of a branch.

// NewAuthIntegrationDataSource is the neon_auth_integration data source.
func NewAuthIntegrationDataSource() datasource.DataSource {
	return &authIntegrationDataSource{configuredDataSource: dataSourceAs(typeAuthIntegration)}
}

type authIntegrationDataSource struct {
	configuredDataSource
}

type authIntegrationDataModel struct {
	ProjectID types.String `tfsdk:"project_id"`
	ID        types.String `tfsdk:"id"`
	authIntegrationsItemModel
}

func (d *authIntegrationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The Neon Auth integration of one branch, for audits and checks: `GET …/auth/integrations` or " +
			"`GET …/branches/{branch_id}/auth`. It holds no secret. A branch without Neon Auth is an error.",
		Attributes: withAttributes(dataBranchAttributes("whose integration is read"), integrationItemAttributes(), map[string]schema.Attribute{
			"id": computedDataString("`<project_id>/<branch_id>`."),
		}),
	}
}

func (d *authIntegrationDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg authIntegrationDataModel
	summary := d.unable("Read")
	s, ok := d.openData(ctx, req, &cfg, &resp.Diagnostics)
	if !ok {
		return
	}
	it, err := d.data.auth.Integration(ctx, s)
	cfg.ID = types.StringValue(compositeID(s.ProjectID, s.BranchID))
	switch {
	case (isNotFound(err) || err == nil && it == nil) && d.readGone(ctx, s, err, &resp.Diagnostics):
		cfg.authIntegrationsItemModel = authIntegrationsItemModel{BranchID: types.StringValue(s.BranchID)}
	case err == nil && it == nil:
		resp.Diagnostics.AddError(summary, "The "+s.String()+" has no Neon Auth integration.")
		return
	case err != nil:
		resp.Diagnostics.AddError(summary, projectErrorDetail(s.ProjectID, "Reading the integration of "+s.String(), err))
		return
	default:
		cfg.authIntegrationsItemModel = integrationItem(*it)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
