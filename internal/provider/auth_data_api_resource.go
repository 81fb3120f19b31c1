package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_data_api resource: the Data API of a database on a branch,
// a REST interface over it that accepts the JWTs of the branch's Neon Auth
// (or of an external identity provider) and applies row-level security.

var (
	_ resource.ResourceWithImportState    = (*authDataAPIResource)(nil)
	_ resource.ResourceWithIdentity       = (*authDataAPIResource)(nil)
	_ resource.ResourceWithValidateConfig = (*authDataAPIResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*authDataAPIResource)(nil)
)

// NewAuthDataAPIResource is the neon_auth_data_api resource.
func NewAuthDataAPIResource() resource.Resource {
	return &authDataAPIResource{configured: configuredAs(typeAuthDataAPI)}
}

type authDataAPIResource struct {
	configured
}

type authDataAPIModel struct {
	branchModel
	ID               types.String `tfsdk:"id"`
	DatabaseName     types.String `tfsdk:"database_name"`
	AuthProvider     types.String `tfsdk:"auth_provider"`
	JWKSURL          types.String `tfsdk:"jwks_url"`
	ProviderName     types.String `tfsdk:"provider_name"`
	JWTAudience      types.String `tfsdk:"jwt_audience"`
	AddDefaultGrants types.Bool   `tfsdk:"add_default_grants"`
	SkipAuthSchema   types.Bool   `tfsdk:"skip_auth_schema"`
	Settings         types.Object `tfsdk:"settings"`
	URL              types.String `tfsdk:"url"`
	Status           types.String `tfsdk:"status"`
	AvailableSchemas types.List   `tfsdk:"available_schemas"`
}

// dataAPIActive is the status of a Data API that serves requests.
const dataAPIActive = "active"

// dataAPIReadyWait bounds how long a create waits for its Data API to
// become active (Neon says about 15 seconds). Meanwhile it reads the status
// after dataAPIFirstPoll, then at twice the interval before, up to
// dataAPIMaxPoll: quick for a fast start, a few reads for a slow one.
const (
	dataAPIReadyWait = 2 * time.Minute
	dataAPIFirstPoll = 250 * time.Millisecond
	dataAPIMaxPoll   = 4 * time.Second
)

// createOnly names a create-time argument in descriptions: the API never
// returns it, and PATCH cannot change it.
const createOnly = " A create-time option: a change replaces the Data API. The API never returns it, so after an import " +
	"the configured value is filled in, in place."

