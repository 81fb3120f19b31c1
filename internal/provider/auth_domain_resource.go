package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_domain resource: one origin of the redirect URI whitelist of a
// branch's Neon Auth.

var (
	_ resource.ResourceWithImportState = (*authDomainResource)(nil)
	_ resource.ResourceWithIdentity    = (*authDomainResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*authDomainResource)(nil)
)

func init() { registerType(NewAuthDomainResource, NewAuthDomainList) }

// NewAuthDomainResource is the neon_auth_domain resource.
func NewAuthDomainResource() resource.Resource {
	return &authDomainResource{configured: configuredAs(typeAuthDomain)}
}

type authDomainResource struct {
	configured
}

type authDomainModel struct {
	scopeModel
	ID     types.String `tfsdk:"id"`
	Domain types.String `tfsdk:"domain"`
}

func (r *authDomainResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "One origin of the redirect URI whitelist of a branch's Neon Auth (`…/auth/domains`). " +
			"Import with `<project_id>/<branch_id>/<domain>`; `<project_id>/<domain>` is the production branch's.",
		Attributes: withAttributes(scopeAttributes("whose Neon Auth whitelists the domain", integrationAuthProvider), map[string]schema.Attribute{
			"id": computedString("`<project_id>/<branch_id>/<canonical domain>`.", false),
			"domain": schema.StringAttribute{
				MarkdownDescription: "The domain to whitelist: an origin (`https://app.example.com`), a wildcard host " +
					"(`https://*.preview.example.com`) or a native app's own scheme (`myapp://callback`). Compared in canonical " +
					"form. Changing it to another domain replaces the resource.",
				Required:      true,
				PlanModifiers: []planmodifier.String{canonicalDomainPlanModifier{}, stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{originValidator()},
			},
		}),
	}
}

func (r *authDomainResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.planScope(ctx, scopeRules{}, req, resp)
	r.planWhitelist(ctx, req, &resp.Diagnostics)
	var m authDomainModel
	from := req.State
	if req.State.Raw.IsNull() {
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &m)...)
	} else {
		resp.Diagnostics.Append(from.Get(ctx, &m)...)
	}
	canonical, err := apiclient.CanonicalOrigin(m.Domain.ValueString())
	if err != nil || resp.Diagnostics.HasError() {
		return
	}
	r.planRestore(ctx, req, resp, "trusted domain "+canonical, domainLeftOnDestroy)
	r.planTakeOverDomains(ctx, req, resp, []string{canonical})
}

// domainLeftOnDestroy is what destroy does with a domain taken over.
const domainLeftOnDestroy = "Destroy leaves it in the whitelist."

// planTakeOverDomains warns at the plan of a create of neon_auth_domain or
// neon_auth_domains when the branch already whitelists domains the
// configuration declares (canonical): apply takes them over instead of
// adding them — whatever put them there: the branch's parent, a platform
// such as the Vercel integration, a person or another configuration — and
// destroy leaves them. It reads the branch's whitelist once, shared with the
// other domain resources of the plan, and only for a create whose
// project_id and branch_id are known (project mode resolves the production
// branch), on a branch whose Neon Auth this run did not enable.
func (c *configured) planTakeOverDomains(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, declared []string) {
	if !c.data.ready() || req.Plan.Raw.IsNull() || !req.State.Raw.IsNull() || len(declared) == 0 || resp.Diagnostics.HasError() {
		return
	}
	var m scopeModel
	resp.Diagnostics.Append(getScopeModel(ctx, resp.Plan, req.Plan.Schema.GetAttributes(), &m)...)
	if !isKnownSet(m.ProjectID) || m.BranchID.IsUnknown() || resp.Diagnostics.HasError() {
		return
	}
	if c.data.auth.MayTakeOver(ctx, neonauth.Scope{}, neonauth.Object{Kind: neonauth.KindDomain}).Refused == neonauth.RefusedBySetting {
		return // apply refuses, and says why
	}
	s, err := c.data.auth.Resolve(ctx, m.ProjectID.ValueString(), m.BranchID.ValueString(), "")
	if err != nil || c.data.auth.EnabledHere(s) {
		// A branch whose Neon Auth this run enabled got its whitelist with
		// it in this apply, after the plan: a read would only stand in front
		// of the create, which says what it finds.
		return
	}
	listed, err := c.data.auth.Domains(ctx, s)
	if err != nil {
		return // apply says what it finds
	}
	var found []string
	for _, d := range declared {
		if slices.ContainsFunc(listed, func(l apiclient.Domain) bool { return apiclient.SameOrigin(l.Domain, d) }) {
			found = append(found, d)
		}
	}
	if len(found) == 0 {
		return
	}
	resp.Diagnostics.AddWarning("Trusted domains already on the branch will be taken over: "+strings.Join(found, ", "),
		fmt.Sprintf("The whitelist of %s already holds %s, which this configuration declares: apply will take %s over instead of "+
			"adding %s — whatever put %s there: the branch's parent (a branch starts with a copy of its parent's whitelist), a "+
			"platform such as the Vercel integration (it adds a preview's origin), a person or another configuration. "+
			"Destroy leaves %s in the whitelist, since this configuration did not add %s.",
			s, strings.Join(found, ", "), them(found), them(found), them(found), them(found), them(found)))
}

