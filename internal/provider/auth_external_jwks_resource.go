package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_external_jwks resource: the JSON Web Key Set of an external
// identity provider (Clerk, Auth0, Cognito, Stytch) that a project trusts to
// verify JWTs, on all its branches or one.

var (
	_ resource.ResourceWithImportState = (*authExternalJWKSResource)(nil)
	_ resource.ResourceWithIdentity    = (*authExternalJWKSResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*authExternalJWKSResource)(nil)
)

// NewAuthExternalJWKSResource is the neon_auth_external_jwks resource.
func NewAuthExternalJWKSResource() resource.Resource {
	return &authExternalJWKSResource{configured: configuredAs(typeAuthExternalJWKS)}
}

type authExternalJWKSResource struct {
	configured
}

type authExternalJWKSModel struct {
	ProjectID        types.String `tfsdk:"project_id"`
	BranchID         types.String `tfsdk:"branch_id"`
	ID               types.String `tfsdk:"id"`
	JWKSID           types.String `tfsdk:"jwks_id"`
	JWKSURL          types.String `tfsdk:"jwks_url"`
	ProviderName     types.String `tfsdk:"provider_name"`
	JWTAudience      types.String `tfsdk:"jwt_audience"`
	RoleNames        types.List   `tfsdk:"role_names"`
	SkipRoleCreation types.Bool   `tfsdk:"skip_role_creation"`
	CreatedAt        types.String `tfsdk:"created_at"`
}

// deprecatedRLS is the reference's deprecation of role_names and
// skip_role_creation, shown as a warning where they are set.
const deprecatedRLS = "Deprecated by Neon: only for Neon RLS, its predecessor of the Data API. Leave it out."

func (r *authExternalJWKSResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The JSON Web Key Set of an external identity provider (Clerk, Auth0, Cognito, Stytch, …) that a " +
			"project trusts to verify the JWTs of requests to its branches' endpoints (`/projects/{project_id}/jwks`). It cannot " +
			"change: every argument replaces it. Neon Auth's own keys need none (see `neon_auth_data_api`). Import with " +
			"`<project_id>/<jwks_id>`.",
		Attributes: map[string]schema.Attribute{
			"project_id": projectIDAttribute("Id of the Neon project."),
			"branch_id": schema.StringAttribute{
				MarkdownDescription: "Id of the one branch whose endpoints trust it. Omitted: every branch of the project, also " +
					"those created later. A branch created from this one does not get it. Changing it replaces the resource.",
				Optional: true, PlanModifiers: replace, Validators: projectIDValidators(),
			},
			"id":      computedString("`<project_id>/<jwks_id>`.", false),
			"jwks_id": computedString("The JWKS's id, given by the API.", false),
			"jwks_url": schema.StringAttribute{
				MarkdownDescription: "HTTPS URL of the provider's JSON Web Key Set, such as " +
					"`https://<your-app>.clerk.accounts.dev/.well-known/jwks.json`. Neon fetches it when it is added and refuses " +
					"it unless it answers a key set. Changing it replaces the resource.",
				Required: true, PlanModifiers: replace, Validators: []validator.String{jwksURLValidator()},
			},
			"provider_name": schema.StringAttribute{
				MarkdownDescription: "Name of the identity provider, such as `Clerk`. Changing it replaces the resource.",
				Required:            true, PlanModifiers: replace, Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"jwt_audience": schema.StringAttribute{
				MarkdownDescription: "The `aud` claim the JWTs must have. Changing it replaces the resource.",
				Optional:            true, PlanModifiers: replace, Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"role_names": schema.ListAttribute{
				MarkdownDescription: "Postgres roles the JWTs may act as. Omitted: the API's default, `authenticator`, " +
					"`authenticated` and `anonymous`, as it reports them. Changing it replaces the resource.",
				DeprecationMessage: deprecatedRLS,
				Optional:           true, Computed: true, ElementType: types.StringType,
				PlanModifiers: []planmodifier.List{useStateWhenOmitted{}, listplanmodifier.RequiresReplace()},
				Validators: []validator.List{listvalidator.SizeBetween(1, 10), listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"skip_role_creation": schema.BoolAttribute{
				MarkdownDescription: "Do not create the roles of `role_names`. Changing it replaces the resource. The API never " +
					"returns it, so after an import the configured value is filled in, in place.",
				DeprecationMessage: deprecatedRLS,
				Optional:           true, PlanModifiers: []planmodifier.Bool{boolReplaceUnlessImported()},
			},
			"created_at": computedString("When the project started trusting it (RFC 3339).", false),
		},
	}
}

// jwksImport is the import id.
var jwksImport = importFormat{
	resourceType: typeAuthExternalJWKS, parts: []string{"jwks_id"},
	example: "autumn-frost-12345678/8d0c4f7e-2b1a-4c3d-9e8f-1a2b3c4d5e6f",
}

// request is what adding the model's JWKS sends.
func (m authExternalJWKSModel) request(ctx context.Context) (apiclient.AddJWKSRequest, diag.Diagnostics) {
	req := apiclient.AddJWKSRequest{JWKSURL: m.JWKSURL.ValueString(), ProviderName: m.ProviderName.ValueString(),
		BranchID: apiclient.Optional(m.BranchID.ValueString()), JwtAudience: apiclient.Optional(m.JWTAudience.ValueString()),
		SkipRoleCreation: m.SkipRoleCreation.ValueBoolPointer()}
	var diags diag.Diagnostics
	if isKnownSet(m.RoleNames) {
		var roles []string
		diags = m.RoleNames.ElementsAs(ctx, &roles, false)
		req.RoleNames = &roles
	}
	return req, diags
}

// ModifyPlan checks a configured branch_id at plan time: a branch of the
// project. A JWKS already trusted for a branch deleted since stays in the
// state (it belongs to the project, which still lists it): the plan warns,
// as for the objects of that branch.
func (r *authExternalJWKSResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !r.data.ready() || req.Plan.Raw.IsNull() {
		return
	}
	var project, branch types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("project_id"), &project)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("branch_id"), &branch)...)
	if !isKnownSet(project) || !isKnownSet(branch) {
		return
	}
	if req.State.Raw.IsNull() {
		r.data.planBranchExists(ctx, project.ValueString(), branch.ValueString(), &resp.Diagnostics)
		return
	}
	if gone, err := r.data.branchGone(ctx, project.ValueString(), branch.ValueString()); err == nil && gone != "" {
		resp.Diagnostics.AddAttributeWarning(path.Root("branch_id"), "Branch not in the project",
			gone+" The project still trusts this JWKS for it: a JWKS belongs to the project, not to the branch it names. "+
				"`terraform destroy` deletes it; to keep trusting it, point branch_id at an existing branch, which replaces it.")
	}
}

