package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Plan modifiers that more than one resource uses.

// canonicalDomainPlanModifier keeps the prior spelling of a domain when the
// configuration names the same origin in another spelling (case, trailing
// slash), so that neither the API's canonical form nor an import id written
// differently ever shows as a change. Terraform accepts a planned value equal
// to the prior state in place of the configured one for exactly this purpose.
type canonicalDomainPlanModifier struct{}

var _ planmodifier.String = canonicalDomainPlanModifier{}

func (canonicalDomainPlanModifier) Description(context.Context) string {
	return "Domains that differ only in the case of scheme or host, or in a trailing slash, are the same domain."
}

func (m canonicalDomainPlanModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (canonicalDomainPlanModifier) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if apiclient.SameOrigin(req.ConfigValue.ValueString(), req.StateValue.ValueString()) {
		resp.PlanValue = req.StateValue
	}
}
