package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

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
	data *providerData
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

func (r *authDomainResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func domainID(projectID, canonical string) string { return projectID + "/" + canonical }

// matchDomain finds a listed domain by canonical form and auth provider.
func matchDomain(canonical, authProvider string) func(apiclient.Domain) bool {
	return func(d apiclient.Domain) bool {
		listedProvider := d.AuthProvider
		if listedProvider == "" {
			listedProvider = apiclient.AuthProviderStack
		}
		return listedProvider == authProvider && sameOrigin(d.Domain, canonical)
	}
}

func (r *authDomainResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !requireClient(r.data, &resp.Diagnostics) {
		return
	}
	var plan authDomainModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	projectID, provider := plan.ProjectID.ValueString(), plan.AuthProvider.ValueString()
	const summary = "Unable to Create Auth Domain"
	canonical, cerr := canonicalOrigin(plan.Domain.ValueString())
	if cerr != nil {
		resp.Diagnostics.AddAttributeError(path.Root("domain"), summary, fmt.Sprintf("The domain %q %s.", plan.Domain.ValueString(), cerr))
		return
	}
	what := fmt.Sprintf("Adding the domain %s to the redirect URI whitelist of project %s", canonical, projectID)
	body := apiclient.AddDomainRequest{Domain: canonical, AuthProvider: provider}

	recovered, err := confirmedWrite(ctx, "add domain",
		func(ctx context.Context) error { return r.data.client.AddDomain(ctx, projectID, body) },
		func(ctx context.Context) (bool, error) { return r.domainListed(ctx, projectID, provider, canonical) })
	r.data.lists.invalidate(listKey{listDomains, projectID})
	if err == nil && recovered {
		resp.Diagnostics.AddWarning("Auth domain created; response lost",
			fmt.Sprintf("The response to whitelisting %s in project %s was lost in transit, but the domain is listed, so it was adopted into the state.", canonical, projectID))
	}
	if err != nil {
		detail := r.data.integrationErrorDetail(ctx, projectID, provider, what, err)
		if errors.Is(err, apiclient.ErrConflict) {
			id := domainID(projectID, canonical)
			detail += fmt.Sprintf("\n\nThe domain %[2]s is already whitelisted in project %[1]s. To manage it with Terraform, import it:\n\n"+
				"  terraform import neon_auth_domain.<name> %[3]s\n\nor add an import block with id = %[4]q.", projectID, canonical, id, id)
		}
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	plan.ID = types.StringValue(domainID(projectID, canonical))
	tflog.Debug(ctx, "whitelisted domain", map[string]any{"project_id": projectID, "domain": canonical})
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// domainListed reads the whitelist afresh (never from the shared cache): the
// read-back of a write whose outcome is unknown.
func (r *authDomainResource) domainListed(ctx context.Context, projectID, provider, canonical string) (bool, error) {
	ds, err := r.data.client.ListDomains(ctx, projectID)
	return slices.ContainsFunc(ds, matchDomain(canonical, provider)), err
}

func (r *authDomainResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if !requireClient(r.data, &resp.Diagnostics) {
		return
	}
	var state authDomainModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	projectID, provider := state.ProjectID.ValueString(), state.AuthProvider.ValueString()
	domain := state.Domain.ValueString()
	_, outcome, err := readFromList(ctx, r.data, projectID, provider, r.data.listDomains, matchDomain(domain, provider))
	switch outcome {
	case listFailed:
		resp.Diagnostics.AddError("Unable to Read Auth Domain",
			projectErrorDetail(projectID, "Listing the redirect URI whitelist of project "+projectID, err))
		return
	case listAbsent:
		tflog.Warn(ctx, "domain is no longer whitelisted; removing it from state", map[string]any{"project_id": projectID, "domain": domain})
		resp.State.RemoveResource(ctx)
		return
	}
	// The state keeps its own spelling of the domain; the id is canonical.
	if canonical, cerr := canonicalOrigin(domain); cerr == nil {
		state.ID = types.StringValue(domainID(projectID, canonical))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update is never called with a change: every input forces replacement, and
// a domain written differently plans no change. It keeps the plan.
func (r *authDomainResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan authDomainModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *authDomainResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !requireClient(r.data, &resp.Diagnostics) {
		return
	}
	var state authDomainModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	projectID, provider := state.ProjectID.ValueString(), state.AuthProvider.ValueString()
	domain := state.Domain.ValueString()
	if canonical, cerr := canonicalOrigin(domain); cerr == nil {
		domain = canonical
	}
	_, err := confirmedWrite(ctx, "delete domain",
		func(ctx context.Context) error {
			return r.data.client.DeleteDomains(ctx, projectID, apiclient.DeleteDomainsRequest{
				AuthProvider: provider,
				Domains:      []apiclient.DomainName{{Domain: domain}},
			})
		},
		func(ctx context.Context) (bool, error) {
			listed, err := r.domainListed(ctx, projectID, provider, domain)
			return err == nil && !listed, err
		})
	r.data.lists.invalidate(listKey{listDomains, projectID})
	if err == nil {
		return
	}
	if isNotFound(err) {
		// Already gone is success, but only a successful list says so.
		_, outcome, lerr := readFromList(ctx, r.data, projectID, provider, r.data.listDomains, matchDomain(domain, provider))
		switch {
		case outcome == listAbsent:
			return
		case outcome == listFailed && isNotFound(lerr):
			resp.Diagnostics.AddError("Unable to Delete Auth Domain", projectNotVisibleDetail(projectID, lerr))
			return
		}
	}
	resp.Diagnostics.AddError("Unable to Delete Auth Domain",
		r.data.integrationErrorDetail(ctx, projectID, provider, fmt.Sprintf("Removing the domain %s from the redirect URI whitelist of project %s", domain, projectID), err))
}

// ImportState takes `<project_id>/<domain>`, split at the first `/` (the
// domain itself contains `://`). The domain is stored canonical; a
// configuration that writes it differently plans no change.
func (r *authDomainResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	projectID, domain, ok := strings.Cut(req.ID, "/")
	if !ok || !projectIDPattern.MatchString(projectID) {
		resp.Diagnostics.AddError("Invalid import id",
			fmt.Sprintf("Expected `<project_id>/<domain>`, such as `autumn-frost-12345678/https://app.example.com`; got %q.", req.ID))
		return
	}
	canonical, err := canonicalOrigin(domain)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id",
			fmt.Sprintf("The domain part of the import id %q %s. Expected `<project_id>/<domain>`, such as `autumn-frost-12345678/https://app.example.com`.", req.ID, err))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), domainID(projectID, canonical))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project_id"), projectID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("domain"), canonical)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("auth_provider"), apiclient.AuthProviderStack)...)
}