func (r *authDataAPIResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replaceWhenChanged := []planmodifier.String{replaceUnlessImported()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The Data API of a database on a branch (`…/branches/{branch_id}/data-api/{database_name}`): a " +
			"REST interface over the database that accepts the JWTs of the branch's Neon Auth (`auth_provider = \"neon_auth\"`) " +
			"or of another identity provider (`\"external\"`) and applies row-level security. Its `settings` change in place; " +
			"everything else replaces it. Import with `<project_id>/<branch_id>/<database_name>`; `<project_id>/<database_name>` " +
			"is the production branch's.",
		Attributes: withAttributes(branchAttributes("whose database the Data API serves", true), map[string]schema.Attribute{
			"id": computedString("`<project_id>/<branch_id>/<database_name>`.", false),
			"database_name": schema.StringAttribute{
				MarkdownDescription: "The database the Data API serves, such as `neondb`. Changing it replaces the resource.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"auth_provider": schema.StringAttribute{
				MarkdownDescription: "Whose JWTs the Data API accepts: `neon_auth`, those of the branch's Neon Auth (a " +
					"`neon_auth_integration` on the same branch); or `external`, those whose keys `jwks_url` publishes. " +
					"Required to create one." + createOnly,
				Optional:      true,
				PlanModifiers: replaceWhenChanged,
				Validators:    []validator.String{stringvalidator.OneOf(apiclient.DataAPIAuthProviders...)},
			},
			"jwks_url": schema.StringAttribute{
				MarkdownDescription: "HTTPS URL of the external identity provider's JSON Web Key Set, such as Clerk's or Auth0's " +
					"`…/.well-known/jwks.json`. With `auth_provider = \"external\"` only, and required there; Neon fetches it " +
					"at creation." + createOnly,
				Optional: true, PlanModifiers: replaceWhenChanged, Validators: []validator.String{jwksURLValidator()},
			},
			"provider_name": schema.StringAttribute{
				MarkdownDescription: "Name of the external identity provider, such as `Clerk`. With `auth_provider = " +
					"\"external\"` only, and required there." + createOnly,
				Optional: true, PlanModifiers: replaceWhenChanged, Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"jwt_audience": schema.StringAttribute{
				MarkdownDescription: "Refuse tokens whose `aud` claim is another audience. Tokens without an `aud` claim are still " +
					"accepted." + createOnly,
				Optional: true, PlanModifiers: replaceWhenChanged, Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"add_default_grants": schema.BoolAttribute{
				MarkdownDescription: "Grant the `authenticated` role `USAGE` on the `public` schema, `SELECT`, `INSERT`, " +
					"`UPDATE` and `DELETE` on its tables (also those created later) and `USAGE, SELECT` on its sequences. " +
					"Omitted: `false`, no grant. Row-level security still decides which rows; deleting the Data API revokes " +
					"nothing." + createOnly,
				Optional: true, PlanModifiers: []planmodifier.Bool{boolReplaceUnlessImported()},
			},
			"skip_auth_schema": schema.BoolAttribute{
				MarkdownDescription: "Do not create the `auth` schema (the `pg_session_jwt` extension), whose `auth.user_id()` " +
					"gives RLS policies the `sub` claim of the request's JWT. Omitted: `false`, the schema is created." + createOnly,
				Optional: true, PlanModifiers: []planmodifier.Bool{boolReplaceUnlessImported()},
			},
			"settings": dataAPISettingsAttribute(),
			"url": computedString("Where the Data API serves, on the branch's own endpoint: "+
				"`https://ep-….apirest.<region>.aws.neon.tech/<database_name>/rest/v1`.", false),
			"status": schema.StringAttribute{
				MarkdownDescription: "Deployment status as the API reports it; `active` once it serves. A create waits for it (up to 2 minutes).",
				Computed:            true,
			},
			"available_schemas": schema.ListAttribute{
				MarkdownDescription: "Schemas of the database the Data API can expose, as the API reports them.",
				Computed:            true,
				ElementType:         types.StringType,
			},
		}),
	}
}

// dataAPIImport is the import id.
var dataAPIImport = importFormat{
	resourceType: typeAuthDataAPI, parts: []string{"database_name"}, withBranch: true,
	example: "autumn-frost-12345678/br-quiet-leaf-12345678/neondb",
}

// ref names the Data API of the model on its resolved scope.
func (m authDataAPIModel) ref(s neonauth.Scope) apiclient.DataAPIRef {
	return apiclient.DataAPIRef{ProjectID: s.ProjectID, BranchID: s.BranchID, DatabaseName: m.DatabaseName.ValueString()}
}

// ValidateConfig checks that the auth arguments go together: external needs
// jwks_url and provider_name, which only external takes.
func (r *authDataAPIResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg authDataAPIModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if settings, _, diags := dataAPISettingsFromModel(ctx, cfg.Settings); !diags.HasError() && settings.DBSchemas != nil {
		schemas := *settings.DBSchemas
		for i, name := range schemas {
			if slices.Contains(schemas[:i], name) {
				resp.Diagnostics.AddAttributeError(path.Root("settings").AtName("db_schemas"), "Schema listed twice",
					fmt.Sprintf("`settings.db_schemas` lists the schema %q twice. List each schema once; the first is the default.", name))
				break
			}
		}
	}
	if cfg.AuthProvider.IsUnknown() {
		return
	}
	external := cfg.AuthProvider.ValueString() == apiclient.DataAPIAuthExternal
	for name, v := range map[string]types.String{"jwks_url": cfg.JWKSURL, "provider_name": cfg.ProviderName} {
		switch {
		case external && v.IsNull():
			resp.Diagnostics.AddAttributeError(path.Root(name), "Missing "+name,
				fmt.Sprintf("`auth_provider = %q` needs `%s`: the external identity provider's %s. Set it, or use "+
					"`auth_provider = %q` for the tokens of the branch's Neon Auth.", apiclient.DataAPIAuthExternal, name,
					map[string]string{"jwks_url": "JWKS URL (such as https://<your-app>.clerk.accounts.dev/.well-known/jwks.json)",
						"provider_name": "name (such as Clerk)"}[name], apiclient.DataAPIAuthNeonAuth))
		case !external && isSet(v):
			resp.Diagnostics.AddAttributeError(path.Root(name), "Unexpected "+name,
				fmt.Sprintf("`%s` names an external identity provider: it goes with `auth_provider = %q`. Set that, or remove `%s`.",
					name, apiclient.DataAPIAuthExternal, name))
		}
	}
}

// ModifyPlan checks the branch at plan time, needs an auth provider to
// create, and says what apply will take over and what destroy restores.
func (r *authDataAPIResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.planScope(ctx, scopeRules{anyBranch: true}, req, resp)
	const onDestroy = "Destroy leaves it on the branch, with the settings it had."
	var db types.String
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("database_name"), &db)...)
		r.planRestore(ctx, req, resp, "Data API of database "+db.ValueString(), onDestroy)
		return
	}
	if !req.State.Raw.IsNull() {
		return
	}
	var plan authDataAPIModel
	if resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	if plan.AuthProvider.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("auth_provider"), "Missing auth_provider",
			fmt.Sprintf("Creating a Data API needs `auth_provider`: %q to accept the tokens of the branch's Neon Auth, or %q "+
				"for another identity provider's (with jwks_url and provider_name).", apiclient.DataAPIAuthNeonAuth, apiclient.DataAPIAuthExternal))
		return
	}
	// The Data API lives beside Neon Auth, in the branch-scoped family
	// whatever auth_api says, and its auth_provider is not Neon Auth's.
	if name := plan.DatabaseName.ValueString(); isKnownSet(plan.DatabaseName) {
		r.planTakeOver(ctx, req, resp, plannedTakeOver{object: neonauth.Object{Kind: neonauth.KindDataAPI, Key: name},
			what: "Data API of database " + name, held: "which has a Data API on the same database", onDestroy: onDestroy, besideAuth: true,
			onBranch: func(ctx context.Context, s neonauth.Scope) (bool, error) {
				api, err := r.data.auth.DataAPI(ctx, plan.ref(s))
				return err == nil && api != nil, nil
			}})
	}
}

