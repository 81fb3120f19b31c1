package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The neon_auth_webhooks resource: the webhook a branch's Neon Auth calls on
// auth events.

type authWebhooksModel struct {
	settingsBase
	Enabled        types.Bool   `tfsdk:"enabled"`
	WebhookURL     types.String `tfsdk:"webhook_url"`
	EnabledEvents  types.Set    `tfsdk:"enabled_events"`
	TimeoutSeconds types.Int64  `tfsdk:"timeout_seconds"`
}

// defaultWebhookTimeout is the API's default timeout, sent when the branch
// reports none (PUT replaces the whole object).
const defaultWebhookTimeout = 5

var webhooksKind = settingsKind[neonapi.NeonAuthWebhookConfig, authWebhooksModel]{
	typeName: "neon_auth_webhooks",
	setting:  betterauth.Webhooks,
	description: "The webhook a branch's Neon Auth calls on auth events (`GET/PUT …/auth/webhooks`); every write sends " +
		"every field.",
	attributes: map[string]schema.Attribute{
		"enabled": settingBool("Whether the webhook is called."),
		"webhook_url": schema.StringAttribute{
			MarkdownDescription: "The `https://` URL the events are posted to.",
			Optional:            true, Computed: true,
			PlanModifiers: []planmodifier.String{useStateWhenOmitted{}},
			Validators:    []validator.String{httpsURLValidator()},
		},
		"enabled_events": schema.SetAttribute{
			MarkdownDescription: "The events sent: any of " + enumText(apiclient.WebhookEvents, nil) + ".",
			ElementType:         types.StringType,
			Optional:            true, Computed: true,
			PlanModifiers: []planmodifier.Set{useStateWhenOmitted{}},
			Validators:    []validator.Set{setvalidator.ValueStringsAre(stringvalidator.OneOf(apiclient.WebhookEvents...))},
		},
		"timeout_seconds": settingInt("Seconds the webhook may take to answer, 1 to 10.", 1, 10),
	},
	prepare: func(v neonapi.NeonAuthWebhookConfig) neonapi.NeonAuthWebhookConfig {
		if v.TimeoutSeconds == nil {
			v.TimeoutSeconds = apiclient.Ptr(defaultWebhookTimeout)
		}
		return v
	},
}
