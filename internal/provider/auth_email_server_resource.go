package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_email_server resource: the email server a branch's Neon Auth
// sends through.

var (
	_ resource.ResourceWithImportState    = (*authEmailServerResource)(nil)
	_ resource.ResourceWithIdentity       = (*authEmailServerResource)(nil)
	_ resource.ResourceWithValidateConfig = (*authEmailServerResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*authEmailServerResource)(nil)
)

// NewAuthEmailServerResource is the neon_auth_email_server resource.
func NewAuthEmailServerResource() resource.Resource {
	return &authEmailServerResource{configured: configuredAs(typeAuthEmailServer)}
}

type authEmailServerResource struct {
	configured
}

type authEmailServerModel struct {
	branchModel
	emailServerFields
	ID                types.String `tfsdk:"id"`
	Password          types.String `tfsdk:"password"`
	PasswordWO        types.String `tfsdk:"password_wo"`
	PasswordWOVersion types.Int64  `tfsdk:"password_wo_version"`
}

// emailServerFields are what the API reports of an email server, in the
// resource and the data source alike.
type emailServerFields struct {
	Type        types.String `tfsdk:"type"`
	Host        types.String `tfsdk:"host"`
	Port        types.Int64  `tfsdk:"port"`
	Username    types.String `tfsdk:"username"`
	SenderEmail types.String `tfsdk:"sender_email"`
	SenderName  types.String `tfsdk:"sender_name"`
}

// fromAPI writes an email server the API reports into f.
func (f *emailServerFields) fromAPI(got apiclient.EmailServer) {
	f.Type = types.StringValue(string(got.Type))
	f.Host, f.Username = optionalField(got.Host), optionalField(got.Username)
	f.SenderEmail, f.SenderName = optionalField(got.SenderEmail), optionalField(got.SenderName)
	f.Port = types.Int64Null()
	if port := apiclient.Deref(got.Port); port != 0 {
		f.Port = types.Int64Value(int64(port))
	}
}

// noEmailServer is a branch without an email provider configured.
func noEmailServer() emailServerFields {
	return emailServerFields{Type: types.StringNull(), Host: types.StringNull(), Port: types.Int64Null(), Username: types.StringNull(),
		SenderEmail: types.StringNull(), SenderName: types.StringNull()}
}

