package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
	"github.com/neon-auth/terraform-provider-neon/internal/tfmap"
)

// The neon_auth_data_api resource: the Data API of a database on a branch,
// a REST interface over it that accepts the JWTs of the branch's Neon Auth
// (or of an external identity provider) and applies row-level security. A
// get-backed type (get_backed.go): one per database, read by its own GET.
// What it does differently: a create needs an auth provider, and the
// branch's Neon Auth for neon_auth; it waits for the Data API to serve; a
// take-over applies the configured settings over the inherited ones, which
// destroy puts back. Its model and the API's types share their names,
// attribute for field (tfmap copies between them).

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

// replaceDataAPIWhenChanged replaces the Data API when a create-time option
// changes, except one never known (after an import).
var replaceDataAPIWhenChanged = []planmodifier.String{replaceUnlessImported()}

// authDataAPI describes neon_auth_data_api.
var authDataAPI = &getBacked[authDataAPIModel, apiclient.DataAPI, apiclient.DataAPIRef]{
	typeName: typeAuthDataAPI, kind: neonauth.KindDataAPI, key: "database_name",
	importExample: "autumn-frost-12345678/br-quiet-leaf-12345678/neondb",
	description: "The Data API of a database on a branch (`…/branches/{branch_id}/data-api/{database_name}`): a " +
		"REST interface over the database that accepts the JWTs of the branch's Neon Auth (`auth_provider = \"neon_auth\"`) " +
		"or of another identity provider (`\"external\"`) and applies row-level security. Its `settings` change in place; " +
		"everything else replaces it. Import with `<project_id>/<branch_id>/<database_name>`; `<project_id>/<database_name>` " +
		"is the production branch's.",
	scopeRole: "whose database the Data API serves",
	attributes: map[string]schema.Attribute{
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
			PlanModifiers: replaceDataAPIWhenChanged,
			Validators:    []validator.String{stringvalidator.OneOf(apiclient.DataAPIAuthProviders...)},
		},
		"jwks_url": schema.StringAttribute{
			MarkdownDescription: "HTTPS URL of the external identity provider's JSON Web Key Set, such as Clerk's or Auth0's " +
				"`…/.well-known/jwks.json`. With `auth_provider = \"external\"` only, and required there; Neon fetches it " +
				"at creation." + createOnly,
			Optional: true, PlanModifiers: replaceDataAPIWhenChanged, Validators: []validator.String{jwksURLValidator()},
		},
		"provider_name": schema.StringAttribute{
			MarkdownDescription: "Name of the external identity provider, such as `Clerk`. With `auth_provider = " +
				"\"external\"` only, and required there." + createOnly,
			Optional: true, PlanModifiers: replaceDataAPIWhenChanged, Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"jwt_audience": schema.StringAttribute{
			MarkdownDescription: "Refuse tokens whose `aud` claim is another audience. Tokens without an `aud` claim are still " +
				"accepted." + createOnly,
			Optional: true, PlanModifiers: replaceDataAPIWhenChanged, Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
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
	},
	listDescription: "Finds the Data APIs of a Neon project's databases: on every branch, or on one " +
		"(in both API modes: the Data API's endpoints reach every branch).",
	name: "Data API", parent: "database",
	tookOver: " The API does not show a Data API's auth provider or create options: the copy keeps its parent's (with " +
		"auth_provider = \"neon_auth\", it accepts the tokens of this branch's own Neon Auth), whatever this configuration says of them.",
	calls: dataAPICalls{},
}

// dataAPICalls is what neon_auth_data_api does (getBackedCalls).
type dataAPICalls struct{}

func (dataAPICalls) ref(s neonauth.Scope, db string) apiclient.DataAPIRef {
	return apiclient.DataAPIRef{ProjectID: s.ProjectID, BranchID: s.BranchID, DatabaseName: db}
}

func (dataAPICalls) read(ctx context.Context, auth *neonauth.Service, ref apiclient.DataAPIRef) (*apiclient.DataAPI, error) {
	return auth.DataAPI(ctx, ref)
}

func (dataAPICalls) get(ctx context.Context, auth *neonauth.Service, ref apiclient.DataAPIRef) (*apiclient.DataAPI, error) {
	return auth.GetDataAPI(ctx, ref)
}

func (dataAPICalls) absence(ctx context.Context, auth *neonauth.Service, ref apiclient.DataAPIRef) (neonauth.Presence, error) {
	return auth.DataAPIAbsence(ctx, ref)
}

func (dataAPICalls) remove(ctx context.Context, auth *neonauth.Service, ref apiclient.DataAPIRef) error {
	return auth.DeleteDataAPI(ctx, ref)
}

// validate checks that the auth arguments go together (external needs
// jwks_url and provider_name, which only external takes) and that
// settings.db_schemas names each schema once.
func (dataAPICalls) validate(ctx context.Context, cfg authDataAPIModel, diags *diag.Diagnostics) {
	if asked, d := cfg.createRequest(ctx); !d.HasError() {
		checkDataAPISchemas(asked.Settings, diags)
	}
	if cfg.AuthProvider.IsUnknown() {
		return
	}
	external := cfg.AuthProvider.ValueString() == apiclient.DataAPIAuthExternal
	for name, v := range map[string]types.String{"jwks_url": cfg.JWKSURL, "provider_name": cfg.ProviderName} {
		switch {
		case external && v.IsNull():
			diags.AddAttributeError(path.Root(name), "Missing "+name,
				fmt.Sprintf("`auth_provider = %q` needs `%s`: the external identity provider's %s. Set it, or use "+
					"`auth_provider = %q` for the tokens of the branch's Neon Auth.", apiclient.DataAPIAuthExternal, name,
					map[string]string{"jwks_url": "JWKS URL (such as https://<your-app>.clerk.accounts.dev/.well-known/jwks.json)",
						"provider_name": "name (such as Clerk)"}[name], apiclient.DataAPIAuthNeonAuth))
		case !external && isSet(v):
			diags.AddAttributeError(path.Root(name), "Unexpected "+name,
				fmt.Sprintf("`%s` names an external identity provider: it goes with `auth_provider = %q`. Set that, or remove `%s`.",
					name, apiclient.DataAPIAuthExternal, name))
		}
	}
}

// planCreate needs an auth provider to create a Data API.
func (dataAPICalls) planCreate(plan authDataAPIModel, diags *diag.Diagnostics) bool {
	if plan.AuthProvider.IsNull() {
		diags.AddAttributeError(path.Root("auth_provider"), "Missing auth_provider",
			fmt.Sprintf("Creating a Data API needs `auth_provider`: %q to accept the tokens of the branch's Neon Auth, or %q "+
				"for another identity provider's (with jwks_url and provider_name).", apiclient.DataAPIAuthNeonAuth, apiclient.DataAPIAuthExternal))
		return false
	}
	return true
}

// mayCreate checks, for auth_provider neon_auth, that the branch has
// Neon Auth — in project mode, that it is the production branch, the only
// one whose Neon Auth the project-level endpoints reach. false when an
// error diagnostic says why not.
func (dataAPICalls) mayCreate(ctx context.Context, auth *neonauth.Service, plan authDataAPIModel, s neonauth.Scope, summary string, diags *diag.Diagnostics) bool {
	if plan.AuthProvider.ValueString() != apiclient.DataAPIAuthNeonAuth {
		return true
	}
	if s.Family != apiclient.FamilyBranch {
		if prod, err := auth.ProductionBranch(ctx, s.ProjectID); err == nil && prod != s.BranchID {
			diags.AddAttributeError(path.Root("auth_provider"), "Neon Auth not reachable in project mode",
				fmt.Sprintf("auth_provider = %q needs the Neon Auth of branch %s, which is not the production branch (%s) of project %s; "+
					"the project-level endpoints (auth_api = %q) reach only the production branch's. Set auth_api = %q in the provider "+
					"block, or put the Data API on the production branch.", apiclient.DataAPIAuthNeonAuth, s.BranchID, prod, s.ProjectID,
					authAPIProject, authAPIBranch))
			return false
		}
	}
	it, err := auth.Integration(ctx, s)
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
				"provider, set auth_provider = %[3]q with jwks_url and provider_name instead.", apiclient.DataAPIAuthNeonAuth, s,
				apiclient.DataAPIAuthExternal))
	default:
		return true
	}
	return false
}

