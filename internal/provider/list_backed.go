package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// A list-backed type described once: one listBacked value gives a type's
// schema, import format and identity, list resource and whole lifecycle
// (list_backed_lifecycle.go: take over, restore, gone, recover). The type's
// own file holds its model, its description and only what it does
// differently, as hooks.

// listBacked describes a list-backed type: M is its model, O the API's
// object of it and A what a configuration gives one (see neonauth's
// ListBacked).
type listBacked[M any, O any, A any] struct {
	typeName typeName
	// api is the kind's API: how its objects are listed, written, taken
	// over, recovered and restored.
	api *neonauth.ListBacked[O, A]
	// key is the argument that names an object among its branch's; its
	// canonical form (nil: as written) is what the id and the import hold.
	key       string
	canonical func(string) (string, error)
	// importExample is an import id; keyMaySlash: the key may hold slashes.
	importExample string
	keyMaySlash   bool
	// description is the schema's; scopeRole says what the branch's Neon
	// Auth is to the object, for the scope attributes' descriptions.
	description, scopeRole string
	attributes             map[string]schema.Attribute
	// noun names one object in messages (nil: the key and the type's noun,
	// "google OAuth provider").
	noun func(key string) string
	// adding names the create on a scope, for its messages (nil: "Adding
	// the <noun> to <scope>"); already says that the scope holds the object
	// (nil: "The <scope> already has the <noun>.").
	adding, already func(key string, s neonauth.Scope) string
	// onDestroy says what a restoring destroy does with one taken over.
	onDestroy string
	// input is what the write's plan (and configuration) gives the API (nil:
	// the object is only its key).
	input func(ctx context.Context, w listedWrite[M, A], diags *diag.Diagnostics) A
	// toModel writes what the API tells of an object on a scope into the
	// model (o nil: an update that sent nothing); nil when the API tells
	// nothing the model keeps.
	toModel func(m *M, s neonauth.Scope, o *O) diag.Diagnostics

	// What a type does differently; nil is the shared rule.
	hooks listedHooks[M, A]
}

// listedHooks are what a list-backed type does differently from the shared
// lifecycle, beyond its API's rules.
type listedHooks[M any, A any] struct {
	// plan adds its own plan checks; nil: planTakeOver of a branch's copy.
	plan func(ctx context.Context, c *configured, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, key string)
	// validate checks the configuration.
	validate func(ctx context.Context, cfg M, diags *diag.Diagnostics)
	// failed explains a failed add the shared rule does not; ok false
	// leaves it to the shared rule.
	failed func(w listedWrite[M, A], err error, diags *diag.Diagnostics) bool
	// tookOver words the warning of a take-over that the API's rules leave
	// as found (nil: an object inherited from the parent branch).
	tookOver func(key string, s neonauth.Scope) (summary, detail string)
}

// listedModel is the part of a list-backed type's model that the lifecycle
// fills in: where the object lives and its id. A type's model embeds it.
type listedModel struct {
	scopeModel
	ID types.String `tfsdk:"id"`
}

// listedWrite is a write of a list-backed object: the model planned (or in
// state), where it lives, its key, and the configuration (nil outside
// Create and Update), which holds the write-only arguments.
type listedWrite[M any, A any] struct {
	plan M
	s    neonauth.Scope
	key  string
	cfg  attributeGetter
	// in is what the plan (or state) gives the API: the type's input.
	in A
}

// listBackedResource is the resource a listBacked describes.
type listBackedResource[M any, O any, A any] struct {
	configured
	t *listBacked[M, O, A]
}

var (
	_ resource.ResourceWithImportState    = (*listBackedResource[struct{}, struct{}, struct{}])(nil)
	_ resource.ResourceWithIdentity       = (*listBackedResource[struct{}, struct{}, struct{}])(nil)
	_ resource.ResourceWithModifyPlan     = (*listBackedResource[struct{}, struct{}, struct{}])(nil)
	_ resource.ResourceWithValidateConfig = (*listBackedResource[struct{}, struct{}, struct{}])(nil)
)

