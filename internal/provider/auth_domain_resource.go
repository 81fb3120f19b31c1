package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

var (
	_ resource.Resource                = (*authDomainResource)(nil)
	_ resource.ResourceWithConfigure   = (*authDomainResource)(nil)
	_ resource.ResourceWithImportState = (*authDomainResource)(nil)
)

// NewAuthDomainResource is the neon_auth_domain resource.
func NewAuthDomainResource() resource.Resource { return &authDomainResource{} }

type authDomainResource struct {
	configured
}

type authDomainModel struct {
	ID           types.String `tfsdk:"id"`
	ProjectID    types.String `tfsdk:"project_id"`
	Domain       types.String `tfsdk:"domain"`
	AuthProvider types.String `tfsdk:"auth_provider"`
}

func (r *authDomainResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_auth_domain"
}

func (r *authDomainResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "One domain of the redirect URI whitelist of a project's auth integration: the auth provider " +
			"redirects users only to whitelisted origins. Use one resource per domain.\n\n" +
			"Create calls `POST /projects/{project_id}/auth/domains`; read finds the domain in the list of " +
			"`GET /projects/{project_id}/auth/domains`; destroy calls `DELETE /projects/{project_id}/auth/domains` with this " +
			"one domain. Every input forces replacement.\n\n" +
			"Domains are compared in canonical form (scheme and host in lower case, no trailing slash), the form the API " +
			"stores: `https://App.Example.com/` and `https://app.example.com` are the same domain and never show as a change.\n\n" +
			"Drift: a domain removed from the whitelist outside Terraform (or the whole integration deleted) is planned for " +
			"creation again. Nothing here is sensitive.\n\n" +
			"Import with `<project_id>/<domain>`, such as `autumn-frost-12345678/https://app.example.com` (the id is split at " +
			"the first `/`; the domain may be written in any case).",
		Attributes: map[string]schema.Attribute{
			"id":         computedString("`<project_id>/<canonical domain>`, such as `autumn-frost-12345678/https://app.example.com`.", false),
			"project_id": projectIDAttribute("Id of the Neon project whose auth integration gets the domain."),
			"domain": schema.StringAttribute{
				MarkdownDescription: "The origin to whitelist: `https://` or `http://`, a host and an optional port, such as " +
					"`https://app.example.com` or `http://localhost:3000`. No path, query, fragment or user information " +
					"(a lone trailing `/` is accepted). Compared in canonical form. Changing it to another origin replaces the resource.",
				Required: true,
				PlanModifiers: []planmodifier.String{
					canonicalDomainPlanModifier{},
					stringplanmodifier.RequiresReplace(),
				},
				Validators: []validator.String{originValidator{}},
			},
			"auth_provider": authProviderAttribute(),
		},
	}
}

// domainImport is the import id: `<project_id>/<domain>`, split at the first
// `/` (the domain itself contains `://`).
var domainImport = importFormat{
	resourceType: "neon_auth_domain", parts: []string{"domain"}, lastMaySlash: true,
	example: "autumn-frost-12345678/https://app.example.com",
}

// listedDomain reports whether the scope's whitelist lists the domain, read
// through the shared list.
func (d *providerData) listedDomain(s authScope, domain string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		ds, err := d.domains(ctx, s.Scope)
		return slices.ContainsFunc(ds, func(l apiclient.Domain) bool {
			listedProvider := l.AuthProvider
			if listedProvider == "" {
				listedProvider = apiclient.AuthProviderStack
			}
			return listedProvider == s.AuthProvider && apiclient.SameOrigin(l.Domain, domain)
		}), err
	}
}

func (r *authDomainResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := begin[authDomainModel](ctx, r.data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(plan.ProjectID.ValueString(), plan.AuthProvider.ValueString())
	const summary = "Unable to Create Auth Domain"
	canonical, cerr := apiclient.CanonicalOrigin(plan.Domain.ValueString())
	if cerr != nil {
		resp.Diagnostics.AddAttributeError(path.Root("domain"), summary, fmt.Sprintf("The domain %q %s.", plan.Domain.ValueString(), cerr))
		return
	}
	recovered, err := r.data.client.AddDomain(ctx, s.Scope, apiclient.AddDomainRequest{Domain: canonical, AuthProvider: s.AuthProvider})
	r.data.wroteDomains(s.Scope)
	if err != nil {
		detail := r.data.explainFailure(ctx, s, fmt.Sprintf("Adding the domain %s to the redirect URI whitelist of project %s", canonical, s.ProjectID), err)
		if errors.Is(err, apiclient.ErrConflict) {
			detail += importHint(fmt.Sprintf("The domain %s is already whitelisted in project %s.", canonical, s.ProjectID),
				domainImport.resourceType, compositeID(s.ProjectID, canonical))
		}
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	if recovered {
		resp.Diagnostics.AddWarning("Auth domain created; response lost",
			fmt.Sprintf("The response to whitelisting %s in project %s was lost in transit, but the domain is listed, so it was adopted into the state.", canonical, s.ProjectID))
	}
	plan.ID = types.StringValue(compositeID(s.ProjectID, canonical))
	tflog.Debug(ctx, "whitelisted domain", map[string]any{"project_id": s.ProjectID, "domain": canonical})
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *authDomainResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := begin[authDomainModel](ctx, r.data, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(state.ProjectID.ValueString(), state.AuthProvider.ValueString())
	domain := state.Domain.ValueString()
	if !r.data.readListed(ctx, s, r.data.listedDomain(s, domain), "Unable to Read Auth Domain", "the whitelisted domain "+domain, resp) {
		return
	}
	// The state keeps its own spelling of the domain; the id is canonical.
	if canonical, cerr := apiclient.CanonicalOrigin(domain); cerr == nil {
		state.ID = types.StringValue(compositeID(s.ProjectID, canonical))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update is never called with a change: every input forces replacement, and
// a domain written differently plans no change. It keeps the plan.
func (r *authDomainResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *authDomainResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := begin[authDomainModel](ctx, r.data, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	s := r.data.scope(state.ProjectID.ValueString(), state.AuthProvider.ValueString())
	domain := state.Domain.ValueString()
	if canonical, cerr := apiclient.CanonicalOrigin(domain); cerr == nil {
		domain = canonical
	}
	err := r.data.client.DeleteDomains(ctx, s.Scope, s.AuthProvider, []string{domain})
	r.data.wroteDomains(s.Scope)
	r.data.settleDelete(ctx, s, err, r.data.listedDomain(s, domain), "Unable to Delete Auth Domain",
		fmt.Sprintf("Removing the domain %s from the redirect URI whitelist of project %s", domain, s.ProjectID), &resp.Diagnostics)
}

// ImportState stores the domain canonical; a configuration that writes it
// differently plans no change.
func (r *authDomainResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	v, ok := domainImport.importState(ctx, req, resp)
	if !ok {
		return
	}
	canonical, err := apiclient.CanonicalOrigin(v["domain"])
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id",
			fmt.Sprintf("The domain part of the import id %q %s. Expected %s, such as `%s`.", req.ID, err, domainImport.usage(), domainImport.example))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), compositeID(v["project_id"], canonical))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("domain"), canonical)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("auth_provider"), apiclient.AuthProviderStack)...)
}