// them is the pronoun for a list of one or more things.
func them(items []string) string {
	if len(items) == 1 {
		return "it"
	}
	return "them"
}

// holdDomain is the start of a create of canonical on s: it holds the domain
// against the deletes of a neon_auth_domains of this apply (see
// neonauth.HoldDomains), unless inherited_auth = "refuse", which keeps
// nothing it finds, and answers the domains that such deletes removed.
func (r *authDomainResource) holdDomain(ctx context.Context, s neonauth.Scope, canonical string) ([]string, error) {
	if r.data.auth.MayTakeOver(ctx, s, neonauth.Object{Kind: neonauth.KindDomain}).Refused == neonauth.RefusedBySetting {
		return r.data.auth.HandedOver(s, neonauth.EachDomain), nil
	}
	return r.data.auth.HoldDomains(ctx, s, neonauth.EachDomain, []string{canonical})
}

// domainImport is the import id; the domain itself contains `://`, so the id
// is split at the first slashes only.
var domainImport = importFormat{
	resourceType: typeAuthDomain, parts: []string{"domain"}, lastMaySlash: true, withBranch: true,
	example: "autumn-frost-12345678/br-quiet-leaf-12345678/https://app.example.com",
}

func (r *authDomainResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer domainImport.identifyCreated(ctx, resp)
	summary := r.unable("Create")
	plan, s, ok := beginIn[authDomainModel](ctx, r.data, req.Plan, summary, fromIntegration, &resp.Diagnostics)
	if !ok || !r.data.requireBranch(ctx, s.ProjectID, s.BranchID, summary, &resp.Diagnostics) {
		return
	}
	canonical, cerr := apiclient.CanonicalOrigin(plan.Domain.ValueString())
	if cerr != nil {
		resp.Diagnostics.AddAttributeError(path.Root("domain"), summary, fmt.Sprintf("The domain %q %s.", plan.Domain.ValueString(), cerr))
		return
	}
	// A domain the neon_auth_domains this apply replaces removed was on the
	// branch when the apply began: found, as a domain still listed is.
	removed, err := r.holdDomain(ctx, s, canonical)
	found := slices.Contains(removed, canonical)
	var to neonauth.TakeOver
	if found {
		to = r.data.auth.MayTakeOver(ctx, s, neonauth.Object{Kind: neonauth.KindDomain, Key: canonical})
	}
	var recovered bool
	if err == nil && (!found || to.Allowed()) {
		recovered, err = r.data.auth.AddDomain(ctx, s, canonical)
	}
	if errors.Is(err, apiclient.ErrConflict) && !found {
		found, to = true, r.data.auth.MayTakeOver(ctx, s, neonauth.Object{Kind: neonauth.KindDomain, Key: canonical})
	}
	if found && to.Allowed() && errors.Is(err, apiclient.ErrConflict) {
		err = nil
	}
	if err != nil || found && !to.Allowed() {
		what := fmt.Sprintf("Adding the domain %s to the redirect URI whitelist of %s", canonical, s.Scope)
		detail := what + ": it is already there."
		if err != nil {
			detail = r.data.explainFailure(ctx, s, what, err)
		}
		if found && !to.Allowed() {
			detail += importHint(fmt.Sprintf("The domain %s is already whitelisted on %s. %s", canonical, s.Scope, takeOverRefusal(s, to)),
				domainImport.resourceType, compositeID(s.ProjectID, s.BranchID, canonical))
		}
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	if to.Allowed() {
		recordTakeOver(ctx, resp.Private, to.Parent, struct{}{}, &resp.Diagnostics)
		resp.Diagnostics.AddWarning("Trusted domain already on the branch taken over: "+canonical,
			fmt.Sprintf("The whitelist of %s already held %s, so the provider took it over instead of adding it. %s", s, canonical, domainLeftOnDestroy))
	}
	if recovered {
		resp.Diagnostics.AddWarning("Auth domain created; response lost",
			fmt.Sprintf("The response to whitelisting %s on %s was lost in transit, but the domain is listed, so it was recovered into the state.", canonical, s.Scope))
	}
	plan.recordScope(s)
	plan.ID = types.StringValue(branchObjectID(s, canonical))
	tflog.Debug(ctx, "whitelisted domain", map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID, "domain": canonical})
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *authDomainResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer domainImport.identifyRead(ctx, req, resp)
	summary := r.unable("Read")
	state, s, ok := beginIn[authDomainModel](ctx, r.data, req.State, summary, fromIntegration, &resp.Diagnostics)
	if !ok {
		return
	}
	domain := state.Domain.ValueString()
	if !r.readListed(ctx, s, r.data.auth.ListedDomain(s, domain), "the whitelisted domain "+domain, resp) {
		return
	}
	// The state keeps its own spelling of the domain; the id is canonical.
	if canonical, cerr := apiclient.CanonicalOrigin(domain); cerr == nil {
		state.ID = types.StringValue(branchObjectID(s, canonical))
	}
	state.recordScope(s)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update is never called with a change of the domain: every input forces
// replacement, and a domain written differently plans no change. It keeps
// the plan.
func (r *authDomainResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer domainImport.identifyUpdated(ctx, resp)
	resp.State.Raw = req.Plan.Raw
}

func (r *authDomainResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	summary := r.unable("Delete")
	state, s, ok := beginIn[authDomainModel](ctx, r.data, req.State, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	domain := state.Domain.ValueString()
	if canonical, cerr := apiclient.CanonicalOrigin(domain); cerr == nil {
		domain = canonical
	}
	if _, takenOver := recordedTakeOver[struct{}](ctx, req.Private, &resp.Diagnostics); takenOver || resp.Diagnostics.HasError() {
		tflog.Info(ctx, "leaving the domain taken over in the whitelist", map[string]any{"project_id": s.ProjectID, "branch_id": s.BranchID, "domain": domain})
		return
	}
	err := r.data.auth.DeleteDomain(ctx, s, domain)
	r.settleDelete(ctx, s, err, r.data.auth.ListedDomain(s, domain),
		fmt.Sprintf("Removing the domain %s from the redirect URI whitelist of %s", domain, s.Scope), &resp.Diagnostics)
}

func (r *authDomainResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = domainImport.identitySchema()
}

// ImportState stores the domain canonical; a configuration that writes it
// differently plans no change.
func (r *authDomainResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	v, ok := domainImport.importState(ctx, &req, resp)
	if !ok {
		return
	}
	canonical, err := apiclient.CanonicalOrigin(v["domain"])
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id",
			fmt.Sprintf("The domain part of the import id %q %s. Expected %s, such as `%s`.", req.ID, err, domainImport.usage(), domainImport.example))
		return
	}
	r.checkImportBranch(ctx, v, resp)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), importedID(v, canonical))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("domain"), canonical)...)
}

// NewAuthDomainList finds the neon_auth_domain objects of a project: every
// whitelisted origin, canonical, named by itself and its branch.
func NewAuthDomainList() list.ListResource {
	return &objectList{listedResource: &authDomainResource{configured: configuredAs(typeAuthDomain)},
		what: "the whitelisted domains",
		keys: func(ctx context.Context, auth *neonauth.Service, s neonauth.Scope) ([]string, error) {
			ds, err := auth.Domains(ctx, s)
			return keysOf(ds, err, func(d apiclient.Domain) string {
				if c, cerr := apiclient.CanonicalOrigin(d.Domain); cerr == nil {
					return c
				}
				return d.Domain
			})
		}}
}