// resource is the type's resource.
func (t *listBacked[M, O, A]) resource() resource.Resource { return t.newResource() }

// newResource is the type's resource as its own type.
func (t *listBacked[M, O, A]) newResource() *listBackedResource[M, O, A] {
	return &listBackedResource[M, O, A]{configured: configuredAs(t.typeName), t: t}
}

// listResource is the type's list resource: every object of each branch
// searched, named by its key.
func (t *listBacked[M, O, A]) listResource() list.ListResource {
	return &objectList{listedResource: t.newResource(), what: "the " + t.typeName.noun() + "s", branchOnly: !t.api.ProjectLevel,
		keys: func(ctx context.Context, auth *neonauth.Service, s neonauth.Scope) ([]string, error) {
			objects, err := t.api.Objects(auth, ctx, s)
			return keysOf(objects, err, func(o O) string { return t.canonicalKey(t.api.Key(o)) })
		}}
}

// served is what the provider serves of the type: its resource and its
// list resource.
func (t *listBacked[M, O, A]) served() servedType {
	return servedType{resource: t.resource, list: t.listResource}
}

// format is the type's import format, which also gives its identity.
func (t *listBacked[M, O, A]) format() importFormat {
	return importFormat{resourceType: t.typeName, parts: []string{t.key}, lastMaySlash: t.keyMaySlash, withBranch: true,
		example: t.importExample, described: map[string]string{t.key: t.attributes[t.key].GetMarkdownDescription()}}
}

// nounOf names the object of key in messages.
func (t *listBacked[M, O, A]) nounOf(key string) string {
	if t.noun != nil {
		return t.noun(key)
	}
	return key + " " + t.typeName.noun()
}

// addingTo names the create of the object of key on s.
func (t *listBacked[M, O, A]) addingTo(key string, s neonauth.Scope) string {
	if t.adding != nil {
		return t.adding(key, s)
	}
	return fmt.Sprintf("Adding the %s to %s", t.nounOf(key), s)
}

// canonicalKey is key in its canonical form, or as written when it has none.
func (t *listBacked[M, O, A]) canonicalKey(key string) string {
	if t.canonical == nil {
		return key
	}
	if c, err := t.canonical(key); err == nil {
		return c
	}
	return key
}

func (r *listBackedResource[M, O, A]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.t.schema()
}

// schema is the type's schema: its attributes, where it lives and its id.
func (t *listBacked[M, O, A]) schema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: t.description + " Import with `<project_id>/<branch_id>/<" + t.key + ">`; `<project_id>/<" + t.key +
			">` is the production branch's.",
		Attributes: withAttributes(scopeAttributes(t.scopeRole, integrationAuthProvider), withAttributes(map[string]schema.Attribute{
			"id": computedString("`<project_id>/<branch_id>/<"+t.key+">`.", false),
		}, t.attributes)),
	}
}

func (r *listBackedResource[M, O, A]) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = r.t.format().identitySchema()
}

func (r *listBackedResource[M, O, A]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if r.t.hooks.validate == nil {
		return
	}
	var cfg M
	if resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...); !resp.Diagnostics.HasError() {
		r.t.hooks.validate(ctx, cfg, &resp.Diagnostics)
	}
}

// ImportState stores the key canonical; a configuration that writes it
// differently plans no change.
func (r *listBackedResource[M, O, A]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	f := r.t.format()
	v, ok := f.importState(ctx, &req, resp)
	if !ok {
		return
	}
	key := v[r.t.key]
	if r.t.canonical != nil {
		canonical, err := r.t.canonical(key)
		if err != nil {
			resp.Diagnostics.AddError("Invalid import id",
				fmt.Sprintf("The %s part of the import id %q %s. Expected %s, such as `%s`.", r.t.key, req.ID, err, f.usage(), f.example))
			return
		}
		key = canonical
	}
	r.checkImportBranch(ctx, v, resp)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), importedID(v, key))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(r.t.key), key)...)
}
