package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

var (
	_ datasource.DataSource              = (*authIntegrationsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*authIntegrationsDataSource)(nil)
)

// NewAuthIntegrationsDataSource is the neon_auth_integrations data source.
func NewAuthIntegrationsDataSource() datasource.DataSource { return &authIntegrationsDataSource{} }

type authIntegrationsDataSource struct {
	configuredDataSource
}

type authIntegrationsDataModel struct {
	ID           types.String                `tfsdk:"id"`
	ProjectID    types.String                `tfsdk:"project_id"`
	Integrations []authIntegrationsItemModel `tfsdk:"integrations"`
}

type authIntegrationsItemModel struct {
	AuthProvider          types.String `tfsdk:"auth_provider"`
	AuthProviderProjectID types.String `tfsdk:"auth_provider_project_id"`
	BranchID              types.String `tfsdk:"branch_id"`
	DBName                types.String `tfsdk:"db_name"`
	CreatedAt             types.String `tfsdk:"created_at"`
	OwnedBy               types.String `tfsdk:"owned_by"`
	JWKSURL               types.String `tfsdk:"jwks_url"`
}

func (d *authIntegrationsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_auth_integrations"
}

func (d *authIntegrationsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "All active auth integrations of a project, from `GET /projects/{project_id}/auth/integrations`.",
		Attributes: map[string]schema.Attribute{
			"id": computed("The project id."),
			"project_id": schema.StringAttribute{
				MarkdownDescription: "Id of the Neon project.",
				Required:            true,
				Validators:          projectIDValidators(),
			},
			"integrations": schema.ListNestedAttribute{
				MarkdownDescription: "The active integrations, as listed by the API.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"auth_provider":            computed("Auth provider (`stack`)."),
					"auth_provider_project_id": computed("Id of the managed project at the auth provider."),
					"branch_id":                computed("Branch the integration is attached to."),
					"db_name":                  computed("Database name."),
					"created_at":               computed("Creation time, ISO 8601 UTC."),
					"owned_by":                 computed("Current owner of the auth project."),
					"jwks_url":                 computed("URL of the JSON Web Key Set of the provider project."),
				}},
			},
		},
	}
}

func (d *authIntegrationsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if !requireClient(d.data, &resp.Diagnostics) {
		return
	}
	var cfg authIntegrationsDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	projectID := cfg.ProjectID.ValueString()
	list, err := d.data.integrations(ctx, d.data.scope(projectID, "").Scope)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read Auth Integrations",
			projectErrorDetail(projectID, "Listing the integrations of project "+projectID, err))
		return
	}
	cfg.ID = types.StringValue(projectID)
	cfg.Integrations = make([]authIntegrationsItemModel, 0, len(list))
	for _, it := range list {
		cfg.Integrations = append(cfg.Integrations, integrationItem(it))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

func integrationItem(it apiclient.Integration) authIntegrationsItemModel {
	return authIntegrationsItemModel{
		AuthProvider:          types.StringValue(it.AuthProvider),
		AuthProviderProjectID: types.StringValue(it.AuthProviderProjectID),
		BranchID:              types.StringValue(it.BranchID),
		DBName:                types.StringValue(it.DBName),
		CreatedAt:             types.StringValue(it.CreatedAt),
		OwnedBy:               types.StringValue(it.OwnedBy),
		JWKSURL:               types.StringValue(it.JWKSURL),
	}
}
