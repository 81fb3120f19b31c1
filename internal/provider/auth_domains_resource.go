package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_domains resource: the whole redirect URI whitelist of a
// branch's Neon Auth.

var (
	_ resource.ResourceWithImportState = (*authDomainsResource)(nil)
	_ resource.ResourceWithIdentity    = (*authDomainsResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*authDomainsResource)(nil)
)

// NewAuthDomainsResource is the neon_auth_domains resource.
func NewAuthDomainsResource() resource.Resource {
	return &authDomainsResource{configured: configuredAs(typeAuthDomains)}
}

type authDomainsResource struct {
	configured
}

type authDomainsModel struct {
	scopeModel
	ID      types.String `tfsdk:"id"`
	Domains types.Set    `tfsdk:"domains"`
}

func (r *authDomainsResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The whole redirect URI whitelist of a branch's Neon Auth, owned by Terraform (`…/auth/domains`): " +
			"an origin it does not list is removed. Import with `<project_id>` or `<project_id>/<branch_id>`.",
		Attributes: withAttributes(scopeAttributes("whose whitelist this is", integrationAuthProvider), map[string]schema.Attribute{
			"id": computedString("`<project_id>/<branch_id>`.", false),
			"domains": schema.SetAttribute{
				MarkdownDescription: "Every domain the whitelist may hold: origins (`https://app.example.com`), wildcard hosts " +
					"(`https://*.preview.example.com`) or native apps' own schemes (`myapp://callback`). Compared in canonical form. " +
					"Any other entry is removed.",
				ElementType:   types.StringType,
				Required:      true,
				PlanModifiers: []planmodifier.Set{canonicalDomainsPlanModifier{}},
				Validators:    []validator.Set{setvalidator.ValueStringsAre(originValidator())},
			},
		}),
	}
}

func (r *authDomainsResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.planScope(ctx, scopeRules{}, req, resp)
	r.planRestore(ctx, req, resp, "whitelist", domainsOnDestroy)
	var declared []string
	if req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() {
		var planned types.Set
		resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("domains"), &planned)...)
		if !planned.IsUnknown() {
			declared = canonicalSet(planned)
		}
	}
	r.planDomains(ctx, req, resp, declared)
}

// domainsOnDestroy is what destroy does with a whitelist taken over.
const domainsOnDestroy = "Destroy restores the list found: the entries this configuration added go, and those it removed come back."

// domainsImport is the import id: `<project_id>` or `<project_id>/<branch_id>`.
var domainsImport = importFormat{resourceType: typeAuthDomains, withBranch: true, example: "autumn-frost-12345678/br-quiet-leaf-12345678"}

func (r *authDomainsResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer domainsImport.identifyCreated(ctx, resp)
	r.converge(ctx, req.Plan, &resp.State, resp.Private, &resp.Diagnostics, "Create")
}

func (r *authDomainsResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer domainsImport.identifyUpdated(ctx, resp)
	r.converge(ctx, req.Plan, &resp.State, nil, &resp.Diagnostics, "Update")
}

// foundDomains is the whitelist a create found and took over, which
// destroy restores.
type foundDomains struct {
	Domains []string `json:"domains"`
}