// createRequest is what a create sends: the auth arguments, the create
// options and the known settings, attribute for field (Settings nil when
// none is known).
func (m authDataAPIModel) createRequest(ctx context.Context) (apiclient.CreateDataAPIRequest, diag.Diagnostics) {
	var req apiclient.CreateDataAPIRequest
	diags := tfmap.Expand(ctx, m, &req)
	return req, diags
}

func (dataAPICalls) create(ctx context.Context, auth *neonauth.Service, ref apiclient.DataAPIRef, plan authDataAPIModel) (*apiclient.DataAPI, bool, error) {
	body, diags := plan.createRequest(ctx)
	if diags.HasError() {
		return nil, false, fmt.Errorf("the request could not be made from the plan: %v", diags)
	}
	created, err := auth.CreateDataAPI(ctx, ref, body)
	if err != nil {
		return nil, false, err
	}
	return &apiclient.DataAPI{URL: created.URL}, created.Recovered, nil
}

// created reads the new Data API until it is active, for up to
// dataAPIReadyWait; then it warns and returns what it read last (nil: the
// API never showed it, which a read lagging its writes can cause).
func (dataAPICalls) created(ctx context.Context, auth *neonauth.Service, ref apiclient.DataAPIRef, diags *diag.Diagnostics) *apiclient.DataAPI {
	deadline := time.Now().Add(dataAPIReadyWait)
	var last *apiclient.DataAPI
	for wait := dataAPIFirstPoll; ; wait = min(2*wait, dataAPIMaxPoll) {
		got, err := auth.GetDataAPI(ctx, ref)
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

// toModel writes what the API tells of the Data API into m: where it
// serves, its status, its settings (when the API reports none, the known
// ones of m) and its schemas. The create-time arguments, which the API
// never returns, keep their values.
func (dataAPICalls) toModel(ctx context.Context, m *authDataAPIModel, _ neonauth.Scope, api *apiclient.DataAPI) diag.Diagnostics {
	var diags diag.Diagnostics
	if api.Settings == nil {
		reported := *api
		var asked apiclient.CreateDataAPIRequest
		asked, diags = m.createRequest(ctx)
		reported.Settings = cmp.Or(asked.Settings, &apiclient.DataAPISettings{})
		api = &reported
	}
	return append(diags, tfmap.Flatten(ctx, api, m)...)
}

// update sends the settings when they changed (PATCH replaces them all, so
// every planned value goes), then reads the Data API back.
func (dataAPICalls) update(ctx context.Context, auth *neonauth.Service, ref apiclient.DataAPIRef, plan, state authDataAPIModel) (*apiclient.DataAPI, string, error) {
	what := "Updating the settings of " + ref.String()
	var changed *apiclient.DataAPISettings
	if !plan.Settings.Equal(state.Settings) {
		asked, diags := plan.createRequest(ctx)
		if diags.HasError() {
			return nil, what, fmt.Errorf("the settings could not be read from the plan: %v", diags)
		}
		changed = cmp.Or(asked.Settings, &apiclient.DataAPISettings{})
	}
	got, err := writeDataAPI(ctx, auth, ref, changed)
	return got, what, err
}

// foundDataAPI is what taking over an inherited Data API found: its
// settings, in the API's shape, which destroy sends back.
type foundDataAPI struct {
	Settings apiclient.DataAPISettings `json:"settings"`
}

// takeOver gives the Data API found the known settings of the plan over
// those it inherited (when the plan knows any), and records the inherited.
func (dataAPICalls) takeOver(ctx context.Context, auth *neonauth.Service, s neonauth.Scope, ref apiclient.DataAPIRef, plan authDataAPIModel,
	found *apiclient.DataAPI,
) (*apiclient.DataAPI, any, string, error) {
	what := "Setting the settings of the Data API " + s.String() + " inherited"
	asked, diags := plan.createRequest(ctx)
	inherited := cmp.Or(found.Settings, &apiclient.DataAPISettings{})
	over := apiclient.CreateDataAPIRequest{Settings: new(*inherited)}
	if diags.Append(tfmap.Expand(ctx, plan, &over)...); diags.HasError() {
		return nil, nil, what, fmt.Errorf("the settings could not be read from the plan: %v", diags)
	}
	got := found
	if asked.Settings != nil {
		var err error
		if got, err = writeDataAPI(ctx, auth, ref, over.Settings); err != nil {
			return nil, nil, what, err
		}
	}
	return got, foundDataAPI{Settings: *inherited}, what, nil
}

// restore puts back the settings a Data API taken over had (PATCH replaces
// them all).
func (dataAPICalls) restore(ctx context.Context, auth *neonauth.Service, s neonauth.Scope, ref apiclient.DataAPIRef, record json.RawMessage) (string, error) {
	what := "Restoring the settings of the Data API " + s.String() + " inherited"
	var found foundDataAPI
	if err := json.Unmarshal(record, &found); err != nil {
		return what, fmt.Errorf("reading what was taken over: %w", err)
	}
	return what, auth.UpdateDataAPI(ctx, ref, found.Settings)
}

// writeDataAPI is the write of a Data API's settings, for an update and a
// take-over: it sends settings, when not nil (PATCH replaces them all),
// then reads the Data API back.
func writeDataAPI(ctx context.Context, auth *neonauth.Service, ref apiclient.DataAPIRef, settings *apiclient.DataAPISettings) (*apiclient.DataAPI, error) {
	if settings != nil {
		if err := auth.UpdateDataAPI(ctx, ref, *settings); err != nil {
			return nil, err
		}
	}
	got, err := auth.GetDataAPI(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("reading it back: %w", err)
	}
	return got, nil
}

// keys are the databases of s that have a Data API: it reads the branch's
// databases, then each one's Data API (a database without one answers 404
// and is skipped).
func (dataAPICalls) keys(ctx context.Context, auth *neonauth.Service, s neonauth.Scope) ([]string, error) {
	dbs, err := auth.ListDatabases(ctx, s.ProjectID, s.BranchID)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, db := range dbs {
		switch _, err := auth.DataAPI(ctx, dataAPICalls{}.ref(s, db.Name)); {
		case err == nil:
			names = append(names, db.Name)
		case !isNotFound(err):
			return nil, err
		}
	}
	return names, nil
}
