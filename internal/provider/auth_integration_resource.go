package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_integration resource: Neon Auth enabled on a branch, with its
// auth provider.

var (
	_ resource.ResourceWithImportState = (*authIntegrationResource)(nil)
	_ resource.ResourceWithIdentity    = (*authIntegrationResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*authIntegrationResource)(nil)
)

// NewAuthIntegrationResource is the neon_auth_integration resource.
func NewAuthIntegrationResource() resource.Resource {
	return &authIntegrationResource{configured: configuredAs(typeAuthIntegration)}
}

type authIntegrationResource struct {
	configured
}

type authIntegrationModel struct {
	scopeModel
	ID                    types.String `tfsdk:"id"`
	DatabaseName          types.String `tfsdk:"database_name"`
	RoleName              types.String `tfsdk:"role_name"`
	Name                  types.String `tfsdk:"name"`
	AllowLocalhost        types.Bool   `tfsdk:"allow_localhost"`
	DeleteDataOnDestroy   types.Bool   `tfsdk:"delete_data_on_destroy"`
	AuthProviderProjectID types.String `tfsdk:"auth_provider_project_id"`
	PubClientKey          types.String `tfsdk:"pub_client_key"`
	SecretServerKey       types.String `tfsdk:"secret_server_key"`
	JWKSURL               types.String `tfsdk:"jwks_url"`
	BaseURL               types.String `tfsdk:"base_url"`
	DBName                types.String `tfsdk:"db_name"`
	SchemaName            types.String `tfsdk:"schema_name"`
	TableName             types.String `tfsdk:"table_name"`
	CreatedAt             types.String `tfsdk:"created_at"`
	OwnedBy               types.String `tfsdk:"owned_by"`
	TransferStatus        types.String `tfsdk:"transfer_status"`
}

// integrationRules: name and allow_localhost exist only in the branch-scoped
// API.
var integrationRules = scopeRules{integration: true, branchAttrs: []string{"name", "allow_localhost"}}

func (r *authIntegrationResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	optionalComputed := func(description string, v ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: description, Optional: true, Computed: true,
			PlanModifiers: []planmodifier.String{useStateWhenOmitted{}, requiresReplaceWhenChanged()}, Validators: v}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Neon Auth on a branch of a Neon project: `POST /projects/{project_id}/branches/{branch_id}/auth` or " +
			"`POST /projects/auth/create`, depending on the provider's `auth_api`. " +
			"Import with `<project_id>/<branch_id>/<auth_provider>` or `<project_id>/<branch_id>`; without the branch, the production branch's.",
		Attributes: withAttributes(scopeAttributes("that gets Neon Auth",
			"Auth provider: "+enumText(apiclient.AuthProviders, map[string]string{
				apiclient.AuthProviderStack: "deprecated by Neon; creating one with `auth_api = \"branch\"` warns",
				apiclient.AuthProviderMock:  authProviderNotes[apiclient.AuthProviderMock],
			})+". Omitted: at creation `stack` with `auth_api = \"project\"` "+
				"and `better_auth` with `auth_api = \"branch\"`; for an existing integration, the one it has."),
			map[string]schema.Attribute{
				"id": computedString("`<project_id>/<branch_id>/<auth_provider>`.", false),
				"database_name": optionalComputed("Database whose `neon_auth` schema holds the users. Omitted: the API's default, "+
					"the branch's default database.", stringvalidator.LengthAtLeast(1)),
				"role_name": optionalComputed("Database role for authenticated users; sent only with `auth_api = \"project\"`. "+
					"Deprecated by the API.", stringvalidator.LengthAtLeast(1)),
				"name": schema.StringAttribute{
					MarkdownDescription: "Application name used in auth emails; the Neon project's name by default. Updated in place " +
						"with `PATCH …/auth/config`. Needs `auth_api = \"branch\"` when set.",
					Optional: true, Computed: true,
					PlanModifiers: []planmodifier.String{useStateWhenOmitted{}},
					Validators:    []validator.String{stringvalidator.UTF8LengthBetween(1, 256)},
				},
				"allow_localhost": schema.BoolAttribute{
					MarkdownDescription: "Whether `localhost` origins may be redirected to (development). Updated in place with " +
						"`PATCH …/auth/allow_localhost`. Needs `auth_api = \"branch\"` when set.",
					Optional: true, Computed: true,
					PlanModifiers: []planmodifier.Bool{useStateWhenOmitted{}},
				},
				"delete_data_on_destroy": schema.BoolAttribute{
					MarkdownDescription: "When `true`, destroy also drops the `neon_auth` schema from the database. Default `false`.",
					Optional:            true, Computed: true, Default: booldefault.StaticBool(false),
				},
				"auth_provider_project_id": computedString("Id of the project at the auth provider.", false),
				"pub_client_key":           computedString("Public client key for the frontend SDK (Stack Auth). Returned only at creation.", true),
				"secret_server_key":        computedString("Secret server key for the backend SDK (Stack Auth). Returned only at creation.", true),
				"jwks_url":                 computedString("URL of the JSON Web Key Set, to verify tokens.", false),
				"base_url":                 computedString("Base URL of the auth service (Better Auth clients use it).", false),
				"db_name":                  computedString("Database the API reports the integration on.", false),
				"schema_name":              computedString("Database schema of the users table. Returned only at creation.", false),
				"table_name":               computedString("Name of the synchronized users table. Returned only at creation.", false),
				"created_at":               computedString("Creation time, ISO 8601 UTC.", false),
				"owned_by":                 schema.StringAttribute{MarkdownDescription: "Owner of the auth project: `neon` or `user`.", Computed: true},
				"transfer_status":          schema.StringAttribute{MarkdownDescription: "Ownership transfer: `initiated`, `finished`, or null.", Computed: true},
			}),
	}
}

