package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_email_server data source: the email server of a branch's Neon
// Auth.

// NewAuthEmailServerDataSource is the neon_auth_email_server data source.
func NewAuthEmailServerDataSource() datasource.DataSource {
	return &authEmailServerDataSource{configuredDataSource: dataSourceAs(typeAuthEmailServer)}
}

type authEmailServerDataSource struct {
	configuredDataSource
}

type authEmailServerDataModel struct {
	branchModel
	emailServerFields
	ID types.String `tfsdk:"id"`
}

func (d *authEmailServerDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The email server of a branch's Neon Auth (`GET …/auth/email_server`, or with `auth_api = \"branch\"` " +
			"the `email_provider` of `GET …/auth/plugins`, shared with the branch's other settings), " +
			"for audits and checks. The password is never exposed.",
		Attributes: withAttributes(dataBranchAttributes("whose email server is read"), map[string]schema.Attribute{
			"id":           computedDataString("`<project_id>/<branch_id>`."),
			"type":         computedDataString("`shared` or `standard`; null when the branch has no email provider configured."),
			"host":         computedDataString("SMTP host of a standard server."),
			"port":         schema.Int64Attribute{MarkdownDescription: "SMTP port of a standard server.", Computed: true},
			"username":     computedDataString("SMTP user name of a standard server."),
			"sender_email": computedDataString("Address the mails are sent from."),
			"sender_name":  computedDataString("Name shown as the sender."),
		}),
	}
}

func (d *authEmailServerDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg authEmailServerDataModel
	summary := d.unable("Read")
	s, ok := d.openData(ctx, req, &cfg, &resp.Diagnostics)
	if !ok {
		return
	}
	cfg.ID = types.StringValue(compositeID(s.ProjectID, s.BranchID))
	cfg.recordBranch(s)
	got, err := d.data.auth.EmailServer(ctx, s)
	switch {
	case isNotFound(err) && d.readGone(ctx, s, err, &resp.Diagnostics):
		// Every field null: there is no branch to have an email server.
	case isNotFound(err):
		// No email provider, no integration, or a project this key cannot
		// see: only the first is a value to report.
		if p, perr := d.data.auth.Absence(ctx, s, nil); p != neonauth.Gone {
			resp.Diagnostics.AddError(summary, scopeErrorDetail(s, "Reading the email server of "+s.String(), err, p, perr))
			return
		}
		if it, _ := d.data.auth.Integration(ctx, s); it == nil {
			resp.Diagnostics.AddError(summary, "The "+s.String()+" has no Neon Auth integration, so no email server.")
			return
		}
		cfg.emailServerFields = noEmailServer()
	case err != nil:
		resp.Diagnostics.AddError(summary, apiErrorDetail("Reading the email server of "+s.String(), err))
		return
	default:
		cfg.fromAPI(got)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
