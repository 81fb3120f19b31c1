package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_domain resource: one origin of the redirect URI whitelist of a
// branch's Neon Auth, a list-backed type. What differs from the shared
// lifecycle: its plan shares the whitelist's checks with neon_auth_domains
// (planDomains), and a domain taken over has a warning of its own; the
// API's rules are neonauth's DomainAPI.

type authDomainModel struct {
	listedModel
	Domain types.String `tfsdk:"domain"`
}

// authDomain describes neon_auth_domain.
var authDomain = &listBacked[authDomainModel, apiclient.Domain, struct{}]{
	typeName: typeAuthDomain, api: neonauth.DomainAPI,
	key: "domain", canonical: apiclient.CanonicalOrigin, keyMaySlash: true,
	importExample: "autumn-frost-12345678/br-quiet-leaf-12345678/https://app.example.com",
	description:   "One origin of the redirect URI whitelist of a branch's Neon Auth (`…/auth/domains`).",
	scopeRole:     "whose Neon Auth whitelists the domain",
	attributes: map[string]schema.Attribute{
		"domain": schema.StringAttribute{
			MarkdownDescription: "The domain to whitelist: an origin (`https://app.example.com`), a wildcard host " +
				"(`https://*.preview.example.com`) or a native app's own scheme (`myapp://callback`). Compared in canonical " +
				"form. Changing it to another domain replaces the resource.",
			Required:      true,
			PlanModifiers: []planmodifier.String{canonicalDomainPlanModifier{}, stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{originValidator()},
		},
	},
	noun:   func(domain string) string { return "trusted domain " + domain },
	adding: addingDomain,
	already: func(domain string, s neonauth.Scope) string {
		return fmt.Sprintf("The domain %s is already whitelisted on %s.", domain, s)
	},
	onDestroy: domainLeftOnDestroy,
	hooks: listedHooks[authDomainModel, struct{}]{
		plan: func(ctx context.Context, c *configured, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, domain string) {
			var declared []string
			if domain != "" {
				declared = []string{domain}
			}
			c.planDomains(ctx, req, resp, declared)
		},
		tookOver: func(domain string, s neonauth.Scope) (string, string) {
			return "Trusted domain already on the branch taken over: " + domain, fmt.Sprintf("The whitelist of %s already held %s, so the "+
				"provider took it over instead of adding it. %s", s, domain, domainLeftOnDestroy)
		},
	},
}

// addingDomain names the create of domain on s.
func addingDomain(domain string, s neonauth.Scope) string {
	return fmt.Sprintf("Adding the domain %s to the redirect URI whitelist of %s", domain, s)
}

// domainLeftOnDestroy is what destroy does with a domain taken over.
const domainLeftOnDestroy = "Destroy leaves it in the whitelist."