// integrationOnDestroy is what destroy does with an integration taken over.
const integrationOnDestroy = "Destroy leaves Neon Auth enabled on the branch, with the name and allow_localhost it had, instead of disabling it."

func (r *authIntegrationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.planScope(ctx, integrationRules, req, resp)
	r.planRestore(ctx, req, resp, "Neon Auth integration", integrationOnDestroy)
	if !r.data.ready() || r.data.auth.Family() != apiclient.FamilyBranch || !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || resp.Diagnostics.HasError() {
		return
	}
	var provider types.String
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("auth_provider"), &provider)...)
	r.planTakeOver(ctx, req, resp, plannedTakeOver{object: neonauth.Object{Kind: neonauth.KindIntegration, Key: provider.ValueString()},
		what: fmt.Sprintf("Neon Auth integration (%s)", provider.ValueString()), onDestroy: integrationOnDestroy})
	if provider.ValueString() == apiclient.AuthProviderStack {
		resp.Diagnostics.AddAttributeWarning(path.Root("auth_provider"), "Stack Auth is deprecated",
			"Neon deprecated the `stack` auth provider: this creates a new Stack Auth integration. New integrations should use "+
				"`auth_provider = \"better_auth\"` (the branch-scoped API's default: remove the `auth_provider` line). Existing "+
				"Stack Auth integrations keep working.")
	}
}

// integrationImport is the import id.
var integrationImport = importFormat{
	resourceType: typeAuthIntegration, parts: []string{"auth_provider"}, optional: 1, withBranch: true,
	example: "autumn-frost-12345678/br-quiet-leaf-12345678/better_auth",
}