// dataAPIScope is the scope in which a Data API's take-over is decided:
// its branch, in the branch-scoped family (the Data API's only one).
func dataAPIScope(projectID, branchID string) neonauth.Scope {
	return neonauth.Scope{Scope: apiclient.Scope{ProjectID: projectID, BranchID: branchID, Family: apiclient.FamilyBranch}}
}

func (r *authDataAPIResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer dataAPIImport.identifyCreated(ctx, resp)
	summary := r.unable("Create")
	plan, s, ok := beginIn[authDataAPIModel](ctx, r.data, req.Plan, summary, fromModel, &resp.Diagnostics)
	if !ok || !r.data.requireBranch(ctx, s.ProjectID, s.BranchID, summary, &resp.Diagnostics) ||
		!r.requireNeonAuth(ctx, plan, s, summary, &resp.Diagnostics) {
		return
	}
	ref := plan.ref(s)
	switch found, err := r.data.auth.DataAPI(ctx, ref); {
	case err == nil:
		r.takeOver(ctx, plan, s, found, resp)
		return
	case !isNotFound(err):
		resp.Diagnostics.AddError(summary, r.explainDataAPIFailure(ctx, ref, "Reading "+ref.String(), err))
		return
	}
	body, diags := plan.createRequest(ctx)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	created, err := r.data.auth.CreateDataAPI(ctx, ref, body)
	if errors.Is(err, apiclient.ErrConflict) {
		// Made since the read above: decide on what is there now.
		if found, rerr := r.data.auth.GetDataAPI(ctx, ref); rerr == nil {
			r.takeOver(ctx, plan, s, found, resp)
			return
		}
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, r.explainDataAPIFailure(ctx, ref, "Creating "+ref.String(), err))
		return
	}
	if created.Recovered {
		resp.Diagnostics.AddWarning("Auth Data API created; response lost",
			fmt.Sprintf("The response to creating %s was lost in transit, but the Data API exists, so it was recovered into the state.", ref))
	}
	got := r.waitActive(ctx, ref, &resp.Diagnostics)
	if got == nil {
		got = &apiclient.DataAPI{URL: created.URL}
	}
	resp.Diagnostics.Append(plan.fromAPI(ctx, s, got)...)
	tflog.Debug(ctx, "created Data API", map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID, "database_name": ref.DatabaseName})
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// requireNeonAuth checks, for auth_provider neon_auth, that the branch has
// Neon Auth — in project mode, that it is the production branch, the only
// one whose Neon Auth the project-level endpoints reach. false when an
// error diagnostic says why not.
func (r *authDataAPIResource) requireNeonAuth(ctx context.Context, plan authDataAPIModel, s neonauth.Scope, summary string, diags *diag.Diagnostics) bool {
	if plan.AuthProvider.ValueString() != apiclient.DataAPIAuthNeonAuth {
		return true
	}
	if s.Family != apiclient.FamilyBranch {
		if prod, err := r.data.auth.ProductionBranch(ctx, s.ProjectID); err == nil && prod != s.BranchID {
			diags.AddAttributeError(path.Root("auth_provider"), "Neon Auth not reachable in project mode",
				fmt.Sprintf("auth_provider = %q needs the Neon Auth of branch %s, which is not the production branch (%s) of project %s; "+
					"the project-level endpoints (auth_api = %q) reach only the production branch's. Set auth_api = %q in the provider "+
					"block, or put the Data API on the production branch.", apiclient.DataAPIAuthNeonAuth, s.BranchID, prod, s.ProjectID,
					authAPIProject, authAPIBranch))
			return false
		}
	}
	it, err := r.data.auth.Integration(ctx, s)
	switch {
	case isNotFound(err):
		diags.AddError(summary, projectNotVisibleDetail(s.ProjectID, err))
	case err != nil:
		diags.AddError(summary, apiErrorDetail("Reading the Neon Auth of "+s.String(), err))
	case it == nil:
		diags.AddAttributeError(path.Root("auth_provider"), "Neon Auth not enabled on the branch",
			fmt.Sprintf("auth_provider = %[1]q makes the Data API accept the tokens of the branch's Neon Auth, but %[2]s has no "+
				"Neon Auth. Add a neon_auth_integration for the branch and set this resource's project_id and branch_id from it — "+
				"project_id = neon_auth_integration.<name>.project_id and branch_id = neon_auth_integration.<name>.branch_id — so that "+
				"Terraform enables Neon Auth before it creates the Data API, and destroys the Data API first. For another identity "+
				"provider, set auth_provider = %[3]q with jwks_url and provider_name instead.", apiclient.DataAPIAuthNeonAuth, s.Scope,
				apiclient.DataAPIAuthExternal))
	default:
		return true
	}
	return false
}

