package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The neon_auth_organization_plugin resource: the organization plugin of a
// branch's Neon Auth.

var (
	_ resource.ResourceWithImportState = (*authOrganizationPluginResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*authOrganizationPluginResource)(nil)
)

// NewAuthOrganizationPluginResource is the neon_auth_organization_plugin resource.
func NewAuthOrganizationPluginResource() resource.Resource {
	r := settingsOf(organizationPluginKind)
	return &r
}

type authOrganizationPluginResource = settingsResource[apiclient.OrganizationPlugin, authOrganizationPluginModel, *authOrganizationPluginModel]

type authOrganizationPluginModel struct {
	settingsBase
	Enabled             types.Bool   `tfsdk:"enabled"`
	OrganizationLimit   types.Int64  `tfsdk:"organization_limit"`
	MembershipLimit     types.Int64  `tfsdk:"membership_limit"`
	CreatorRole         types.String `tfsdk:"creator_role"`
	SendInvitationEmail types.Bool   `tfsdk:"send_invitation_email"`
}

var organizationPluginKind = settingsKind[apiclient.OrganizationPlugin, authOrganizationPluginModel]{
	typeName: typeAuthOrganizationPlugin,
	found:    organizationPluginFound,
	description: "The organization plugin of a branch's Neon Auth, for multi-tenant apps: read with `GET …/auth/plugins` " +
		"(shared with the other plugins of the branch), written with `PATCH …/auth/plugins/organization`.",
	attributes: map[string]schema.Attribute{
		"enabled":               settingBool("Whether users can create and join organizations."),
		"organization_limit":    settingInt("How many organizations a user may create, at least 1.", 1, 0),
		"membership_limit":      settingInt("How many members an organization may have, at least 1.", 1, 0),
		"creator_role":          settingEnum("Role of the user who creates an organization", apiclient.CreatorRoles, nil),
		"send_invitation_email": settingBool("Whether invitations to an organization are sent by email."),
	},
	get: func(ctx context.Context, d *providerData, s apiclient.Scope) (apiclient.OrganizationPlugin, error) {
		return d.organizationPlugin(ctx, s)
	},
	set: func(ctx context.Context, d *providerData, s apiclient.Scope, v apiclient.OrganizationPlugin) (apiclient.OrganizationPlugin, error) {
		return deref(d.client.UpdateOrganizationPlugin(ctx, s, apiclient.OrganizationPluginUpdate{
			Enabled: &v.Enabled, OrganizationLimit: &v.OrganizationLimit, MembershipLimit: &v.MembershipLimit,
			CreatorRole: &v.CreatorRole, SendInvitationEmail: &v.SendInvitationEmail,
		}))
	},
	toModel: func(v apiclient.OrganizationPlugin, m *authOrganizationPluginModel) {
		m.Enabled = types.BoolValue(v.Enabled)
		m.OrganizationLimit = types.Int64Value(v.OrganizationLimit)
		m.MembershipLimit = types.Int64Value(v.MembershipLimit)
		m.CreatorRole = types.StringValue(v.CreatorRole)
		m.SendInvitationEmail = types.BoolValue(v.SendInvitationEmail)
	},
	overlay: func(m authOrganizationPluginModel, v apiclient.OrganizationPlugin) apiclient.OrganizationPlugin {
		overlayBool(&v.Enabled, m.Enabled)
		overlayInt(&v.OrganizationLimit, m.OrganizationLimit)
		overlayInt(&v.MembershipLimit, m.MembershipLimit)
		overlayString(&v.CreatorRole, m.CreatorRole)
		overlayBool(&v.SendInvitationEmail, m.SendInvitationEmail)
		return v
	},
}