func (r *authIntegrationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer integrationImport.identifyCreated(ctx, resp)
	summary := r.unable("Create")
	plan, s, ok := beginIn[authIntegrationModel](ctx, r.data, req.Plan, summary, fromModel, &resp.Diagnostics)
	if !ok || !r.data.requireBranch(ctx, s.ProjectID, s.BranchID, summary, &resp.Diagnostics) {
		return
	}
	creds, err := r.data.auth.CreateIntegration(ctx, s, knownString(plan.DatabaseName), knownString(plan.RoleName))
	if err == nil && creds.Recovered && s.AuthProvider == apiclient.AuthProviderStack {
		creds, err = r.remintLostKeys(ctx, s, &resp.Diagnostics)
	}
	if err != nil {
		what := fmt.Sprintf("Enabling Neon Auth (%s) on %s", s.AuthProvider, s.Scope)
		if errors.Is(err, apiclient.ErrConflict) {
			r.takeOver(ctx, s, plan, apiErrorDetail(what, err), resp)
			return
		}
		resp.Diagnostics.AddError(summary, r.data.explainProjectFailure(ctx, s, what, err))
		return
	}
	plan.recordScope(s)
	plan.ID = types.StringValue(branchObjectID(s, s.AuthProvider))
	plan.AuthProviderProjectID = types.StringValue(creds.AuthProviderProjectID)
	plan.PubClientKey = optionalString(creds.PubClientKey)
	plan.SecretServerKey = optionalString(creds.SecretServerKey)
	plan.JWKSURL = types.StringValue(creds.JWKSURL)
	plan.SchemaName = optionalString(creds.SchemaName)
	plan.TableName = optionalString(creds.TableName)
	plan.BaseURL = optionalField(creds.BaseURL)
	if plan.RoleName.IsUnknown() {
		plan.RoleName = types.StringNull()
	}
	r.applySettings(ctx, s, &plan, nil, &resp.Diagnostics)
	// The create response lacks the rest: read it back (the writes above
	// forgot the shared reads of the scope).
	if err := r.refresh(ctx, s, &plan, r.readAllowLocalhost(ctx, s)); err != nil {
		resp.Diagnostics.AddWarning("Auth integration created, details not yet read",
			apiErrorDetail("Reading back the new integration of "+s.String(), err)+" The next refresh fills them.")
	}
	nullUnknowns(&plan)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// foundIntegration is what taking over an inherited integration found, and
// destroy restores: Neon Auth stays enabled with these settings.
type foundIntegration struct {
	AuthProvider   string `json:"auth_provider"`
	Name           string `json:"name,omitempty"`
	AllowLocalhost *bool  `json:"allow_localhost,omitempty"`
}

// takeOver follows a create refused because the branch already has Neon
// Auth: an integration the branch inherited from its parent, with the
// planned auth provider and database, is taken over; anything else is
// refused with an import hint (refused says what the API answered).
func (r *authIntegrationResource) takeOver(ctx context.Context, s neonauth.Scope, plan authIntegrationModel, refused string, resp *resource.CreateResponse) {
	summary := r.unable("Create")
	anyProvider := s
	anyProvider.AuthProvider = ""
	it, err := r.data.auth.Integration(ctx, anyProvider)
	if err == nil && it == nil {
		err = fmt.Errorf("the API refused to enable Neon Auth as already enabled, yet lists no integration")
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, refused+" "+apiErrorDetail("Reading the integration already on the branch", err))
		return
	}
	to, ok := r.mayTakeOver(ctx, s, neonauth.Object{Kind: neonauth.KindIntegration, Key: string(it.AuthProvider)}, refused,
		fmt.Sprintf("The %s already has Neon Auth; a branch has at most one integration.", s.Scope), compositeID(s.ProjectID, s.BranchID),
		&resp.Diagnostics)
	if !ok {
		return
	}
	if msg := inheritedMismatch(s, to.Parent, it, plan); msg != "" {
		resp.Diagnostics.AddError(summary, msg)
		return
	}
	allow, err := r.data.auth.AllowLocalhost(ctx, s)
	if err != nil {
		resp.Diagnostics.AddError(summary, apiErrorDetail("Reading allow_localhost of the integration the branch inherited", err))
		return
	}
	found := foundIntegration{AuthProvider: string(it.AuthProvider), Name: apiclient.Deref(it.Name), AllowLocalhost: &allow}
	// State is what was read, with the planned settings sent on top: no
	// read-back needed.
	planned := plan
	plan.fromAPI(it)
	plan.recordScope(s)
	plan.ID = types.StringValue(branchObjectID(s, s.AuthProvider))
	plan.AllowLocalhost = types.BoolValue(allow)
	plan.PubClientKey, plan.SecretServerKey = types.StringNull(), types.StringNull()
	plan.SchemaName, plan.TableName, plan.RoleName = types.StringNull(), types.StringNull(), types.StringNull()
	prior := plan
	prior.Name = optionalField(it.Name)
	if isKnownSet(planned.Name) {
		plan.Name = planned.Name
	}
	if isKnownSet(planned.AllowLocalhost) {
		plan.AllowLocalhost = planned.AllowLocalhost
	}
	r.applySettings(ctx, s, &plan, &prior, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	nullUnknowns(&plan)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	tookOver(ctx, resp.Private, &resp.Diagnostics, s, to.Parent, found, fmt.Sprintf("Neon Auth integration (%s)", it.AuthProvider), "", r.data.onDestroy(integrationOnDestroy))
}

// inheritedMismatch explains an inherited integration that the plan cannot
// take over: another auth provider, or another database.
func inheritedMismatch(s neonauth.Scope, parent string, it *apiclient.Integration, plan authIntegrationModel) string {
	switch {
	case string(it.AuthProvider) != s.AuthProvider:
		return fmt.Sprintf("Branch %s of project %s was created from branch %s and inherited its Neon Auth, whose auth provider is %q; "+
			"this configuration asks for %q. A branch has one integration: set auth_provider = %q (or leave it out) to take over the "+
			"inherited one, or disable Neon Auth on the branch first to enable %q instead.",
			s.BranchID, s.ProjectID, parent, it.AuthProvider, s.AuthProvider, it.AuthProvider, s.AuthProvider)
	case isKnownSet(plan.DatabaseName) && plan.DatabaseName.ValueString() != it.DBName:
		return fmt.Sprintf("Branch %s of project %s was created from branch %s and inherited its Neon Auth, which uses the database %q; "+
			"this configuration sets database_name = %q. Set database_name = %q (or leave it out) to take over the inherited "+
			"integration, or disable Neon Auth on the branch first.",
			s.BranchID, s.ProjectID, parent, it.DBName, plan.DatabaseName.ValueString(), it.DBName)
	}
	return ""
}

// remintLostKeys follows a create that was applied but whose response, the
// only one that carries the keys, was lost: a fresh pair is minted, and the
// user is told.
func (r *authIntegrationResource) remintLostKeys(ctx context.Context, s neonauth.Scope, diags *diag.Diagnostics) (*apiclient.IntegrationCredentials, error) {
	creds, err := r.data.auth.CreateSDKKeys(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("the create response was lost; the integration exists but minting replacement keys failed (import it, then use neon_auth_sdk_keys): %w", err)
	}
	diags.AddWarning("Auth integration created; keys re-minted",
		fmt.Sprintf("The response to enabling Neon Auth (%s) on %s was lost in transit, but the integration was created. "+
			"Its original keys were only in that response, so the provider minted a new key pair (POST /projects/auth/keys) and stored it. "+
			"Keys from the lost response, if anyone saw them, are not the ones in state.", s.AuthProvider, s.Scope))
	return creds, nil
}

// applySettings sends the settings that only the branch-scoped API has, when
// the plan sets them (and, on update, they changed from prior). What is read
// of the scope afterwards is read anew (see SetIntegrationSettings).
func (r *authIntegrationResource) applySettings(ctx context.Context, s neonauth.Scope, plan, prior *authIntegrationModel, diags *diag.Diagnostics) {
	var priorName types.String
	var priorAllow types.Bool
	if prior != nil {
		priorName, priorAllow = prior.Name, prior.AllowLocalhost
	}
	var set neonauth.IntegrationSettings
	if isKnownSet(plan.Name) && !plan.Name.Equal(priorName) {
		set.Name = apiclient.Ptr(plan.Name.ValueString())
	}
	if isKnownSet(plan.AllowLocalhost) && !plan.AllowLocalhost.Equal(priorAllow) {
		set.AllowLocalhost = apiclient.Ptr(plan.AllowLocalhost.ValueBool())
	}
	nameErr, allowErr := r.data.auth.SetIntegrationSettings(ctx, s, set)
	if nameErr != nil {
		diags.AddError(r.unable("Set")+" Name", r.data.explainFailure(ctx, s, "Setting the name of the integration of "+s.String(), nameErr))
	}
	if allowErr != nil {
		diags.AddError(r.unable("Set")+" allow_localhost", r.data.explainFailure(ctx, s, "Setting allow_localhost of the integration of "+s.String(), allowErr))
	}
}

// refresh fills m with what the API reports of the scope's integration;
// allow waits for allow_localhost (see readAllowLocalhost), read beside it.
func (r *authIntegrationResource) refresh(ctx context.Context, s neonauth.Scope, m *authIntegrationModel, allow func() (bool, error)) error {
	it, err := r.data.auth.Integration(ctx, s)
	var refused *apiclient.KeyRefusedError
	if first := firstRefusal(allow); errors.As(err, &refused) && first != nil {
		return first
	}
	if err != nil || it == nil {
		return err
	}
	m.fromAPI(it)
	if allow != nil {
		v, err := allow()
		if err != nil {
			return err
		}
		m.AllowLocalhost = types.BoolValue(v)
	}
	return nil
}

// firstRefusal is the error of the allow_localhost read started beside the
// integration's when that read met the run's first 401 itself; nil
// otherwise. A read of the integration sent after that answer is not sent,
// and its error points at the first 401, which nothing else reports.
func firstRefusal(allow func() (bool, error)) error {
	if allow == nil {
		return nil
	}
	var refused *apiclient.KeyRefusedError
	if _, err := allow(); errors.Is(err, apiclient.ErrUnauthorized) && !errors.As(err, &refused) {
		return err
	}
	return nil
}

// readAllowLocalhost starts reading allow_localhost of the scope (branch
// mode: the branch's bundle, shared with the other settings' readers) and
// returns what waits for the answer; nil in project mode, which has none.
// Started before the integration is read, the two reads take one round trip
// instead of two; when the integration turns out gone, nobody waits.
func (r *authIntegrationResource) readAllowLocalhost(ctx context.Context, s neonauth.Scope) func() (bool, error) {
	if s.Family != apiclient.FamilyBranch {
		return nil
	}
	var allow bool
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		allow, err = r.data.auth.AllowLocalhost(ctx, s)
	}()
	return func() (bool, error) {
		<-done
		return allow, err
	}
}