// createRequest is what a create sends: the auth arguments, the create
// options and the configured settings.
func (m authDataAPIModel) createRequest(ctx context.Context) (apiclient.CreateDataAPIRequest, diag.Diagnostics) {
	settings, configured, diags := dataAPISettingsFromModel(ctx, m.Settings)
	req := apiclient.CreateDataAPIRequest{
		AuthProvider: apiclient.DataAPIAuthProvider(m.AuthProvider.ValueString()),
		JWKSURL:      apiclient.Optional(m.JWKSURL.ValueString()), ProviderName: apiclient.Optional(m.ProviderName.ValueString()),
		JwtAudience:      apiclient.Optional(m.JWTAudience.ValueString()),
		AddDefaultGrants: knownPointer[bool](m.AddDefaultGrants), SkipAuthSchema: knownPointer[bool](m.SkipAuthSchema),
	}
	if configured {
		req.Settings = &settings
	}
	return req, diags
}

// waitActive reads the new Data API until it is active, for up to
// dataAPIReadyWait; then it warns and returns what it read last (nil: the
// API never showed it, which a read lagging its writes can cause).
func (r *authDataAPIResource) waitActive(ctx context.Context, ref apiclient.DataAPIRef, diags *diag.Diagnostics) *apiclient.DataAPI {
	deadline := time.Now().Add(dataAPIReadyWait)
	var last *apiclient.DataAPI
	for wait := dataAPIFirstPoll; ; wait = min(2*wait, dataAPIMaxPoll) {
		got, err := r.data.auth.GetDataAPI(ctx, ref)
		switch {
		case err == nil:
			last = got
			if got.Status == dataAPIActive {
				return got
			}
		case !isNotFound(err):
			diags.AddWarning("Auth Data API created; status unknown", apiErrorDetail("Reading "+ref.String()+" after creating it", err)+
				" The next refresh reads it again.")
			return last
		}
		if time.Now().Add(wait).After(deadline) {
			status := "it was not readable yet"
			if last != nil {
				status = fmt.Sprintf("its status was still %q", last.Status)
			}
			diags.AddWarning("Auth Data API not active yet",
				fmt.Sprintf("%s was created, but after %s %s. It may still be starting: the next refresh shows its status.",
					ref, dataAPIReadyWait, status))
			return last
		}
		select {
		case <-ctx.Done():
			return last
		case <-time.After(wait):
		}
	}
}

