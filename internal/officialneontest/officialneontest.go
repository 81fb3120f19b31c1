// Package officialneontest is a stand-in for the official Neon provider
// (neondatabase/neon, formerly kislerdm/neon) in tests of configurations
// that use it beside this provider: its neon_project, neon_branch and
// neon_jwks_url with the arguments this provider's guides and tests use (a
// project's name; a branch's project_id, name and parent_id; a JWKS's
// project_id, jwks_url, provider_name and role_names) and their ids, through
// the same platform API. The real provider cannot be fetched where the tests run; it has been
// run against the emulator by hand (see the official-neon-provider guide).
package officialneontest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// Double is the stand-in's configuration: where the API is, with which key,
// and a hook run before each branch is created (tests use it to order the
// work).
type Double struct {
	BaseURL, Key       string
	BeforeBranchCreate func(projectID string)
}

// Server serves the stand-in, to be attached to the CLI under the source
// address "neondatabase/neon".
func (o *Double) Server() tfprotov6.ProviderServer {
	return providerserver.NewProtocol6(&officialProvider{o: o})()
}

// call sends one API request and decodes the answer into out (may be nil).
func (o *Double) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, o.BaseURL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+o.Key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s answered %d: %s", method, path, resp.StatusCode, data)
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	return json.Unmarshal(data, out)
}

type officialProvider struct{ o *Double }

func (p *officialProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "neon"
}

func (p *officialProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {
}

func (p *officialProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *officialProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &officialProject{o: p.o} },
		func() resource.Resource { return &officialBranch{o: p.o} },
		func() resource.Resource { return &officialJWKSURL{o: p.o} },
	}
}

func (p *officialProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// idAttribute is a computed id kept from creation on.
func idAttribute() schema.StringAttribute {
	return schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
}

// replacing is an optional argument whose change replaces the object.
func replacing(required bool) schema.StringAttribute {
	return schema.StringAttribute{Required: required, Optional: !required, Computed: !required,
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace(), stringplanmodifier.UseStateForUnknown()}}
}

type officialProject struct{ o *Double }

type officialProjectModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
}

func (r *officialProject) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "neon_project"
}

func (r *officialProject) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{"id": idAttribute(), "name": replacing(false)}}
}

func (r *officialProject) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m officialProjectModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	var out struct {
		Project struct{ ID, Name string }
	}
	body := map[string]any{"project": map[string]any{}}
	if !m.Name.IsUnknown() && !m.Name.IsNull() {
		body["project"] = map[string]any{"name": m.Name.ValueString()}
	}
	if err := r.o.call(ctx, http.MethodPost, "projects", body, &out); err != nil {
		resp.Diagnostics.AddError("creating the project", err.Error())
		return
	}
	m.ID, m.Name = types.StringValue(out.Project.ID), types.StringValue(out.Project.Name)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *officialProject) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *officialProject) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *officialProject) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m officialProjectModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if err := r.o.call(ctx, http.MethodDelete, "projects/"+m.ID.ValueString(), nil, nil); err != nil {
		resp.Diagnostics.AddError("deleting the project", err.Error())
	}
}

type officialBranch struct{ o *Double }

type officialBranchModel struct {
	ID        types.String `tfsdk:"id"`
	ProjectID types.String `tfsdk:"project_id"`
	Name      types.String `tfsdk:"name"`
	ParentID  types.String `tfsdk:"parent_id"`
}

func (r *officialBranch) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "neon_branch"
}

func (r *officialBranch) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id": idAttribute(), "project_id": replacing(true), "name": replacing(false), "parent_id": replacing(false),
	}}
}

func (r *officialBranch) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m officialBranchModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if r.o.BeforeBranchCreate != nil {
		r.o.BeforeBranchCreate(m.ProjectID.ValueString())
	}
	branch := map[string]any{}
	if !m.Name.IsUnknown() && !m.Name.IsNull() {
		branch["name"] = m.Name.ValueString()
	}
	if !m.ParentID.IsUnknown() && !m.ParentID.IsNull() {
		branch["parent_id"] = m.ParentID.ValueString()
	}
	var out struct {
		Branch struct {
			ID       string `json:"id"`
			Name     string `json:"name"`
			ParentID string `json:"parent_id"`
		}
	}
	if err := r.o.call(ctx, http.MethodPost, "projects/"+m.ProjectID.ValueString()+"/branches", map[string]any{"branch": branch}, &out); err != nil {
		resp.Diagnostics.AddError("creating the branch", err.Error())
		return
	}
	m.ID, m.Name, m.ParentID = types.StringValue(out.Branch.ID), types.StringValue(out.Branch.Name), types.StringValue(out.Branch.ParentID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *officialBranch) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *officialBranch) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *officialBranch) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m officialBranchModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if err := r.o.call(ctx, http.MethodDelete, "projects/"+m.ProjectID.ValueString()+"/branches/"+m.ID.ValueString(), nil, nil); err != nil {
		resp.Diagnostics.AddError("deleting the branch", err.Error())
	}
}

type officialJWKSURL struct{ o *Double }

type officialJWKSURLModel struct {
	ID           types.String `tfsdk:"id"`
	ProjectID    types.String `tfsdk:"project_id"`
	JWKSURL      types.String `tfsdk:"jwks_url"`
	ProviderName types.String `tfsdk:"provider_name"`
	RoleNames    types.List   `tfsdk:"role_names"`
}

func (r *officialJWKSURL) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "neon_jwks_url"
}

func (r *officialJWKSURL) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id": idAttribute(), "project_id": replacing(true), "jwks_url": replacing(true), "provider_name": replacing(true),
		"role_names": schema.ListAttribute{Required: true, ElementType: types.StringType,
			PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()}},
	}}
}

func (r *officialJWKSURL) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m officialJWKSURLModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	var roles []string
	resp.Diagnostics.Append(m.RoleNames.ElementsAs(ctx, &roles, false)...)
	var out struct {
		JWKS struct{ ID string } `json:"jwks"`
	}
	body := map[string]any{"jwks_url": m.JWKSURL.ValueString(), "provider_name": m.ProviderName.ValueString(), "role_names": roles}
	if err := r.o.call(ctx, http.MethodPost, "projects/"+m.ProjectID.ValueString()+"/jwks", body, &out); err != nil {
		resp.Diagnostics.AddError("adding the JWKS URL", err.Error())
		return
	}
	m.ID = types.StringValue(out.JWKS.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *officialJWKSURL) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *officialJWKSURL) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *officialJWKSURL) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m officialJWKSURLModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if err := r.o.call(ctx, http.MethodDelete, "projects/"+m.ProjectID.ValueString()+"/jwks/"+m.ID.ValueString(), nil, nil); err != nil {
		resp.Diagnostics.AddError("deleting the JWKS URL", err.Error())
	}
}
