package provider

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_send_test_email action: a test email through a branch's email
// server.

var (
	_ action.ActionWithConfigure      = (*sendTestEmailAction)(nil)
	_ action.ActionWithValidateConfig = (*sendTestEmailAction)(nil)
	_ action.ActionWithModifyPlan     = (*sendTestEmailAction)(nil)
)

// NewSendTestEmailAction is the neon_auth_send_test_email action (Terraform
// ≥ 1.14): a test email through a branch's email server, triggered after a
// change of neon_auth_email_server or invoked with `terraform apply -invoke`.
func NewSendTestEmailAction() action.Action {
	return &sendTestEmailAction{typeName: typeAuthSendTestEmail}
}

type sendTestEmailAction struct {
	data *providerData
	typeName
}

type sendTestEmailModel struct {
	branchModel
	RecipientEmail types.String `tfsdk:"recipient_email"`
	Host           types.String `tfsdk:"host"`
	Port           types.Int64  `tfsdk:"port"`
	Username       types.String `tfsdk:"username"`
	Password       types.String `tfsdk:"password"`
	SenderEmail    types.String `tfsdk:"sender_email"`
	SenderName     types.String `tfsdk:"sender_name"`
}

// smtpFields are the settings of a configuration not saved yet, in the
// order the docs name them.
func (m sendTestEmailModel) smtpFields() []struct {
	name string
	v    attr.Value
} {
	return []struct {
		name string
		v    attr.Value
	}{{"host", m.Host}, {"port", m.Port}, {"username", m.Username}, {"password", m.Password}, {"sender_email", m.SenderEmail}, {"sender_name", m.SenderName}}
}

// unsaved reports whether the configuration gives an SMTP server to test
// (any of its fields set): the deprecated send_test_email then serves it.
func (m sendTestEmailModel) unsaved() bool {
	for _, f := range m.smtpFields() {
		if isSet(f.v) {
			return true
		}
	}
	return false
}

func (a *sendTestEmailAction) Metadata(_ context.Context, _ action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = string(a.typeName)
}