// fromAPI writes what the API lists of an integration into m; a name or
// base URL the API leaves out keeps m's.
func (m *authIntegrationModel) fromAPI(it *apiclient.Integration) {
	m.AuthProvider = types.StringValue(string(it.AuthProvider))
	m.AuthProviderProjectID = types.StringValue(it.AuthProviderProjectID)
	m.BranchID = types.StringValue(it.BranchID)
	m.DBName = types.StringValue(it.DBName)
	if m.DatabaseName.IsUnknown() || m.DatabaseName.IsNull() {
		m.DatabaseName = types.StringValue(it.DBName)
	}
	m.JWKSURL = types.StringValue(it.JWKSURL)
	m.CreatedAt = types.StringValue(apiclient.Timestamp(it.CreatedAt))
	m.OwnedBy = types.StringValue(string(it.OwnedBy))
	m.TransferStatus = optionalField(it.TransferStatus)
	if base := apiclient.Deref(it.BaseURL); base != "" {
		m.BaseURL = types.StringValue(base)
	}
	if name := apiclient.Deref(it.Name); name != "" {
		m.Name = types.StringValue(name)
	}
}

// nullUnknowns turns what no response said into null, as state needs.
func nullUnknowns(m *authIntegrationModel) {
	for _, v := range []*types.String{&m.Name, &m.DBName, &m.DatabaseName, &m.BaseURL, &m.CreatedAt, &m.OwnedBy, &m.TransferStatus, &m.JWKSURL} {
		if v.IsUnknown() {
			*v = types.StringNull()
		}
	}
	if m.AllowLocalhost.IsUnknown() {
		m.AllowLocalhost = types.BoolNull()
	}
}