// explainDataAPIFailure describes a failed request on a Data API; after a
// 404 it says which part of the path is missing.
func (r *authDataAPIResource) explainDataAPIFailure(ctx context.Context, ref apiclient.DataAPIRef, what string, err error) string {
	if !isNotFound(err) {
		return apiErrorDetail(what, err)
	}
	switch p, perr := r.data.auth.DataAPIAbsence(ctx, ref); p {
	case neonauth.NotVisible:
		return projectNotVisibleDetail(ref.ProjectID, perr)
	case neonauth.Gone:
		if r.data.auth.BranchMissing(ctx, dataAPIScope(ref.ProjectID, ref.BranchID)) {
			return apiErrorDetail(what, err) + " " + branchNotInProject(ref.ProjectID, ref.BranchID)
		}
		return apiErrorDetail(what, err) + fmt.Sprintf(" Check that branch %s has a database named %s (GET /projects/%s/branches/%s/databases).",
			ref.BranchID, ref.DatabaseName, ref.ProjectID, ref.BranchID)
	default:
		return apiErrorDetail(what, err)
	}
}

// foundDataAPI is what taking over an inherited Data API found: its
// settings, in the API's shape, which destroy sends back.
type foundDataAPI struct {
	Settings apiclient.DataAPISettings `json:"settings"`
}

