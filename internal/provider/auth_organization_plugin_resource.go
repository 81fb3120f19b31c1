package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The neon_auth_organization_plugin resource: the organization plugin of a
// branch's Neon Auth.

type authOrganizationPluginModel struct {
	settingsBase
	Enabled             types.Bool   `tfsdk:"enabled"`
	OrganizationLimit   types.Int64  `tfsdk:"organization_limit"`
	MembershipLimit     types.Int64  `tfsdk:"membership_limit"`
	CreatorRole         types.String `tfsdk:"creator_role"`
	SendInvitationEmail types.Bool   `tfsdk:"send_invitation_email"`
}

var organizationPluginKind = settingsKind[neonapi.NeonAuthOrganizationConfig, authOrganizationPluginModel]{
	typeName: "neon_auth_organization_plugin",
	setting:  betterauth.Organization,
	description: "The organization plugin of a branch's Neon Auth, for multi-tenant apps: read with `GET …/auth/plugins` " +
		"(shared with the other plugins of the branch), written with `PATCH …/auth/plugins/organization`.",
	attributes: map[string]schema.Attribute{
		"enabled":            settingBool("Whether users can create and join organizations."),
		"organization_limit": settingInt("How many organizations a user may belong to, whether created or joined, at least 1.", 1, 0),
		"membership_limit":   settingInt("How many members an organization may have, at least 1.", 1, 0),
		"creator_role": settingEnum("Role of the user who creates an organization", apiclient.CreatorRoles,
			map[string]string{"owner": "full control", "admin": "manages members and settings"}),
		"send_invitation_email": settingBool("Whether invitations to an organization are sent by email (the invitee needs a verified email address)."),
	},
}