// Configure keeps what the provider's Configure handed over.
func (a *sendTestEmailAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (a *sendTestEmailAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	unsaved := func(what string) string {
		return what + " Give all six SMTP settings (host, port, username, password, sender_email, sender_name) to test a " +
			"configuration that is not saved yet, through the deprecated `…/auth/send_test_email`; give none to test the " +
			"standard email server saved on the branch."
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Sends a test email through a branch's email server (Terraform 1.14 or later). Without SMTP settings it " +
			"tests the standard server saved on the branch (`POST …/branches/{branch_id}/auth/email_provider/test`), which needs " +
			"`auth_api = \"branch\"`, a Better Auth integration and a standard (not shared) email server: a plan refuses the first " +
			"two when the action's arguments are known then, the invocation checks all three, and that the branch has an email server, before any request. With all six SMTP settings it tests that configuration without saving it, through " +
			"the deprecated `…/auth/send_test_email`. It fails with the mail server's complaint when the email is not accepted. " +
			"Trigger it from `neon_auth_email_server` with `lifecycle { action_trigger { … } }`, or run it with " +
			"`terraform apply -invoke=action.neon_auth_send_test_email.<name>`.",
		Attributes: map[string]schema.Attribute{
			"project_id": schema.StringAttribute{
				MarkdownDescription: "Id of the Neon project whose email server is tested.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"branch_id": schema.StringAttribute{
				MarkdownDescription: "Id of the branch whose email server is tested. Omitted: the project's production branch.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"recipient_email": schema.StringAttribute{
				MarkdownDescription: "Address the test email is sent to, such as `ops@example.com`.",
				Required:            true,
				Validators:          []validator.String{emailAddressValidator()},
			},
			"host": schema.StringAttribute{
				MarkdownDescription: unsaved("SMTP host name, such as `smtp.example.com`."),
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"port": schema.Int64Attribute{
				MarkdownDescription: unsaved("SMTP port, from 1 to 65535."),
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(1, 65535)},
			},
			"username": schema.StringAttribute{
				MarkdownDescription: unsaved("SMTP user name."),
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"password": schema.StringAttribute{
				MarkdownDescription: unsaved("SMTP password. Never in progress messages or logs; an action's arguments are not " +
					"stored in state. Pass it from a `sensitive` (or `ephemeral`) variable so that plans do not show it."),
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"sender_email": schema.StringAttribute{
				MarkdownDescription: unsaved("Address the test email is sent from, such as `noreply@example.com`."),
				Optional:            true,
				Validators:          []validator.String{emailAddressValidator()},
			},
			"sender_name": schema.StringAttribute{
				MarkdownDescription: unsaved("Name shown as the sender."),
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		},
	}
}

// ValidateConfig: the SMTP settings come all six or not at all.
func (a *sendTestEmailAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var cfg sendTestEmailModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...); resp.Diagnostics.HasError() || !cfg.unsaved() {
		return
	}
	for _, f := range cfg.smtpFields() {
		if f.v.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root(f.name), "Missing SMTP setting for the test email",
				fmt.Sprintf("`%s` is required when any SMTP setting is given: the deprecated send_test_email endpoint needs "+
					"all six (host, port, username, password, sender_email, sender_name). Set `%s`, or remove the SMTP settings "+
					"to test the email server saved on the branch.", f.name, f.name))
		}
	}
}

// ModifyPlan refuses at plan what the API would refuse whatever this apply
// changes: project mode, and (for the saved configuration) an integration
// that is not Better Auth. Whether the saved email server is a standard one
// can change in the same apply (the trigger after_create of
// neon_auth_email_server is the usual case), so that is checked when the
// action runs; the plan only warns.
func (a *sendTestEmailAction) ModifyPlan(ctx context.Context, req action.ModifyPlanRequest, resp *action.ModifyPlanResponse) {
	if !a.data.ready() {
		return // the provider is not configured yet; Invoke says so
	}
	var cfg sendTestEmailModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...); resp.Diagnostics.HasError() {
		return
	}
	const summary = "Unable to plan the test email"
	if !a.branchMode(&resp.Diagnostics, summary) || cfg.ProjectID.IsUnknown() || cfg.BranchID.IsUnknown() || cfg.unsaved() {
		return
	}
	s, err := a.data.scopeOf(ctx, scopeModel{branchModel: cfg.branchModel})
	if err != nil {
		return // the branch may be created by this apply; Invoke says what is wrong
	}
	it, err := a.data.auth.Integration(ctx, s)
	if err != nil || it == nil {
		return // the integration may be created by this apply
	}
	if string(it.AuthProvider) != apiclient.AuthProviderBetterAuth {
		resp.Diagnostics.AddError(summary, notBetterAuth(s, string(it.AuthProvider)))
		return
	}
	got, err := a.data.auth.GetEmailServer(ctx, s)
	switch {
	case err != nil && !isNotFound(err):
		return
	case err != nil:
		resp.Diagnostics.AddWarning("No email server configured yet",
			fmt.Sprintf("The %s has no email server configured now. The test email can only be sent once a standard one "+
				"is saved (a neon_auth_email_server applied before the action runs, such as one that triggers it).", s.Scope))
	case string(got.Type) != apiclient.TypeStandard:
		resp.Diagnostics.AddWarning("Shared email server",
			fmt.Sprintf("The %s uses the shared email server now, which cannot be tested. The test email can only be sent "+
				"once a standard one is saved (a neon_auth_email_server applied before the action runs, such as one that "+
				"triggers it).", s.Scope))
	}
}