// takeOver follows a create that found a Data API already on the database:
// the branch's copy of its parent's is taken over and given the configured
// settings; anything else is refused with an import hint.
func (r *authDataAPIResource) takeOver(ctx context.Context, plan authDataAPIModel, s neonauth.Scope, found *apiclient.DataAPI, resp *resource.CreateResponse) {
	summary, ref := r.unable("Create"), plan.ref(s)
	to, ok := r.mayTakeOver(ctx, dataAPIScope(s.ProjectID, s.BranchID), neonauth.Object{Kind: neonauth.KindDataAPI, Key: ref.DatabaseName},
		fmt.Sprintf("Creating %s: it is already there.", ref), fmt.Sprintf("Database %s of %s already has a Data API.", ref.DatabaseName, s.Scope),
		compositeID(s.ProjectID, s.BranchID, ref.DatabaseName), &resp.Diagnostics)
	if !ok {
		return
	}
	inherited := apiclient.Deref(found.Settings)
	settings, configured, diags := dataAPISettingsFromModel(ctx, plan.Settings)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	got := found
	if configured {
		merged, err := overlaySettings(inherited, settings)
		if err == nil {
			got, err = r.write(ctx, ref, &merged)
		}
		if err != nil {
			resp.Diagnostics.AddError(summary, r.explainDataAPIFailure(ctx, ref, "Setting the settings of the Data API "+s.String()+" inherited", err))
			return
		}
	}
	resp.Diagnostics.Append(plan.fromAPI(ctx, s, got)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	tookOver(ctx, resp.Private, &resp.Diagnostics, s, to.Parent, foundDataAPI{Settings: inherited}, "Data API of database "+ref.DatabaseName,
		"which has a Data API on the same database",
		r.data.onDestroy("Destroy leaves it on the branch, with the settings it had.")+" The API does not show a Data API's auth "+
			"provider or create options: the copy keeps its parent's (with auth_provider = \"neon_auth\", it accepts the tokens of this "+
			"branch's own Neon Auth), whatever this configuration says of them.")
}

func (r *authDataAPIResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer dataAPIImport.identifyRead(ctx, req, resp)
	summary := r.unable("Read")
	state, s, ok := beginIn[authDataAPIModel](ctx, r.data, req.State, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	ref := state.ref(s)
	got, err := r.data.auth.DataAPI(ctx, ref)
	if isNotFound(err) {
		if g := r.gone(ctx, ref, "Reading "+ref.String(), err); g.gone {
			r.removeGone(ctx, s.ProjectID, s.BranchID, ref.String(), g.why, resp)
		} else {
			resp.Diagnostics.AddError(summary, g.detail)
		}
		return
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, apiErrorDetail("Reading "+ref.String(), err))
		return
	}
	resp.Diagnostics.Append(state.fromAPI(ctx, s, got)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// fromAPI writes what the API tells of the Data API into m: where it
// serves, its status, its settings (the model's when the API reports none)
// and its schemas. The create-time arguments, which the API never returns,
// keep their values.
func (m *authDataAPIModel) fromAPI(ctx context.Context, s neonauth.Scope, api *apiclient.DataAPI) diag.Diagnostics {
	m.recordBranch(s)
	m.ID = types.StringValue(branchObjectID(s, m.DatabaseName.ValueString()))
	m.URL, m.Status = types.StringValue(api.URL), types.StringValue(api.Status)
	var diags diag.Diagnostics
	m.AvailableSchemas, diags = types.ListValueFrom(ctx, types.StringType, apiclient.Deref(api.AvailableSchemas))
	if api.AvailableSchemas == nil {
		m.AvailableSchemas = types.ListNull(types.StringType)
	}
	var d diag.Diagnostics
	if api.Settings != nil {
		m.Settings, d = dataAPISettingsToModel(ctx, *api.Settings)
	} else {
		m.Settings, d = knownSettings(ctx, m.Settings)
	}
	return append(diags, d...)
}

// Update sends the settings when they changed (PATCH replaces them all, so
// every planned value goes), then reads the Data API back. A create-time
// argument that changes here was never known (after an import): it is
// recorded as configured, with nothing sent.
func (r *authDataAPIResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer dataAPIImport.identifyUpdated(ctx, resp)
	summary := r.unable("Update")
	plan, s, ok := beginIn[authDataAPIModel](ctx, r.data, req.Plan, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	var state authDataAPIModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	ref := plan.ref(s)
	var changed *apiclient.DataAPISettings
	if !plan.Settings.Equal(state.Settings) {
		settings, _, diags := dataAPISettingsFromModel(ctx, plan.Settings)
		if resp.Diagnostics.Append(diags...); diags.HasError() {
			return
		}
		changed = &settings
	}
	got, err := r.write(ctx, ref, changed)
	if err != nil {
		resp.Diagnostics.AddError(summary, r.explainDataAPIFailure(ctx, ref, "Updating the settings of "+ref.String(), err))
		return
	}
	resp.Diagnostics.Append(plan.fromAPI(ctx, s, got)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateImported, nil)...) // the configuration now says them
}

// write is the write of a Data API's settings, for Update and a take-over:
// it sends settings, when not nil (PATCH replaces them all), then reads the
// Data API back.
func (r *authDataAPIResource) write(ctx context.Context, ref apiclient.DataAPIRef, settings *apiclient.DataAPISettings) (*apiclient.DataAPI, error) {
	if settings != nil {
		if err := r.data.auth.UpdateDataAPI(ctx, ref, *settings); err != nil {
			return nil, err
		}
	}
	got, err := r.data.auth.GetDataAPI(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("reading it back: %w", err)
	}
	return got, nil
}

func (r *authDataAPIResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	summary := r.unable("Delete")
	state, s, ok := beginIn[authDataAPIModel](ctx, r.data, req.State, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	ref := state.ref(s)
	var err error
	what := "Deleting " + ref.String()
	takenOver := restoreTakenOver(ctx, r.data, req.Private, &resp.Diagnostics, func(rec takeOverRecord[foundDataAPI]) {
		// Restore as found: the settings it had (PATCH replaces them all).
		what = "Restoring the settings of the Data API " + s.String() + " inherited"
		err = r.data.auth.UpdateDataAPI(ctx, ref, rec.Found.Settings)
	})
	if resp.Diagnostics.HasError() {
		return
	}
	if !takenOver {
		err = r.data.auth.DeleteDataAPI(ctx, ref)
	}
	r.settleDeleteBy(ctx, s.ProjectID, err, what, func() (neonauth.Presence, error) { return r.data.auth.DataAPIAbsence(ctx, ref) },
		nil, &resp.Diagnostics)
}

// dataAPIGone is what the 404 of a request on the Data API of an object in
// state means (neonauth's DataAPIAbsence).
type dataAPIGone struct {
	// gone: the Data API is gone (why: with its branch or project, or nil).
	gone bool
	why  error
	// detail, when not gone: why that is not known, for the error; the
	// state stays as it is.
	detail string
}

// gone tells what the 404 (notFound) of a request on the Data API means.
func (r *authDataAPIResource) gone(ctx context.Context, ref apiclient.DataAPIRef, what string, notFound error) dataAPIGone {
	switch p, err := r.data.auth.DataAPIAbsence(ctx, ref); p {
	case neonauth.Gone:
		return dataAPIGone{gone: true, why: err}
	case neonauth.NotVisible:
		return dataAPIGone{detail: projectNotVisibleDetail(ref.ProjectID, err) + stateRmWhenGone}
	default:
		return dataAPIGone{detail: apiErrorDetail(what, errors.Join(notFound, err))}
	}
}

func (r *authDataAPIResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = dataAPIImport.identitySchema()
}

func (r *authDataAPIResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	v, ok := dataAPIImport.importState(ctx, &req, resp)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), importedID(v, v["database_name"]))...)
	if resp.Private != nil { // a list resource's result has none
		setPrivateString(ctx, resp.Private, privateImported, "true", &resp.Diagnostics) // its create-time options are unknown
	}
}

// NewAuthDataAPIList finds the neon_auth_data_api objects of a project: the
// Data API of every database of every branch that has one, named by the
// database and its branch. It reads each branch's databases, then each
// one's Data API (a database without one answers 404 and is skipped).
func NewAuthDataAPIList() list.ListResource {
	return &objectList{listedResource: &authDataAPIResource{configured: configuredAs(typeAuthDataAPI)},
		schema: listConfigSchemaOf("Finds the Data APIs of a Neon project's databases: on every branch, or on one "+
			"(in both API modes: the Data API's endpoints reach every branch).", "Id of the one branch to search. Omitted: every branch."),
		scopes: (*configured).everyBranch,
		keys: func(ctx context.Context, auth *neonauth.Service, s neonauth.Scope) ([]string, error) {
			dbs, err := auth.ListDatabases(ctx, s.ProjectID, s.BranchID)
			if err != nil {
				return nil, err
			}
			var names []string
			for _, db := range dbs {
				switch _, err := auth.DataAPI(ctx, apiclient.DataAPIRef{ProjectID: s.ProjectID, BranchID: s.BranchID, DatabaseName: db.Name}); {
				case err == nil:
					names = append(names, db.Name)
				case !isNotFound(err):
					return nil, err
				}
			}
			return names, nil
		}}
}