// Create adds the JWKS unless the project already trusts the same URL for
// the same branches: a JWKS belongs to the project, never inherited, so one
// found listed was added by someone else and is refused with an import hint.
func (r *authExternalJWKSResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer jwksImport.identifyCreated(ctx, resp)
	summary := r.unable("Create")
	plan, ok := begin[authExternalJWKSModel](ctx, r.data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	projectID := plan.ProjectID.ValueString()
	if branch := knownString(plan.BranchID); branch != "" && !r.data.requireBranch(ctx, projectID, branch, summary, &resp.Diagnostics) {
		return
	}
	body, diags := plan.request(ctx)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	what := fmt.Sprintf("Adding the JWKS %s of %s to project %s", body.JWKSURL, body.ProviderName, projectID)
	listed, err := r.data.auth.JWKS(ctx, projectID)
	if err != nil {
		resp.Diagnostics.AddError(summary, projectErrorDetail(projectID, "Listing the JWKS of project "+projectID, err))
		return
	}
	refuse := func(id string) {
		resp.Diagnostics.AddError(summary, what+": the project already trusts it."+importHint(fmt.Sprintf("Project %s already has a JWKS "+
			"of that URL for %s, which another configuration, a person or a tool added (a JWKS belongs to the project; no branch "+
			"inherits one).", projectID, jwksBranches(body.BranchID)), jwksImport.resourceType, compositeID(projectID, id)))
	}
	if i := slices.IndexFunc(listed, func(j apiclient.JWKS) bool { return apiclient.SameJWKS(j, body) }); i >= 0 {
		refuse(listed[i].ID)
		return
	}
	added, err := r.data.auth.AddJWKS(ctx, projectID, body)
	if errors.Is(err, apiclient.ErrConflict) {
		refuse("<jwks_id>")
		return
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, projectErrorDetail(projectID, what, err))
		return
	}
	if added.Recovered {
		resp.Diagnostics.AddWarning("Auth External JWKS added; response lost",
			fmt.Sprintf("The response to adding the JWKS %s to project %s was lost in transit, but the project lists it, so it was "+
				"recovered into the state (id %s).", body.JWKSURL, projectID, added.ID))
	}
	resp.Diagnostics.Append(plan.fromAPI(ctx, added.JWKS)...)
	tflog.Debug(ctx, "added JWKS", map[string]any{"project_id": projectID, "jwks_id": added.ID})
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// jwksBranches names the branches a JWKS is for, in messages.
func jwksBranches(branchID *string) string {
	if branchID == nil {
		return "every branch"
	}
	return "branch " + *branchID
}

func (r *authExternalJWKSResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer jwksImport.identifyRead(ctx, req, resp)
	state, ok := begin[authExternalJWKSModel](ctx, r.data, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	projectID, id := state.ProjectID.ValueString(), state.JWKSID.ValueString()
	switch p, found, err := r.data.auth.JWKSPresence(ctx, projectID, id); p {
	case neonauth.Present:
		resp.Diagnostics.Append(state.fromAPI(ctx, *found)...)
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	case neonauth.Gone:
		r.removeGone(ctx, projectID, "", "the JWKS "+id, err, resp)
	case neonauth.NotVisible:
		resp.Diagnostics.AddError(r.unable("Read"), projectNotVisibleDetail(projectID, err)+stateRmWhenGone)
	default:
		resp.Diagnostics.AddError(r.unable("Read"), apiErrorDetail("Listing the JWKS of project "+projectID, err))
	}
}

// fromAPI writes what the API tells of the JWKS into m. skip_role_creation,
// never returned, keeps its value.
func (m *authExternalJWKSModel) fromAPI(ctx context.Context, j apiclient.JWKS) diag.Diagnostics {
	m.ProjectID, m.JWKSID = types.StringValue(j.ProjectID), types.StringValue(j.ID)
	m.ID = types.StringValue(compositeID(j.ProjectID, j.ID))
	m.BranchID, m.JWTAudience = types.StringPointerValue(j.BranchID), types.StringPointerValue(j.JwtAudience)
	m.JWKSURL, m.ProviderName = types.StringValue(j.JWKSURL), types.StringValue(j.ProviderName)
	m.CreatedAt = types.StringValue(apiclient.Timestamp(j.CreatedAt))
	var diags diag.Diagnostics
	m.RoleNames = types.ListNull(types.StringType)
	if j.RoleNames != nil {
		m.RoleNames, diags = types.ListValueFrom(ctx, types.StringType, *j.RoleNames)
	}
	return diags
}

// Update records the skip_role_creation an import could not read; every
// other change replaces the JWKS. Nothing is sent.
func (r *authExternalJWKSResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer jwksImport.identifyUpdated(ctx, resp)
	var plan authExternalJWKSModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateImported, nil)...)
}