// converge makes the whitelist hold exactly the planned domains: the extras
// go in one batch DELETE while the missing ones are added, together (at the
// creation on a scope this process enabled, while the list is read; see
// listWhitelist). At creation (private
// is set) a whitelist that already held entries is taken over, whatever put
// them there — the branch's parent, a platform such as the Vercel
// integration, a person, another configuration: the list found is
// recorded, for destroy to restore, and a warning names the entries kept
// and removed (with inherited_auth = "refuse" nothing is recorded, and
// destroy removes the configured domains only).
func (r *authDomainsResource) converge(ctx context.Context, planned stateGetter, state interface {
	Set(context.Context, any) diag.Diagnostics
}, private privateSetter, diags *diag.Diagnostics, op string,
) {
	summary := r.unable(op)
	plan, s, ok := beginIn[authDomainsModel](ctx, r.data, planned, summary, fromIntegration, diags)
	if !ok || private != nil && !r.data.requireBranch(ctx, s.ProjectID, s.BranchID, summary, diags) {
		return
	}
	want := canonicalSet(plan.Domains)
	var handedOver []string // removed by the neon_auth_domain resources this apply replaces: found too
	var err error
	switch {
	case private == nil:
	case r.data.auth.MayTakeOver(ctx, s, neonauth.Object{Kind: neonauth.KindDomain}).Refused == neonauth.RefusedBySetting:
		handedOver = r.data.auth.HandedOver(s, neonauth.WholeList) // refusing whatever it finds, it holds nothing
	default:
		handedOver, err = r.data.auth.HoldDomains(ctx, s, neonauth.WholeList, want)
	}
	var listed []apiclient.Domain
	var early domainAdds
	if err == nil {
		listed, early, err = r.listWhitelist(ctx, s, want, private != nil)
	}
	if err != nil {
		diags.AddError(summary, r.data.explainFailure(ctx, s, "Listing the redirect URI whitelist of "+s.String(), err))
		r.reportAdds(ctx, s, early, summary, diags)
		return
	}
	found := slices.Compact(slices.Sorted(slices.Values(append(canonicalDomains(listed), handedOver...))))
	takingOver := private != nil && len(found) > 0
	if takingOver && !r.mayTakeOverWhitelist(ctx, s, found, summary, diags) {
		return
	}
	extra, missing := whitelistChanges(listed, want)
	if !r.setWhitelist(ctx, s, extra, early.without(missing), early, summary, diags) {
		return
	}
	plan.recordScope(s)
	plan.ID = types.StringValue(compositeID(s.ProjectID, s.BranchID))
	diags.Append(state.Set(ctx, &plan)...)
	if !takingOver {
		warnRemoved(diags, s, extra)
		return
	}
	recordTakeOver(ctx, private, "", foundDomains{Domains: found}, diags)
	kept := slices.DeleteFunc(slices.Clone(found), func(d string) bool { return !slices.Contains(want, d) })
	var removed string
	if len(extra) > 0 {
		removed = fmt.Sprintf(" It removed the entries this configuration does not list: %s.", strings.Join(extra, ", "))
	}
	diags.AddWarning("Whitelist taken over",
		fmt.Sprintf("The whitelist of %s already held %s (inherited from the branch's parent, or added by a platform such as the "+
			"Vercel integration, a person or another configuration), so the provider took it over.%s%s %s", s,
			strings.Join(found, ", "), keptSentence(kept), removed, r.data.onDestroy(domainsOnDestroy)))
}

// mayTakeOverWhitelist decides on a whitelist a create found holding
// entries: taken over whatever put them there, unless inherited_auth is
// "refuse", which refuses it with the import command before anything is
// sent.
func (r *authDomainsResource) mayTakeOverWhitelist(ctx context.Context, s neonauth.Scope, found []string, summary string, diags *diag.Diagnostics) bool {
	to := r.data.auth.MayTakeOver(ctx, s, neonauth.Object{Kind: neonauth.KindDomain})
	if !to.Allowed() {
		diags.AddError(summary, fmt.Sprintf("Making the whitelist of %s the configured domains: it already holds %s.", s.Scope,
			strings.Join(found, ", "))+importHint("The whitelist is not empty. "+takeOverRefusal(s, to), domainsImport.resourceType,
			compositeID(s.ProjectID, s.BranchID)))
	}
	return to.Allowed()
}

// keptSentence says which entries found the configuration declares too.
func keptSentence(kept []string) string {
	if len(kept) == 0 {
		return ""
	}
	return fmt.Sprintf(" It kept the entries this configuration lists: %s.", strings.Join(kept, ", "))
}

// whitelistChanges are the listed domains the plan lacks (as listed) and the
// planned ones not listed (canonical).
func whitelistChanges(listed []apiclient.Domain, want []string) (extra, missing []string) {
	have := map[string]bool{}
	for _, d := range listed {
		c := canonicalOrAsIs(d.Domain)
		have[c] = true
		if !slices.Contains(want, c) {
			extra = append(extra, d.Domain)
		}
	}
	for _, d := range want {
		if !have[d] {
			missing = append(missing, d)
		}
	}
	return extra, missing
}

// domainAdds are adds already sent, with their outcomes.
type domainAdds struct {
	domains []string
	errs    []error
}

// without is missing less the domains already sent.
func (a domainAdds) without(missing []string) []string {
	return slices.DeleteFunc(slices.Clone(missing), func(d string) bool { return slices.Contains(a.domains, d) })
}

