package provider

import (
	"context"
	"slices"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The plan modifiers that resources share: an omitted value keeps the
// state's, replacement only on a real change, canonical domains.

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

// useStateWhenOmitted plans the prior value of an optional and computed
// attribute that the configuration omits, null included: an omitted value
// keeps what the object has (a state written before the attribute existed
// holds null, and must not plan a change). At creation it stays unknown. It
// modifies string, bool, int64, set, list and object attributes.
type useStateWhenOmitted struct{}

var (
	_ planmodifier.String = useStateWhenOmitted{}
	_ planmodifier.Bool   = useStateWhenOmitted{}
	_ planmodifier.Int64  = useStateWhenOmitted{}
	_ planmodifier.Set    = useStateWhenOmitted{}
	_ planmodifier.List   = useStateWhenOmitted{}
	_ planmodifier.Object = useStateWhenOmitted{}
)

func (useStateWhenOmitted) Description(context.Context) string {
	return "When omitted, keeps the value the object has."
}

func (m useStateWhenOmitted) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

// leftOut reports whether an existing object's attribute is left out of the
// configuration.
func leftOut(config attr.Value, state tfsdk.State) bool {
	return config.IsNull() && !state.Raw.IsNull()
}

func (useStateWhenOmitted) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if leftOut(req.ConfigValue, req.State) {
		resp.PlanValue = req.StateValue
	}
}

func (useStateWhenOmitted) PlanModifyBool(_ context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	if leftOut(req.ConfigValue, req.State) {
		resp.PlanValue = req.StateValue
	}
}

func (useStateWhenOmitted) PlanModifyInt64(_ context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if leftOut(req.ConfigValue, req.State) {
		resp.PlanValue = req.StateValue
	}
}

func (useStateWhenOmitted) PlanModifySet(_ context.Context, req planmodifier.SetRequest, resp *planmodifier.SetResponse) {
	if leftOut(req.ConfigValue, req.State) {
		resp.PlanValue = req.StateValue
	}
}

func (useStateWhenOmitted) PlanModifyList(_ context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	if leftOut(req.ConfigValue, req.State) {
		resp.PlanValue = req.StateValue
	}
}

func (useStateWhenOmitted) PlanModifyObject(_ context.Context, req planmodifier.ObjectRequest, resp *planmodifier.ObjectResponse) {
	if leftOut(req.ConfigValue, req.State) {
		resp.PlanValue = req.StateValue
	}
}

// replacedWhenChanged is the description of requiresReplaceWhenChanged.
const replacedWhenChanged = "Changing it replaces the resource."

// requiresReplaceWhenChanged replaces the object when a value it had is
// changed; a value it never recorded (null) is filled in place.
func requiresReplaceWhenChanged() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(
		func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !req.StateValue.IsNull() && !req.PlanValue.Equal(req.StateValue)
		}, replacedWhenChanged, replacedWhenChanged)
}

// replaceUnlessImported forces replacement on any change, except where an
// import could not read the value: the API never returns it (a user's email,
// a Data API's auth provider), so a null in the state of an imported object
// (marked privateImported until its first update) means "unknown", and the
// configured value is stored as it is.
func replaceUnlessImported() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !readUnknownAtImport(ctx, req.Private, req.StateValue, &resp.Diagnostics)
		}, replacedUnlessImported, replacedUnlessImported)
}

// boolReplaceUnlessImported is replaceUnlessImported for a bool.
func boolReplaceUnlessImported() planmodifier.Bool {
	return boolplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.BoolRequest, resp *boolplanmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !readUnknownAtImport(ctx, req.Private, req.StateValue, &resp.Diagnostics)
		}, replacedUnlessImported, replacedUnlessImported)
}

// replacedUnlessImported is the description of replaceUnlessImported.
const replacedUnlessImported = "Changing it replaces the resource; after an import the configured value is filled in, in place."

// readUnknownAtImport reports whether a state value is one an import could
// not read: null, in an object marked imported.
func readUnknownAtImport(ctx context.Context, private privateGetter, state attr.Value, diags *diag.Diagnostics) bool {
	return state.IsNull() && getPrivateString(ctx, private, privateImported, diags) != ""
}

// canonicalDomainsPlanModifier keeps the prior set when the configuration
// names the same origins in other spellings.
type canonicalDomainsPlanModifier struct{}

func (canonicalDomainsPlanModifier) Description(context.Context) string {
	return "Domains that differ only in the case of scheme or host, or in a trailing slash, are the same domain."
}

func (m canonicalDomainsPlanModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (canonicalDomainsPlanModifier) PlanModifySet(_ context.Context, req planmodifier.SetRequest, resp *planmodifier.SetResponse) {
	if req.StateValue.IsNull() || !isKnownSet(req.ConfigValue) {
		return
	}
	if slices.Equal(canonicalSet(req.ConfigValue), canonicalSet(req.StateValue)) {
		resp.PlanValue = req.StateValue
	}
}

// canonicalSet is a set of domains, canonical and sorted (as written where a
// value is not an origin).
func canonicalSet(v types.Set) []string {
	var out []string
	for _, e := range v.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsUnknown() {
			return nil
		}
		c, err := apiclient.CanonicalOrigin(s.ValueString())
		if err != nil {
			c = s.ValueString()
		}
		out = append(out, c)
	}
	sort.Strings(out)
	return slices.Compact(out)
}
