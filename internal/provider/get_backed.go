package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// A get-backed type described once: an object of a branch named by a key
// argument, which its own GET reads (no list of the branch's objects finds
// it), whose endpoints reach every branch in both API modes and which lives
// beside Neon Auth, not in it: the Data API. Its create takes options the
// API never returns, so an import leaves them to the configuration. One
// getBacked value gives the type's schema, import format and identity, list
// resource and lifecycle (get_backed_lifecycle.go: take over, restore, gone,
// a lost create); the type's file holds its model, that value and its
// getBackedCalls: the API, and what it does differently.

// getBacked describes a get-backed type: M is its model, O the API's object
// and R the API's name of one object (which says itself in messages).
type getBacked[M located, O any, R fmt.Stringer] struct {
	typeName typeName
	// kind names the type in neonauth's take-over rules; key is the
	// argument that names an object on its branch.
	kind neonauth.Kind
	key  string
	// importExample is an import id; description is the schema's,
	// attributes its own, scopeRole what the branch is to the object, for
	// the branch_id description; listDescription describes the list
	// resource.
	importExample, description, scopeRole, listDescription string
	attributes                                             map[string]schema.Attribute
	// name is what an object is called in messages ("Data API"); its key
	// names one of its branch's parent objects ("database"), listed by
	// GET …/branches/{branch_id}/<parent>s.
	name, parent string
	// tookOver completes the warning of a take-over.
	tookOver string
	calls    getBackedCalls[M, O, R]
}

// getBackedCalls are what a get-backed type does: its requests (through
// neonauth), its model, the checks and waits of its own, and its words.
type getBackedCalls[M any, O any, R fmt.Stringer] interface {
	// ref names the object of key on s.
	ref(s neonauth.Scope, key string) R
	// read is a shared read, get a fresh one (after a write); absence tells
	// what the 404 of a request on the object means.
	read(ctx context.Context, auth *neonauth.Service, r R) (*O, error)
	get(ctx context.Context, auth *neonauth.Service, r R) (*O, error)
	absence(ctx context.Context, auth *neonauth.Service, r R) (neonauth.Presence, error)
	// create creates it as planned: the object answered and whether the
	// answer was lost and recovered. created waits for it after a create and
	// answers what to record (nil: what create answered).
	create(ctx context.Context, auth *neonauth.Service, r R, plan M) (*O, bool, error)
	created(ctx context.Context, auth *neonauth.Service, r R, diags *diag.Diagnostics) *O
	// update sends what changed from state to plan, then reads it back;
	// what names the request for an error.
	update(ctx context.Context, auth *neonauth.Service, r R, plan, state M) (o *O, what string, err error)
	// takeOver applies the plan to the object found on s, and answers what
	// to record for destroy to restore; restore writes that back.
	takeOver(ctx context.Context, auth *neonauth.Service, s neonauth.Scope, r R, plan M, found *O) (o *O, record any, what string, err error)
	restore(ctx context.Context, auth *neonauth.Service, s neonauth.Scope, r R, record json.RawMessage) (what string, err error)
	remove(ctx context.Context, auth *neonauth.Service, r R) error
	// keys are the keys of the objects on s, for the list resource.
	keys(ctx context.Context, auth *neonauth.Service, s neonauth.Scope) ([]string, error)
	// toModel writes what the API tells of o on s into m.
	toModel(ctx context.Context, m *M, s neonauth.Scope, o *O) diag.Diagnostics
	// validate checks a configuration; planCreate checks the plan of a
	// create and mayCreate, at apply, what it needs on its branch (false:
	// an error diagnostic says why not).
	validate(ctx context.Context, cfg M, diags *diag.Diagnostics)
	planCreate(plan M, diags *diag.Diagnostics) bool
	mayCreate(ctx context.Context, auth *neonauth.Service, plan M, s neonauth.Scope, summary string, diags *diag.Diagnostics) bool
}

// getBackedLeftOnDestroy is what a restoring destroy does with an object
// taken over: its settings, the part that changes in place, are put back.
const getBackedLeftOnDestroy = "Destroy leaves it on the branch, with the settings it had."

// noun names the object of key in messages ("Data API of database neondb").
func (t *getBacked[M, O, R]) noun(key string) string { return t.name + " of " + t.parent + " " + key }

// held says how a parent branch holds the object its branch inherited.
func (t *getBacked[M, O, R]) held() string {
	return "which has a " + t.name + " on the same " + t.parent
}