func (r *authExternalJWKSResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := begin[authExternalJWKSModel](ctx, r.data, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	projectID, id := state.ProjectID.ValueString(), state.JWKSID.ValueString()
	r.settleDeleteBy(ctx, projectID, r.data.auth.DeleteJWKS(ctx, projectID, id), fmt.Sprintf("Removing the JWKS %s from project %s", id, projectID),
		func() (neonauth.Presence, error) {
			p, _, err := r.data.auth.JWKSPresence(ctx, projectID, id)
			return p, err
		}, nil, &resp.Diagnostics)
}

func (r *authExternalJWKSResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = jwksImport.identitySchema()
}

func (r *authExternalJWKSResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	v, ok := jwksImport.importState(ctx, &req, resp)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), compositeID(v["project_id"], v["jwks_id"]))...)
	if resp.Private != nil { // a list resource's result has none
		setPrivateString(ctx, resp.Private, privateImported, "true", &resp.Diagnostics) // skip_role_creation is unknown
	}
}

// NewAuthExternalJWKSList finds the neon_auth_external_jwks objects of a
// project: every JWKS of the project (with branch_id, those of that
// branch), named by its provider and URL. It searches one scope: the
// project, with the branch to keep to ("" for all).
func NewAuthExternalJWKSList() list.ListResource {
	return &objectList{listedResource: &authExternalJWKSResource{configured: configuredAs(typeAuthExternalJWKS)},
		schema: listConfigSchemaOf("Finds the JWKS of external identity providers that a Neon project trusts.",
			"Id of a branch: only the JWKS of that one branch. Omitted: every JWKS of the project, of all branches or one."),
		scopes: func(_ *configured, _ context.Context, cfg listConfigModel) ([]listScope, error) {
			return []listScope{{Scope: neonauth.Scope{Scope: apiclient.Scope{ProjectID: cfg.ProjectID.ValueString(),
				BranchID: cfg.BranchID.ValueString()}}}}, nil
		},
		find: func(ctx context.Context, auth *neonauth.Service, s listScope) ([]foundObject, error) {
			all, err := auth.JWKS(ctx, s.ProjectID)
			var out []foundObject
			for _, j := range all {
				if s.BranchID == "" || apiclient.Deref(j.BranchID) == s.BranchID {
					out = append(out, foundObject{compositeID(s.ProjectID, j.ID), j.ProviderName + " (" + j.JWKSURL + ", " + jwksBranches(j.BranchID) + ")"})
				}
			}
			return out, err
		}}
}