func (r *authEmailServerResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	standardOnly := func(what string) string {
		return what + " Required when `type` is `standard`; not allowed when it is `shared`."
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The email server a branch's Neon Auth sends its mails through: the platform's shared server or " +
			"your own SMTP server (`…/auth/email_server`, or `…/auth/email_provider` with `auth_api = \"branch\"`, read with the " +
			"branch's other settings from `GET …/auth/plugins`). " +
			"Destroy resets it to the shared server. Import with `<project_id>/<branch_id>`; `<project_id>` is the production branch's.",
		Attributes: withAttributes(branchAttributes("whose Neon Auth sends its mail through the server", false), map[string]schema.Attribute{
			"id": computedString("`<project_id>/<branch_id>`.", false),
			"type": schema.StringAttribute{
				MarkdownDescription: "`shared` (the platform's mail server) or `standard` (your own SMTP server, configured by the other arguments).",
				Required:            true,
				Validators:          []validator.String{stringvalidator.OneOf(apiclient.TypeShared, apiclient.TypeStandard)},
			},
			"host": schema.StringAttribute{
				MarkdownDescription: standardOnly("SMTP host name, such as `smtp.example.com`."),
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"port": schema.Int64Attribute{
				MarkdownDescription: standardOnly("SMTP port, from 1 to 65535 (commonly 587 or 465)."),
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(1, 65535)},
			},
			"username": schema.StringAttribute{
				MarkdownDescription: standardOnly("SMTP user name."),
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"password": schema.StringAttribute{
				MarkdownDescription: "SMTP password. Sensitive: stored in state, never shown, never returned by the API. " +
					"Give either this or `password_wo` to set up a `standard` server, and with every change of a Stack Auth " +
					"integration's server; a Better Auth integration keeps the password it stored when neither is given. " +
					"Not allowed when `type` is `shared`.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"password_wo": schema.StringAttribute{
				MarkdownDescription: "Write-only SMTP password (Terraform 1.11 or later): sent to the API, never stored in plan or " +
					"state. Use it instead of `password`, together with `password_wo_version`. A change of this value alone is " +
					"not seen: change `password_wo_version` to send it.",
				Optional:   true,
				Sensitive:  true,
				WriteOnly:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"password_wo_version": schema.Int64Attribute{
				MarkdownDescription: "Version of `password_wo`. Set it together with `password_wo`, and change it (for example " +
					"increment it) whenever the password changes: a change sends the configuration with the current password.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.AlsoRequires(path.MatchRoot("password_wo"))},
			},
			"sender_email": schema.StringAttribute{
				MarkdownDescription: standardOnly("Address the mails are sent from, such as `noreply@example.com`."),
				Optional:            true,
				Validators:          []validator.String{emailAddressValidator()},
			},
			"sender_name": schema.StringAttribute{
				MarkdownDescription: standardOnly("Name shown as the sender."),
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		}),
	}
}

func (r *authEmailServerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.planScope(ctx, scopeRules{}, req, resp)
	r.planRestore(ctx, req, resp, "email server setting", emailServerOnDestroy)
	r.planTakeOver(ctx, req, resp, plannedTakeOver{object: neonauth.Object{Kind: neonauth.KindEmailServer}, what: "email server setting",
		onDestroy: emailServerOnDestroy})
	if req.Plan.Raw.IsNull() {
		return
	}
	// A write sends the whole configuration, the password included when the
	// configuration has it. A plan that writes nothing needs none: after an
	// import (the API returns the password blank) the configuration
	// -generate-config-out wrote, with password = null, plans no change.
	writes := req.State.Raw.IsNull() || !req.Plan.Raw.Equal(req.State.Raw)
	var cfg authEmailServerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if !writes || resp.Diagnostics.HasError() || !isKnownSet(cfg.Type) || cfg.Type.ValueString() != apiclient.TypeStandard {
		return
	}
	if isSet(cfg.Password) || isSet(cfg.PasswordWO) || r.keepsStoredPassword(ctx, req) {
		return
	}
	resp.Diagnostics.AddAttributeError(path.Root("password"), "Missing argument for a standard email server",
		"`password` (or the write-only `password_wo` with `password_wo_version`) is required when `type` is \"standard\" "+
			"and the plan sends the configuration: a Stack Auth integration needs all six fields (host, port, username, "+
			"password, sender_email, sender_name) with every change, and the API never returns the password. (A Better Auth "+
			"integration keeps its stored password, but only once a standard server is configured.) After an import, "+
			"supply it before changing anything else.")
}

// keepsStoredPassword reports whether a write without the password keeps the
// one stored: Better Auth merges a partial standard update into a standard
// configuration already there (Stack Auth needs all six fields, and a switch
// from shared has nothing to keep). The password read back is blank, so it
// is never sent back.
func (r *authEmailServerResource) keepsStoredPassword(ctx context.Context, req resource.ModifyPlanRequest) bool {
	if !r.data.ready() || req.State.Raw.IsNull() {
		return false
	}
	var state authEmailServerModel
	if d := req.State.Get(ctx, &state); d.HasError() || state.Type.ValueString() != apiclient.TypeStandard {
		return false
	}
	s, err := r.data.scopeOf(ctx, scopeModel{branchModel: state.branchModel})
	if err != nil {
		return false
	}
	it, err := r.data.auth.Integration(ctx, s)
	return err == nil && it != nil && string(it.AuthProvider) == apiclient.AuthProviderBetterAuth
}

// ValidateConfig: a standard server needs five settings, a shared one none.
// The password, which no endpoint returns, is checked in ModifyPlan: only a
// plan that writes needs it.
func (r *authEmailServerResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg authEmailServerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() || cfg.Type.IsUnknown() || cfg.Type.IsNull() {
		return
	}
	fields := []struct {
		name string
		v    attr.Value
	}{
		{"host", cfg.Host}, {"port", cfg.Port}, {"username", cfg.Username}, {"password", cfg.Password},
		{"password_wo", cfg.PasswordWO}, {"password_wo_version", cfg.PasswordWOVersion},
		{"sender_email", cfg.SenderEmail}, {"sender_name", cfg.SenderName},
	}
	switch cfg.Type.ValueString() {
	case apiclient.TypeShared:
		for _, f := range fields {
			if isKnownSet(f.v) {
				resp.Diagnostics.AddAttributeError(path.Root(f.name), "Argument not allowed for a shared email server",
					fmt.Sprintf("`%s` is not allowed when `type` is \"shared\": the platform's mail server needs no settings. "+
						"Remove `%s`, or set `type = \"standard\"` to use your own SMTP server.", f.name, f.name))
			}
		}
	case apiclient.TypeStandard:
		for _, f := range fields {
			switch f.name {
			case "password", "password_wo", "password_wo_version":
				continue
			}
			if !isSet(f.v) {
				resp.Diagnostics.AddAttributeError(path.Root(f.name), "Missing argument for a standard email server",
					fmt.Sprintf("`%s` is required when `type` is \"standard\": a standard server needs host, port, username, "+
						"password (or password_wo), sender_email and sender_name. Set `%s`, or use `type = \"shared\"`.", f.name, f.name))
			}
		}
		switch {
		case isSet(cfg.Password) && isSet(cfg.PasswordWO):
			resp.Diagnostics.AddAttributeError(path.Root("password_wo"), "Conflicting password arguments",
				"Set either `password` or the write-only `password_wo` (with `password_wo_version`), not both. Remove one of them.")
		case isSet(cfg.PasswordWO) && !isSet(cfg.PasswordWOVersion):
			resp.Diagnostics.AddAttributeError(path.Root("password_wo_version"), "Missing password_wo_version",
				"`password_wo` is write-only, so Terraform cannot see when it changes: set `password_wo_version` (for example `1`) "+
					"and change it whenever the password changes.")
		}
	}
}

// emailImport is the import id: `<project_id>` or `<project_id>/<branch_id>`.
var emailImport = importFormat{resourceType: typeAuthEmailServer, withBranch: true, example: "autumn-frost-12345678/br-quiet-leaf-12345678"}

// send sends the whole planned configuration (a PATCH, harmless to repeat),
// the write-only password read from the configuration.
func (r *authEmailServerResource) send(ctx context.Context, s neonauth.Scope, plan *authEmailServerModel, cfgPassword string) (ok bool, detail string) {
	body := apiclient.SharedEmailServer()
	if plan.Type.ValueString() == apiclient.TypeStandard {
		password := plan.Password.ValueString()
		if plan.Password.IsNull() {
			password = cfgPassword
		}
		body = apiclient.StandardEmailServer(apiclient.SMTP{Host: plan.Host.ValueString(), Port: int(plan.Port.ValueInt64()),
			Username: plan.Username.ValueString(), Password: password, SenderEmail: plan.SenderEmail.ValueString(),
			SenderName: plan.SenderName.ValueString()})
	}
	if err := r.data.auth.UpdateEmailServer(ctx, s, body); err != nil {
		return false, r.data.explainFailure(ctx, s, fmt.Sprintf("Setting the %s email server of %s", body.Type, s.Scope), err)
	}
	plan.ID = types.StringValue(branchObjectID(s))
	plan.recordBranch(s)
	plan.PasswordWO = types.StringNull()
	return true, ""
}

func (r *authEmailServerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer emailImport.identifyCreated(ctx, resp)
	r.write(ctx, req.Plan, req.Config, &resp.State, resp.Private, &resp.Diagnostics, r.unable("Create"))
}

func (r *authEmailServerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer emailImport.identifyUpdated(ctx, resp)
	r.write(ctx, req.Plan, req.Config, &resp.State, nil, &resp.Diagnostics, r.unable("Update"))
}

// write is Create and Update: both send the whole planned configuration. At
// creation (private is set) on a branch that inherited its Neon Auth, the
// email server found is recorded first, for destroy to restore.
func (r *authEmailServerResource) write(ctx context.Context, planned tfsdk.Plan, cfg tfsdk.Config, state *tfsdk.State,
	private privateSetter, diags *diag.Diagnostics, summary string,
) {
	plan, s, ok := beginIn[authEmailServerModel](ctx, r.data, planned, summary, fromModel, diags)
	if !ok || private != nil && !r.data.requireBranch(ctx, s.ProjectID, s.BranchID, summary, diags) {
		return
	}
	password := writeOnlyString(ctx, cfg, path.Root("password_wo"), diags)
	if diags.HasError() {
		return
	}
	var to neonauth.TakeOver
	var found *apiclient.EmailServer
	if private != nil {
		if to, found, ok = r.takeOver(ctx, s, plan, summary, diags); !ok {
			return
		}
	}
	if ok, detail := r.send(ctx, s, &plan, password); !ok {
		diags.AddError(summary, detail)
		return
	}
	diags.Append(state.Set(ctx, &plan)...)
	if to.Allowed() {
		what := "no email server configured"
		if found != nil {
			what = "the " + string(found.Type) + " email server"
		}
		tookOver(ctx, private, diags, s, to.Parent, foundEmailServer{found}, "email server setting ("+what+")", "and started with a copy of its email server setting",
			r.data.onDestroy(emailServerOnDestroy))
	}
}

// takeOver decides, at creation, on the email server the branch already
// has: one it inherited is taken over (found, for destroy to restore),
// unless that would lose an SMTP password destroy could not restore, or
// inherited_auth is "refuse", which refuses it with the import command. On
// a branch that inherited nothing the configuration is written whatever the
// branch had. ok is false when the create is refused (an error says why).
func (r *authEmailServerResource) takeOver(ctx context.Context, s neonauth.Scope, plan authEmailServerModel, summary string,
	diags *diag.Diagnostics,
) (to neonauth.TakeOver, found *apiclient.EmailServer, ok bool) {
	object := neonauth.Object{Kind: neonauth.KindEmailServer}
	to = r.data.auth.MayTakeOver(ctx, s, object)
	inherited := to
	if to.Refused == neonauth.RefusedBySetting {
		inherited = r.data.auth.Inherited(ctx, s, object)
	}
	if !inherited.Allowed() {
		return to, nil, true
	}
	if found, ok = r.found(ctx, s, summary, diags); !ok {
		return to, nil, false
	}
	switch {
	case found != nil && !to.Allowed():
		diags.AddError(summary, fmt.Sprintf("Setting the email server of %s: the branch inherited a %s email server from branch %s.",
			s.Scope, found.Type, inherited.Parent)+importHint("The branch already has an email server setting. "+takeOverRefusal(s, to),
			emailImport.resourceType, compositeID(s.ProjectID, s.BranchID)))
		return to, nil, false
	case found != nil && string(found.Type) == apiclient.TypeStandard && plan.Type.ValueString() == apiclient.TypeShared && r.data.restore:
		diags.AddAttributeError(path.Root("type"), "Inherited email server is standard",
			fmt.Sprintf("Branch %s was created from branch %s and inherited its SMTP server (%s). Making it shared would lose "+
				"the SMTP password, which destroy could not restore: the API never returns it. Set type = \"standard\" with "+
				"the server's settings and password, or leave neon_auth_email_server out of this configuration to keep the "+
				"inherited server.%s", s.BranchID, to.Parent, apiclient.Deref(found.Host), disposableHint))
		return to, nil, false
	}
	return to, found, true
}

// emailServerOnDestroy is what destroy does with an email server setting
// taken over.
const emailServerOnDestroy = "Destroy restores what it found (the shared server when none was configured); an SMTP password " +
	"cannot be read back, so a standard server keeps the one this configuration set."

// foundEmailServer is the email server a take-over found (nil: none was
// configured), without its password, which the API never returns.
type foundEmailServer struct {
	Server *apiclient.EmailServer `json:"server"`
}

// found reads the email server a branch has before this resource writes
// its own; nil when none is configured (the documented 404).
func (r *authEmailServerResource) found(ctx context.Context, s neonauth.Scope, summary string, diags *diag.Diagnostics) (*apiclient.EmailServer, bool) {
	got, err := r.data.auth.EmailServer(ctx, s)
	switch {
	case isNotFound(err):
		return nil, true
	case err != nil:
		diags.AddError(summary, apiErrorDetail("Reading the email server "+s.String()+" inherited", err))
		return nil, false
	}
	got.Password = nil
	return &got, true
}

func (r *authEmailServerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer emailImport.identifyRead(ctx, req, resp)
	summary := r.unable("Read")
	state, s, ok := beginIn[authEmailServerModel](ctx, r.data, req.State, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	got, err := r.data.auth.EmailServer(ctx, s)
	if err != nil {
		if isNotFound(err) {
			// No configuration, no integration, or a project this key cannot
			// see: Absence tells which (the first two are drift).
			r.readListed(ctx, s, nil, "the email server configuration of "+s.String(), resp)
			return
		}
		resp.Diagnostics.AddError(summary, apiErrorDetail("Reading the email server configuration of "+s.String(), err))
		return
	}
	warnUnknownValue(&resp.Diagnostics, "The email server type of "+s.String(), string(got.Type), apiclient.TypeShared, apiclient.TypeStandard)
	state.fromAPI(s, got)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// fromAPI writes the email server the API reports into m. The password is
// never returned (or only masked): a standard configuration keeps m's.
func (m *authEmailServerModel) fromAPI(s neonauth.Scope, got apiclient.EmailServer) {
	m.ID = types.StringValue(branchObjectID(s))
	m.recordBranch(s)
	m.emailServerFields.fromAPI(got)
	if string(got.Type) == apiclient.TypeShared {
		// Nothing of a standard configuration is left.
		m.Password = types.StringNull()
		m.PasswordWOVersion = types.Int64Null()
	}
	m.PasswordWO = types.StringNull()
}

// Delete resets the branch to the platform's shared mail server, the
// documented way back, or restores the one a take-over found (sent without
// a password: Better Auth keeps the stored one), or, with
// restore_on_destroy = false, leaves what a take-over configured. An
// integration that is already gone took its configuration with it: that is
// success.
func (r *authEmailServerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	summary := r.unable("Delete")
	_, s, ok := beginIn[authEmailServerModel](ctx, r.data, req.State, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	back, what := apiclient.SharedEmailServer(), "Resetting the email server of "+s.String()+" to the shared server"
	if restoreTakenOver(ctx, r.data, req.Private, &resp.Diagnostics, func(rec takeOverRecord[foundEmailServer]) {
		if rec.Found.Server != nil {
			back, what = *rec.Found.Server, "Restoring the "+string(rec.Found.Server.Type)+" email server "+s.String()+" inherited"
		}
		r.settleDelete(ctx, s, r.data.auth.UpdateEmailServer(ctx, s, back), nil, what, &resp.Diagnostics)
	}) {
		return
	}
	err := r.data.auth.UpdateEmailServer(ctx, s, back)
	r.settleDelete(ctx, s, err, nil, what, &resp.Diagnostics)
}

func (r *authEmailServerResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = emailImport.identitySchema()
}

func (r *authEmailServerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if v, ok := emailImport.importState(ctx, &req, resp); ok {
		r.checkImportBranch(ctx, v, resp)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), v["project_id"])...)
	}
}

// NewAuthEmailServerList finds the neon_auth_email_server objects of a
// project: the email server of every branch with Neon Auth, named by the
// branch.
func NewAuthEmailServerList() list.ListResource {
	return &objectList{listedResource: &authEmailServerResource{configured: configuredAs(typeAuthEmailServer)},
		what: "the email servers", find: singleton}
}

// singleton finds the one object of each branch with Neon Auth (the email
// server, the settings), named by the branch.
func singleton(ctx context.Context, auth *neonauth.Service, s listScope) ([]foundObject, error) {
	its, err := auth.EnabledIntegrations(ctx, s.Scope)
	if err != nil || len(its) == 0 {
		return nil, err
	}
	return []foundObject{{compositeID(s.ProjectID, s.BranchID), s.name}}, nil
}