// listWhitelist reads the whitelist a converge starts from. At the creation
// of a whitelist on a scope whose Neon Auth this process enabled (nothing on
// it was inherited), the planned domains are added while the list is read,
// not after: the adds need no answer of it, as a domain already listed
// answers 409 and counts as added (early says what each add answered). The
// list then leaves out the domains these adds made, so it holds what was
// there before them, whenever it was read.
func (r *authDomainsResource) listWhitelist(ctx context.Context, s neonauth.Scope, planned []string, creating bool) ([]apiclient.Domain, domainAdds, error) {
	if !creating || len(planned) == 0 || !r.data.auth.EnabledHere(s) {
		listed, err := r.data.auth.ListDomains(ctx, s)
		return listed, domainAdds{}, err
	}
	early := domainAdds{domains: planned}
	added := make(chan struct{})
	go func() {
		defer close(added)
		early.errs = r.data.auth.AddDomains(ctx, s, planned)
	}()
	listed, err := r.data.auth.ListDomains(ctx, s)
	<-added
	for i, aerr := range early.errs {
		switch {
		case errors.Is(aerr, apiclient.ErrConflict):
			early.errs[i] = nil // listed before the add: there, as planned
		case aerr == nil:
			listed = slices.DeleteFunc(listed, func(l apiclient.Domain) bool { return canonicalOrAsIs(l.Domain) == planned[i] })
		}
	}
	return listed, early, err
}

// setWhitelist deletes extra (one request) while it adds missing (a request
// each, sent together: neonauth's AddDomains paces them); false when a
// request failed, this one's or an add sent before (early). An error
// diagnostic names the delete that failed, and each domain whose add failed
// or was not sent, with the domains added all the same.
func (r *authDomainsResource) setWhitelist(ctx context.Context, s neonauth.Scope, extra, missing []string, early domainAdds, summary string,
	diags *diag.Diagnostics,
) bool {
	var deleteErr error
	deleted := make(chan struct{})
	go func() {
		defer close(deleted)
		if len(extra) > 0 {
			deleteErr = r.data.auth.DeleteDomains(ctx, s, extra)
		}
	}()
	adds := domainAdds{domains: slices.Concat(early.domains, missing), errs: slices.Clone(early.errs)}
	if len(missing) > 0 {
		adds.errs = append(adds.errs, r.data.auth.AddDomains(ctx, s, missing)...)
	}
	<-deleted
	if deleteErr != nil {
		diags.AddError(summary, r.data.explainFailure(ctx, s, fmt.Sprintf("Removing %d domain(s) from the whitelist of %s", len(extra), s.Scope), deleteErr))
	}
	return r.reportAdds(ctx, s, adds, summary, diags) && deleteErr == nil
}

// reportAdds turns the outcomes of adds into diagnostics: an error for each
// domain whose add failed or was not sent, and, when some failed, a warning
// naming those added all the same. True when every add succeeded.
func (r *authDomainsResource) reportAdds(ctx context.Context, s neonauth.Scope, adds domainAdds, summary string, diags *diag.Diagnostics) bool {
	var added []string
	explained := false // a failure is explained (which may read) once; the others say what the API answered
	for i, err := range adds.errs {
		what := fmt.Sprintf("Adding the domain %s to the whitelist of %s", adds.domains[i], s.Scope)
		switch {
		case err == nil:
			added = append(added, adds.domains[i])
		case errors.Is(err, neonauth.ErrNotSent):
			diags.AddError(summary, fmt.Sprintf("%s: not sent, as another domain's add failed first (see the errors beside this one); "+
				"apply again once that is resolved.", what))
		case !explained:
			explained = true
			diags.AddError(summary, r.data.explainFailure(ctx, s, what, err))
		default:
			diags.AddError(summary, apiErrorDetail(what, err))
		}
	}
	if failed := len(adds.errs) - len(added); failed > 0 && len(added) > 0 {
		diags.AddWarning("Some trusted domains were added",
			fmt.Sprintf("Of the %d domains to add to the whitelist of %s, %d could not be (see the errors); these were added: %s. "+
				"The next apply adds the others and keeps these.", len(adds.errs), s.Scope, failed, strings.Join(added, ", ")))
	}
	return len(added) == len(adds.errs)
}

// warnRemoved names the domains a write found on the branch and removed
// because the configuration does not list them.
func warnRemoved(diags *diag.Diagnostics, s neonauth.Scope, removed []string) {
	if len(removed) == 0 {
		return
	}
	diags.AddWarning("Trusted domains removed",
		fmt.Sprintf("The whitelist of %s held domains that this configuration does not list, and neon_auth_domains owns the whole "+
			"list, so they were removed: %s. List them in `domains` to keep them.", s.Scope, strings.Join(removed, ", ")))
}