func (a *sendTestEmailAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	const summary = "Unable to send the test email"
	if !requireClient(a.data, &resp.Diagnostics) {
		return
	}
	var cfg sendTestEmailModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...); resp.Diagnostics.HasError() {
		return
	}
	if !a.branchMode(&resp.Diagnostics, summary) {
		return
	}
	s, ok := a.data.resolveScope(ctx, scopeModel{branchModel: cfg.branchModel}, summary, &resp.Diagnostics)
	if !ok {
		return
	}
	to := cfg.RecipientEmail.ValueString()
	var (
		result  *apiclient.TestEmailResult
		err     error
		through string
	)
	if cfg.unsaved() {
		smtp := apiclient.StandardEmailServer(apiclient.SMTP{Host: cfg.Host.ValueString(), Port: int(cfg.Port.ValueInt64()),
			Username: cfg.Username.ValueString(), Password: cfg.Password.ValueString(), SenderEmail: cfg.SenderEmail.ValueString(),
			SenderName: cfg.SenderName.ValueString()})
		through = "the SMTP server " + cfg.Host.ValueString() + ":" + strconv.FormatInt(cfg.Port.ValueInt64(), 10) + " (not saved)"
		resp.Diagnostics.AddWarning("Deprecated endpoint used for the test email",
			"With SMTP settings given, the test email goes through POST …/auth/send_test_email, which Neon has deprecated in "+
				"favour of …/auth/email_provider/test. Save the configuration with neon_auth_email_server and remove the SMTP "+
				"settings from the action to use the successor.")
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("Sending a test email to %s through %s on the %s…", to, through, s.Scope)})
		result, err = a.data.auth.SendTestEmailWith(ctx, s, smtp, to)
	} else {
		if !a.savedServerUsable(ctx, s, summary, &resp.Diagnostics) {
			return
		}
		through = "the saved email server"
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("Sending a test email to %s through %s of the %s…", to, through, s.Scope)})
		result, err = a.data.auth.SendTestEmail(ctx, s, to)
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, a.data.explainFailure(ctx, s, "Sending a test email to "+to+" on the "+s.String(), err))
		return
	}
	if !result.Success {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("Test email to %s failed: %s", to, apiclient.Deref(result.ErrorMessage))})
		resp.Diagnostics.AddError(summary, fmt.Sprintf("The test email to %s through %s of the %s was not accepted: %s. "+
			"Check the SMTP settings (host, port, username, password, sender_email).", to, through, s.Scope, apiclient.Deref(result.ErrorMessage)))
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("Test email to %s sent through %s.", to, through)})
}

// branchMode refuses project mode: the project-level API has no test email.
func (a *sendTestEmailAction) branchMode(diags *diag.Diagnostics, summary string) bool {
	if a.data.auth.Family() == apiclient.FamilyBranch {
		return true
	}
	diags.AddError(summary, fmt.Sprintf("Test emails need the branch-scoped endpoints, and the provider uses the project-level "+
		"ones (auth_api = %q), which have none. Set auth_api = %q in the provider block.", authAPIProject, authAPIBranch))
	return false
}

// savedServerUsable refuses before any request what POST …/email_provider/test
// would: no integration, one that is not Better Auth, no email server, or
// the shared one.
func (a *sendTestEmailAction) savedServerUsable(ctx context.Context, s neonauth.Scope, summary string, diags *diag.Diagnostics) bool {
	it, err := a.data.auth.Integration(ctx, s)
	switch {
	case err != nil:
		diags.AddError(summary, a.data.explainFailure(ctx, s, "Reading the integration of the "+s.String(), err))
		return false
	case it == nil:
		diags.AddError(summary, fmt.Sprintf("The %s has no Neon Auth integration, so it has no email server to test. "+
			"Create a neon_auth_integration and a standard neon_auth_email_server first.", s.Scope))
		return false
	case string(it.AuthProvider) != apiclient.AuthProviderBetterAuth:
		diags.AddError(summary, notBetterAuth(s, string(it.AuthProvider)))
		return false
	}
	got, err := a.data.auth.GetEmailServer(ctx, s)
	switch {
	case err != nil && isNotFound(err):
		diags.AddError(summary, fmt.Sprintf("The %s has no email server configured: nothing to test. Configure a standard "+
			"neon_auth_email_server first (and trigger this action from it), or give the SMTP settings to the action.", s.Scope))
		return false
	case err != nil:
		diags.AddError(summary, a.data.explainFailure(ctx, s, "Reading the email server of the "+s.String(), err))
		return false
	case string(got.Type) != apiclient.TypeStandard:
		diags.AddError(summary, fmt.Sprintf("The %s uses the shared email server, which cannot be tested. Set type = "+
			"\"standard\" on its neon_auth_email_server (with your SMTP settings), or give the SMTP settings to the action.", s.Scope))
		return false
	}
	return true
}

// notBetterAuth explains why a saved configuration of another auth provider
// cannot be tested.
func notBetterAuth(s neonauth.Scope, authProvider string) string {
	return fmt.Sprintf("The integration of the %s is %s; only a %s integration can test its saved email server. Give the "+
		"six SMTP settings to the action instead (the deprecated send_test_email serves every auth provider).",
		s.Scope, authProvider, apiclient.AuthProviderBetterAuth)
}
