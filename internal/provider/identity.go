package provider

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Resource identity (Terraform ≥ 1.12, OpenTofu ≥ 1.12): where an object
// lives and its own key, the same parts as its import id. A resource type
// declares it once from its importFormat (identitySchema); an import block's
// `identity = { … }` is turned into the import id and read by the same parser
// (importState); every Create, Read and Update fills it from the state
// (identify). Identity never changes for an object: each of its attributes
// forces replacement, and a value once recorded is kept.

// importState parses req.ID and sets every part it names on the imported
// state. ok is false when the id is malformed (an error diagnostic says
// which forms are accepted). An import by identity sets req.ID to the id the
// identity makes (see identity.go), which is parsed the same way.
func (f importFormat) importState(ctx context.Context, req *resource.ImportStateRequest, resp *resource.ImportStateResponse) (map[string]string, bool) {
	var ok bool
	if req.ID, ok = f.importID(ctx, *req, &resp.Diagnostics); !ok {
		return nil, false
	}
	values, err := f.parse(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id", err.Error())
		return nil, false
	}
	resp.Diagnostics.Append(f.identifyImport(ctx, values, resp.Identity)...)
	for name, v := range values {
		if attr, ok := f.attrs[name]; ok {
			name = attr
		}
		if v != "" {
			resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
		}
	}
	return values, !resp.Diagnostics.HasError()
}

// identityDescriptions describe the identity attributes.
var identityDescriptions = map[string]string{
	"project_id":    "Id of the Neon project.",
	"branch_id":     "Id of the branch whose Neon Auth holds the object. Omitted at import: the project's production branch.",
	"domain":        "The whitelisted origin, canonical (`provider::neon::canonical_origin`).",
	"provider_id":   "The OAuth provider's id, such as `google`.",
	"user_id":       "The user's id (the `id` column of the users_sync table).",
	"auth_provider": "Auth provider of the integration: " + enumText(apiclient.AuthProviders, nil) + ". Omitted at import: the branch's one integration.",
	"database_name": "The database whose Data API it is.",
	"jwks_id":       "The JWKS's id, as the project's list of JWKS shows it.",
}

// identityCanonical gives the canonical form of an identity part whose
// resource compares it canonically.
var identityCanonical = map[string]func(string) (string, error){
	"domain": apiclient.CanonicalOrigin,
}

// identityNames are the identity attributes: project_id, branch_id, then the
// parts of the import id.
func (f importFormat) identityNames() []string {
	names := []string{"project_id"}
	if f.withBranch {
		names = append(names, "branch_id")
	}
	return append(names, f.parts...)
}

// attr is the state attribute that holds an identity part.
func (f importFormat) attr(name string) string {
	if a, ok := f.attrs[name]; ok {
		return a
	}
	return name
}

// identitySchema is the identity of the resource type: what an import block
// needs as required, what it may leave out as optional.
func (f importFormat) identitySchema() identityschema.Schema {
	attrs := map[string]identityschema.Attribute{}
	for i, name := range f.identityNames() {
		optional := name == "branch_id" || (i >= len(f.identityNames())-f.optional && name != "project_id")
		attrs[name] = identityschema.StringAttribute{
			RequiredForImport: !optional,
			OptionalForImport: optional,
			Description:       cmp.Or(identityDescriptions[name], f.described[name]),
		}
	}
	return identityschema.Schema{Attributes: attrs}
}