// canonicalDomains is a listed whitelist, canonical, in list order.
func canonicalDomains(listed []apiclient.Domain) []string {
	out := make([]string, 0, len(listed))
	for _, d := range listed {
		out = append(out, canonicalOrAsIs(d.Domain))
	}
	return out
}

// canonicalOrAsIs is a domain in canonical form, or as written when it is
// not an origin.
func canonicalOrAsIs(d string) string {
	if c, err := apiclient.CanonicalOrigin(d); err == nil {
		return c
	}
	return d
}

func (r *authDomainsResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer domainsImport.identifyRead(ctx, req, resp)
	summary := r.unable("Read")
	state, s, ok := beginIn[authDomainsModel](ctx, r.data, req.State, summary, fromIntegration, &resp.Diagnostics)
	if !ok {
		return
	}
	var listed []apiclient.Domain
	read := func(ctx context.Context) (bool, error) {
		var err error
		listed, err = r.data.auth.Domains(ctx, s)
		return true, err
	}
	if !r.readListed(ctx, s, read, "the redirect URI whitelist of "+s.String(), resp) {
		return
	}
	resp.Diagnostics.Append(state.fromAPI(s, listed)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// fromAPI writes the whitelist of a scope, as the API lists it, into m: the
// domains of the scope's auth provider, each in m's own spelling when m
// already holds it (the others as the API lists them).
func (m *authDomainsModel) fromAPI(s neonauth.Scope, listed []apiclient.Domain) diag.Diagnostics {
	kept := map[string]attr.Value{}
	for _, e := range m.Domains.Elements() {
		if v, ok := e.(types.String); ok {
			if c, err := apiclient.CanonicalOrigin(v.ValueString()); err == nil {
				kept[c] = v
			}
		}
	}
	var elems []attr.Value
	for _, d := range listed {
		if d.AuthProvider != "" && string(d.AuthProvider) != s.AuthProvider {
			continue
		}
		c, err := apiclient.CanonicalOrigin(d.Domain)
		if v, ok := kept[c]; ok && err == nil {
			elems = append(elems, v)
			continue
		}
		elems = append(elems, types.StringValue(d.Domain))
	}
	set, diags := types.SetValue(types.StringType, elems)
	m.Domains = set
	m.recordScope(s)
	m.ID = types.StringValue(compositeID(s.ProjectID, s.BranchID))
	return diags
}

// Delete removes the domains this resource holds, in one request; a
// whitelist taken over goes back to the list found (with
// restore_on_destroy = false it stays as configured).
func (r *authDomainsResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	summary := r.unable("Delete")
	state, s, ok := beginIn[authDomainsModel](ctx, r.data, req.State, summary, fromModel, &resp.Diagnostics)
	if !ok {
		return
	}
	if restoreTakenOver(ctx, r.data, req.Private, &resp.Diagnostics, func(rec takeOverRecord[foundDomains]) {
		r.restore(ctx, s, rec.Found, &resp.Diagnostics)
	}) {
		return
	}
	domains := canonicalSet(state.Domains)
	if len(domains) == 0 {
		return
	}
	err := r.data.auth.DeleteDomains(ctx, s, domains)
	r.settleDelete(ctx, s, err, nil, fmt.Sprintf("Removing %d domain(s) from the whitelist of %s", len(domains), s.Scope), &resp.Diagnostics)
}

// restore makes the whitelist the list a take-over found. A branch (or Neon
// Auth) gone since has nothing left to restore.
func (r *authDomainsResource) restore(ctx context.Context, s neonauth.Scope, found foundDomains, diags *diag.Diagnostics) {
	listed, err := r.data.auth.ListDomains(ctx, s)
	if err != nil {
		r.settleDelete(ctx, s, err, nil, "Listing the whitelist of "+s.String()+" to restore the one found", diags)
		return
	}
	extra, missing := whitelistChanges(listed, found.Domains)
	r.setWhitelist(ctx, s, extra, missing, domainAdds{}, r.unable("Delete"), diags)
}

func (r *authDomainsResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = domainsImport.identitySchema()
}

func (r *authDomainsResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if v, ok := domainsImport.importState(ctx, &req, resp); ok {
		r.checkImportBranch(ctx, v, resp)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("domains"), types.SetValueMust(types.StringType, nil))...)
	}
}
