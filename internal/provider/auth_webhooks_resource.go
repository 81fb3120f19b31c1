package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The neon_auth_webhooks resource: the webhook a branch's Neon Auth calls on
// auth events.

var (
	_ resource.ResourceWithImportState = (*authWebhooksResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*authWebhooksResource)(nil)
)

// NewAuthWebhooksResource is the neon_auth_webhooks resource.
func NewAuthWebhooksResource() resource.Resource {
	r := settingsOf(webhooksKind)
	return &r
}

type authWebhooksResource = settingsResource[apiclient.Webhooks, authWebhooksModel, *authWebhooksModel]

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

var webhooksKind = settingsKind[apiclient.Webhooks, authWebhooksModel]{
	typeName: typeAuthWebhooks,
	found:    webhooksFound,
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
	get: func(ctx context.Context, d *providerData, s apiclient.Scope) (apiclient.Webhooks, error) {
		return deref(d.client.GetWebhooks(ctx, s))
	},
	set: func(ctx context.Context, d *providerData, s apiclient.Scope, v apiclient.Webhooks) (apiclient.Webhooks, error) {
		return deref(d.client.PutWebhooks(ctx, s, v))
	},
	toModel: func(v apiclient.Webhooks, m *authWebhooksModel) {
		m.Enabled = types.BoolValue(v.Enabled)
		m.WebhookURL = optionalString(v.WebhookURL)
		events := make([]attr.Value, 0, len(v.EnabledEvents))
		for _, e := range v.EnabledEvents {
			events = append(events, types.StringValue(e))
		}
		m.EnabledEvents = types.SetValueMust(types.StringType, events)
		m.TimeoutSeconds = intOrNull(v.TimeoutSeconds)
	},
	overlay: func(m authWebhooksModel, v apiclient.Webhooks) apiclient.Webhooks {
		timeout := int64(defaultWebhookTimeout)
		if v.TimeoutSeconds != nil {
			timeout = *v.TimeoutSeconds
		}
		overlayBool(&v.Enabled, m.Enabled)
		overlayString(&v.WebhookURL, m.WebhookURL)
		overlayInt(&timeout, m.TimeoutSeconds)
		v.TimeoutSeconds = &timeout
		if isKnownSet(m.EnabledEvents) {
			v.EnabledEvents = nil
			for _, e := range m.EnabledEvents.Elements() {
				if s, ok := e.(basetypes.StringValue); ok {
					v.EnabledEvents = append(v.EnabledEvents, s.ValueString())
				}
			}
		}
		return v
	},
}