// importID is the import id of the request: its id, or the one its identity
// makes (`<project_id>[/<branch_id>]/<part>…`), which importState then parses
// as any id. ok is false when the identity cannot make one.
func (f importFormat) importID(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) (string, bool) {
	if req.ID != "" || req.Identity == nil || req.Identity.Raw.IsNull() {
		return req.ID, true
	}
	values := map[string]string{}
	for _, name := range f.identityNames() {
		var v types.String
		diags.Append(req.Identity.GetAttribute(ctx, path.Root(name), &v)...)
		values[name] = v.ValueString()
	}
	if diags.HasError() {
		return "", false
	}
	bad := func(why string) (string, bool) {
		diags.AddError("Invalid import identity", fmt.Sprintf("%s Give %s (%s), as in the string id %s.", why, f.identityUsage(), f.resourceType, f.usage()))
		return "", false
	}
	parts := []string{values["project_id"]}
	if b := values["branch_id"]; b != "" {
		if !strings.HasPrefix(b, "br-") || !projectIDPattern.MatchString(b) {
			return bad(fmt.Sprintf("The identity's branch_id %q is not a Neon branch id (`br-…`).", b))
		}
		parts = append(parts, b)
	}
	for i, name := range f.parts {
		v := values[name]
		switch {
		case v == "" && i < len(f.parts)-f.optional:
			return bad(fmt.Sprintf("The identity has no %s.", name))
		case v == "":
			continue
		case strings.Contains(v, "/") && (!f.lastMaySlash || i != len(f.parts)-1):
			return bad(fmt.Sprintf("The identity's %s %q contains a slash.", name, v))
		}
		parts = append(parts, v)
	}
	return compositeID(parts...), true
}

// identityUsage names the identity attributes, for error messages.
func (f importFormat) identityUsage() string {
	names := f.identityNames()
	sort.Strings(names)
	return "`identity = { " + strings.Join(names, ", ") + " }`"
}

// identifyImport sets the identity of an imported object from its parsed
// import id: canonical, and without the branch when the id names none (Read
// resolves it).
func (f importFormat) identifyImport(ctx context.Context, values map[string]string, identity *tfsdk.ResourceIdentity) diag.Diagnostics {
	var diags diag.Diagnostics
	if identity == nil {
		return diags
	}
	for _, name := range f.identityNames() {
		v := types.StringNull()
		if s := values[name]; s != "" {
			v = types.StringValue(canonicalPart(name, s))
		}
		diags.Append(identity.SetAttribute(ctx, path.Root(name), v)...)
	}
	return diags
}

// identifyCreated, identifyRead and identifyUpdated fill the identity of an
// object from its new state. Each is deferred at the top of its method, so
// that every way out is covered; they do nothing after an error.
func (f importFormat) identifyCreated(ctx context.Context, resp *resource.CreateResponse) {
	f.identify(ctx, resp.State, tfsdk.State{}, resp.Identity, &resp.Diagnostics)
}

// identifyRead also covers an object found gone (its state removed): the
// framework still wants an identity, made from the prior state.
func (f importFormat) identifyRead(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	f.identify(ctx, resp.State, req.State, resp.Identity, &resp.Diagnostics)
}

func (f importFormat) identifyUpdated(ctx context.Context, resp *resource.UpdateResponse) {
	f.identify(ctx, resp.State, tfsdk.State{}, resp.Identity, &resp.Diagnostics)
}

// identify fills the identity from state, keeping every value already
// recorded: an object keeps its identity, and one recorded before identity
// existed (or just imported) gets the rest on its next refresh. With no
// state it is made from prior.
func (f importFormat) identify(ctx context.Context, state, prior tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if identity == nil || diags.HasError() {
		return
	}
	if state.Raw.IsNull() {
		state = prior
	}
	if state.Raw.IsNull() {
		return
	}
	for _, name := range f.identityNames() {
		var recorded types.String
		diags.Append(identity.GetAttribute(ctx, path.Root(name), &recorded)...)
		if !recorded.IsNull() {
			continue
		}
		var v types.String
		diags.Append(state.GetAttribute(ctx, path.Root(f.attr(name)), &v)...)
		if v.IsUnknown() {
			v = types.StringNull()
		}
		if !v.IsNull() {
			v = types.StringValue(canonicalPart(name, v.ValueString()))
		}
		diags.Append(identity.SetAttribute(ctx, path.Root(name), v)...)
	}
}

// canonicalPart is an identity part in the form its resource compares.
func canonicalPart(name, v string) string {
	if canon, ok := identityCanonical[name]; ok {
		if c, err := canon(v); err == nil {
			return c
		}
	}
	return v
}
