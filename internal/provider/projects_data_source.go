package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The neon_projects data source: the Neon projects the API key can see.

// NewProjectsDataSource is the neon_projects data source.
func NewProjectsDataSource() datasource.DataSource {
	return &projectsDataSource{configuredDataSource: dataSourceAs(typeProjects)}
}

type projectsDataSource struct {
	configuredDataSource
}

type projectsDataModel struct {
	ID                    types.String        `tfsdk:"id"`
	Search                types.String        `tfsdk:"search"`
	OrgID                 types.String        `tfsdk:"org_id"`
	PageSize              types.Int64         `tfsdk:"page_size"`
	Projects              []projectsItemModel `tfsdk:"projects"`
	UnavailableProjectIDs []types.String      `tfsdk:"unavailable_project_ids"`
}

type projectsItemModel struct {
	ID                     types.String `tfsdk:"id"`
	Name                   types.String `tfsdk:"name"`
	PlatformID             types.String `tfsdk:"platform_id"`
	RegionID               types.String `tfsdk:"region_id"`
	Provisioner            types.String `tfsdk:"provisioner"`
	PgVersion              types.Int64  `tfsdk:"pg_version"`
	Locked                 types.Bool   `tfsdk:"locked"`
	CPUUsedSec             types.Int64  `tfsdk:"cpu_used_sec"`
	CreatedAt              types.String `tfsdk:"created_at"`
	UpdatedAt              types.String `tfsdk:"updated_at"`
	ProxyHost              types.String `tfsdk:"proxy_host"`
	BranchLogicalSizeLimit types.Int64  `tfsdk:"branch_logical_size_limit"`
}

func (d *projectsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Every project the API key can see, from `GET /projects`, following all pages. " +
			"A project-scoped key sees only its own project.",
		Attributes: map[string]schema.Attribute{
			"id": str("`projects` or `projects?search=<search>`."),
			"search": schema.StringAttribute{
				MarkdownDescription: "Filter by partial project name or id (the API's `search`).",
				Optional:            true,
			},
			"org_id": schema.StringAttribute{
				MarkdownDescription: "Only the projects of this organization (the API's `org_id`). Some keys need it, such as a " +
					"personal key of a user in several organizations.",
				Optional:   true,
				Validators: projectIDValidators(),
			},
			"unavailable_project_ids": schema.ListAttribute{
				MarkdownDescription: "Projects the API could not read in time and listed by id only; a later read may return " +
					"them. A warning names them too.",
				ElementType: types.StringType,
				Computed:    true,
			},
			"page_size": schema.Int64Attribute{
				MarkdownDescription: "Projects per request (the API's `limit`, 1–400; default 400, the fewest requests). " +
					"Every page is read whatever the size.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, 400)},
			},
			"projects": schema.ListNestedAttribute{
				MarkdownDescription: "The projects, in the API's order.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":                        str("Project id."),
					"name":                      str("Project name."),
					"platform_id":               str("Cloud platform."),
					"region_id":                 str("Region."),
					"provisioner":               str("Provisioner."),
					"pg_version":                num("Postgres major version."),
					"locked":                    schema.BoolAttribute{MarkdownDescription: "Whether the project is locked.", Computed: true},
					"cpu_used_sec":              num("CPU seconds used."),
					"created_at":                str("Creation time, ISO 8601 UTC."),
					"updated_at":                str("Last update, ISO 8601 UTC."),
					"proxy_host":                str("Proxy host for connections."),
					"branch_logical_size_limit": num("Logical size limit of a branch."),
				}},
			},
		},
	}
}

func (d *projectsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if !requireClient(d.data, &resp.Diagnostics) {
		return
	}
	var cfg projectsDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	list, err := d.data.auth.ListProjects(ctx, apiclient.ListProjectsOptions{
		Search:   cfg.Search.ValueString(),
		OrgID:    cfg.OrgID.ValueString(),
		PageSize: int(cfg.PageSize.ValueInt64()),
	})
	if err != nil {
		resp.Diagnostics.AddError(d.unable("List"), apiErrorDetail("Listing projects", err))
		return
	}
	cfg.ID = types.StringValue("projects")
	if s := cfg.Search.ValueString(); s != "" {
		cfg.ID = types.StringValue("projects?search=" + s)
	}
	cfg.UnavailableProjectIDs = []types.String{}
	for _, id := range list.UnavailableProjectIDs {
		cfg.UnavailableProjectIDs = append(cfg.UnavailableProjectIDs, types.StringValue(id))
	}
	if n := len(list.UnavailableProjectIDs); n > 0 {
		resp.Diagnostics.AddWarning("Some projects were not available",
			fmt.Sprintf("The API listed %d project(s) by id only, without their details (it could not read them in time): %s. "+
				"They are in unavailable_project_ids; a later read may return them.", n, strings.Join(list.UnavailableProjectIDs, ", ")))
	}
	cfg.Projects = make([]projectsItemModel, 0, len(list.Projects))
	for _, p := range list.Projects {
		cfg.Projects = append(cfg.Projects, projectsItemModel{
			ID:                     types.StringValue(p.ID),
			Name:                   types.StringValue(p.Name),
			PlatformID:             types.StringValue(p.PlatformID),
			RegionID:               types.StringValue(p.RegionID),
			Provisioner:            types.StringValue(p.Provisioner),
			PgVersion:              types.Int64Value(int64(p.PgVersion)),
			Locked:                 types.BoolValue(apiclient.Deref(p.Locked)),
			CPUUsedSec:             types.Int64Value(p.CPUUsedSec),
			CreatedAt:              types.StringValue(apiclient.Timestamp(p.CreatedAt)),
			UpdatedAt:              types.StringValue(apiclient.Timestamp(p.UpdatedAt)),
			ProxyHost:              types.StringValue(p.ProxyHost),
			BranchLogicalSizeLimit: types.Int64Value(p.BranchLogicalSizeLimit),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