// already says that s has the object of key.
func (t *getBacked[M, O, R]) already(key string, s neonauth.Scope) string {
	return fmt.Sprintf("%s%s %s of %s already has a %s.", strings.ToUpper(t.parent[:1]), t.parent[1:], key, s, t.name)
}

// missing completes the error of a 404 on the object of key on s whose
// branch is there: its parent object may be missing.
func (t *getBacked[M, O, R]) missing(key string, s neonauth.Scope) string {
	return fmt.Sprintf(" Check that branch %s has a %s named %s (GET /projects/%s/branches/%s/%ss).", s.BranchID, t.parent, key,
		s.ProjectID, s.BranchID, t.parent)
}

// getBackedResource is the resource a getBacked describes.
type getBackedResource[M located, O any, R fmt.Stringer] struct {
	configured
	t *getBacked[M, O, R]
}

var (
	_ resource.ResourceWithImportState    = (*getBackedResource[branchModel, struct{}, fmt.Stringer])(nil)
	_ resource.ResourceWithIdentity       = (*getBackedResource[branchModel, struct{}, fmt.Stringer])(nil)
	_ resource.ResourceWithValidateConfig = (*getBackedResource[branchModel, struct{}, fmt.Stringer])(nil)
	_ resource.ResourceWithModifyPlan     = (*getBackedResource[branchModel, struct{}, fmt.Stringer])(nil)
)

// resource is the type's resource.
func (t *getBacked[M, O, R]) resource() resource.Resource {
	return &getBackedResource[M, O, R]{configured: configuredAs(t.typeName), t: t}
}

// listResource is the type's list resource: the objects of every branch
// searched (or of the one named), by their keys.
func (t *getBacked[M, O, R]) listResource() list.ListResource {
	return &objectList{listedResource: &getBackedResource[M, O, R]{configured: configuredAs(t.typeName), t: t},
		schema: listConfigSchemaOf(t.listDescription, "Id of the one branch to search. Omitted: every branch."),
		scopes: (*configured).everyBranch, keys: t.calls.keys}
}

// served is what the provider serves of the type: its resource and its
// list resource.
func (t *getBacked[M, O, R]) served() servedType {
	return servedType{resource: t.resource, list: t.listResource}
}

// format is the type's import format, which also gives its identity.
func (t *getBacked[M, O, R]) format() importFormat {
	return importFormat{resourceType: t.typeName, parts: []string{t.key}, withBranch: true, example: t.importExample}
}

// decidedIn is the scope in which a take-over of an object on s is decided
// and its branch looked for: the branch, in the branch-scoped family (the
// only one of a get-backed type's endpoints).
func decidedIn(s neonauth.Scope) neonauth.Scope {
	return neonauth.Scope{Scope: apiclient.Scope{ProjectID: s.ProjectID, BranchID: s.BranchID, Family: apiclient.FamilyBranch}}
}

func (r *getBackedResource[M, O, R]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	t := r.t
	resp.Schema = schema.Schema{
		MarkdownDescription: t.description,
		Attributes: withAttributes(branchAttributes(t.scopeRole, true), withAttributes(map[string]schema.Attribute{
			"id": computedString("`<project_id>/<branch_id>/<"+t.key+">`.", false),
		}, t.attributes)),
	}
}

func (r *getBackedResource[M, O, R]) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = r.t.format().identitySchema()
}

func (r *getBackedResource[M, O, R]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg M
	if resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...); !resp.Diagnostics.HasError() {
		r.t.calls.validate(ctx, cfg, &resp.Diagnostics)
	}
}

// ImportState sets the id; the create-time options, which the API never
// returns, are marked unknown (privateImported) until the configuration
// says them.
func (r *getBackedResource[M, O, R]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	v, ok := r.t.format().importState(ctx, &req, resp)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), importedID(v, v[r.t.key]))...)
	if resp.Private != nil { // a list resource's result has none
		setPrivateString(ctx, resp.Private, privateImported, "true", &resp.Diagnostics)
	}
}

// keyOf is the key the model in from names.
func (t *getBacked[M, O, R]) keyOf(ctx context.Context, from attributeGetter, diags *diag.Diagnostics) types.String {
	var key types.String
	diags.Append(from.GetAttribute(ctx, path.Root(t.key), &key)...)
	return key
}
