package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The neon_auth_integrations data source: the Neon Auth integrations of a
// branch.

// NewAuthIntegrationsDataSource is the neon_auth_integrations data source.
func NewAuthIntegrationsDataSource() datasource.DataSource {
	return &authIntegrationsDataSource{configuredDataSource: dataSourceAs(typeAuthIntegrations)}
}

type authIntegrationsDataSource struct {
	configuredDataSource
}

type authIntegrationsDataModel struct {
	branchModel
	ID           types.String                `tfsdk:"id"`
	Integrations []authIntegrationsItemModel `tfsdk:"integrations"`
}

type authIntegrationsItemModel struct {
	AuthProvider          types.String `tfsdk:"auth_provider"`
	AuthProviderProjectID types.String `tfsdk:"auth_provider_project_id"`
	BranchID              types.String `tfsdk:"branch_id"`
	DBName                types.String `tfsdk:"db_name"`
	CreatedAt             types.String `tfsdk:"created_at"`
	OwnedBy               types.String `tfsdk:"owned_by"`
	TransferStatus        types.String `tfsdk:"transfer_status"`
	JWKSURL               types.String `tfsdk:"jwks_url"`
	BaseURL               types.String `tfsdk:"base_url"`
	Name                  types.String `tfsdk:"name"`
}

func (d *authIntegrationsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The active Neon Auth integrations of a project's branch: `GET /projects/{project_id}/auth/integrations`, " +
			"or `GET /projects/{project_id}/branches/{branch_id}/auth` with `auth_api = \"branch\"`.",
		Attributes: withAttributes(dataBranchAttributes("whose integrations are listed"), map[string]schema.Attribute{
			"id": computedDataString("The project id."),
			"integrations": schema.ListNestedAttribute{
				MarkdownDescription: "The active integrations, as the API lists them (at most one per branch).",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: withAttributes(integrationItemAttributes(), map[string]schema.Attribute{
					"branch_id": computedDataString("Branch the integration is attached to."),
				})},
			},
		}),
	}
}

func (d *authIntegrationsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg authIntegrationsDataModel
	summary := d.unable("Read")
	s, ok := d.openData(ctx, req, &cfg, &resp.Diagnostics)
	if !ok {
		return
	}
	it, err := d.data.auth.Integration(ctx, s)
	if isNotFound(err) && d.readGone(ctx, s, err, &resp.Diagnostics) {
		it, err = nil, nil
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, projectErrorDetail(s.ProjectID, "Reading the integrations of "+s.String(), err))
		return
	}
	cfg.ID = types.StringValue(s.ProjectID)
	cfg.recordBranch(s)
	cfg.Integrations = []authIntegrationsItemModel{}
	if it != nil {
		cfg.Integrations = append(cfg.Integrations, integrationItem(*it))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

func integrationItem(it apiclient.Integration) authIntegrationsItemModel {
	return authIntegrationsItemModel{
		AuthProvider:          types.StringValue(string(it.AuthProvider)),
		AuthProviderProjectID: types.StringValue(it.AuthProviderProjectID),
		BranchID:              types.StringValue(it.BranchID),
		DBName:                types.StringValue(it.DBName),
		CreatedAt:             types.StringValue(apiclient.Timestamp(it.CreatedAt)),
		OwnedBy:               types.StringValue(string(it.OwnedBy)),
		TransferStatus:        optionalField(it.TransferStatus),
		JWKSURL:               types.StringValue(it.JWKSURL),
		BaseURL:               optionalField(it.BaseURL),
		Name:                  optionalField(it.Name),
	}
}

// integrationItemAttributes are the attributes of an integration as a data
// source reports it (branch_id aside).
func integrationItemAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"auth_provider":            computedDataString("Auth provider: " + enumText(apiclient.AuthProviders, nil) + "."),
		"auth_provider_project_id": computedDataString("Id of the project at the auth provider."),
		"db_name":                  computedDataString("Database name."),
		"created_at":               computedDataString("Creation time, ISO 8601 UTC."),
		"owned_by":                 computedDataString("Owner of the auth project: `neon` or `user`."),
		"transfer_status":          computedDataString("Ownership transfer: `initiated`, `finished`, or null."),
		"jwks_url":                 computedDataString("URL of the JSON Web Key Set."),
		"base_url":                 computedDataString("Base URL of the auth service, where the API reports it."),
		"name":                     computedDataString("Application name used in auth emails, where the API reports it."),
	}
}