func (r *authIntegrationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer integrationImport.identifyRead(ctx, req, resp)
	summary := r.unable("Read")
	// Imported without naming the auth provider: the scope's integration tells.
	state, s, ok := beginIn[authIntegrationModel](ctx, r.data, req.State, summary, fromIntegration, &resp.Diagnostics)
	if !ok {
		return
	}
	allow := r.readAllowLocalhost(ctx, s)
	it, ok := r.readIntegration(ctx, s, summary, &resp.Diagnostics)
	if !ok {
		// Its error may point at a 401 that only the read beside it met.
		if first := firstRefusal(allow); first != nil {
			resp.Diagnostics.AddError(summary, apiErrorDetail("Reading allow_localhost of "+s.String(), first))
		}
		return
	}
	if it == nil {
		tflog.Warn(ctx, "auth integration no longer exists; removing it from state", map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID})
		resp.State.RemoveResource(ctx)
		return
	}
	if !state.AuthProviderProjectID.IsNull() && state.AuthProviderProjectID.ValueString() != it.AuthProviderProjectID {
		// Deleted and created again outside Terraform: a different managed
		// project whose keys are not the ones in state.
		tflog.Warn(ctx, "auth integration was re-created outside Terraform; its keys in state are stale", map[string]any{"project_id": s.ProjectID})
		state.PubClientKey = types.StringNull()
		state.SecretServerKey = types.StringNull()
	}
	if err := r.refresh(ctx, s, &state, allow); err != nil {
		resp.Diagnostics.AddError(summary, apiErrorDetail("Reading the integration of "+s.String(), err))
		return
	}
	warnUnknownValue(&resp.Diagnostics, "owned_by", it.OwnedBy, apiclient.OwnedByNeon, apiclient.OwnedByUser)
	warnUnknownValue(&resp.Diagnostics, "auth_provider", it.AuthProvider, apiclient.AuthProviders...)
	state.ID = types.StringValue(branchObjectID(s, state.AuthProvider.ValueString()))
	if state.DeleteDataOnDestroy.IsNull() {
		state.DeleteDataOnDestroy = types.BoolValue(false)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update sends the settings that changed (name, allow_localhost) and keeps
// in state what needs no API call: delete_data_on_destroy, and role_name
// after an import (the API does not list it). Everything else forces
// replacement.
func (r *authIntegrationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer integrationImport.identifyUpdated(ctx, resp)
	summary := r.unable("Update")
	plan, s, ok := beginIn[authIntegrationModel](ctx, r.data, req.Plan, summary, fromModel, &resp.Diagnostics)
	var prior authIntegrationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	r.applySettings(ctx, s, &plan, &prior, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.refresh(ctx, s, &plan, r.readAllowLocalhost(ctx, s)); err != nil {
		resp.Diagnostics.AddWarning("Auth integration updated, details not yet read",
			apiErrorDetail("Reading back the integration of "+s.String(), err)+" The next refresh fills them.")
	}
	nullUnknowns(&plan)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *authIntegrationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	summary := r.unable("Delete")
	state, s, ok := beginIn[authIntegrationModel](ctx, r.data, req.State, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	if restoreTakenOver(ctx, r.data, req.Private, &resp.Diagnostics, func(rec takeOverRecord[foundIntegration]) {
		r.restore(ctx, s, state, rec.Found, &resp.Diagnostics)
	}) {
		return
	}
	err := r.data.auth.DeleteIntegration(ctx, s, state.DeleteDataOnDestroy.ValueBool())
	r.settleDelete(ctx, s, err, nil, fmt.Sprintf("Disabling Neon Auth (%s) on %s", s.AuthProvider, s.Scope), &resp.Diagnostics)
}

// restore is the destroy of an integration taken over from the parent
// branch: Neon Auth stays enabled, with the name and allow_localhost found.
// A branch (or Neon Auth) gone since has nothing left to restore.
func (r *authIntegrationResource) restore(ctx context.Context, s neonauth.Scope, state authIntegrationModel, found foundIntegration, diags *diag.Diagnostics) {
	var err error
	if found.Name != "" && state.Name.ValueString() != found.Name {
		err, _ = r.data.auth.SetIntegrationSettings(ctx, s, neonauth.IntegrationSettings{Name: &found.Name})
	}
	if err == nil && found.AllowLocalhost != nil && !state.AllowLocalhost.Equal(types.BoolValue(*found.AllowLocalhost)) {
		_, err = r.data.auth.SetIntegrationSettings(ctx, s, neonauth.IntegrationSettings{AllowLocalhost: found.AllowLocalhost})
	}
	r.settleDelete(ctx, s, err, nil,
		"Restoring the name and allow_localhost of the integration "+s.String()+" inherited", diags)
}

func (r *authIntegrationResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = integrationImport.identitySchema()
}

// ImportState takes `<project_id>[/<branch_id>][/<auth_provider>]` (no
// branch: the production branch); the first refresh reads the rest.
func (r *authIntegrationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	v, ok := integrationImport.importState(ctx, &req, resp)
	if !ok {
		return
	}
	if p := v["auth_provider"]; p != "" && !slices.Contains(apiclient.AuthProviders, p) {
		resp.Diagnostics.AddError("Invalid import id",
			fmt.Sprintf("The auth provider %q is not one of %q. Expected %s, such as `%s`; got %q.",
				p, apiclient.AuthProviders, integrationImport.usage(), integrationImport.example, req.ID))
		return
	}
	r.checkImportBranch(ctx, v, resp)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("delete_data_on_destroy"), false)...)
}

// NewAuthIntegrationList finds the neon_auth_integration objects of a
// project: every branch's integration, named by the branch and its auth
// provider.
func NewAuthIntegrationList() list.ListResource {
	return &objectList{listedResource: &authIntegrationResource{configured: configuredAs(typeAuthIntegration)},
		what: "the Neon Auth integrations",
		find: func(ctx context.Context, auth *neonauth.Service, s listScope) ([]foundObject, error) {
			its, err := auth.EnabledIntegrations(ctx, s.Scope)
			var out []foundObject
			for _, it := range its {
				out = append(out, foundObject{compositeID(s.ProjectID, s.BranchID, string(it.AuthProvider)), fmt.Sprintf("%s (%s)", s.name, string(it.AuthProvider))})
			}
			return out, err
		}}
}
