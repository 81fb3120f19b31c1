package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// What every list resource (`terraform query`, Terraform ≥ 1.14) shares:
// its configuration (a project, optionally a branch), the scopes it searches
// and how a found object becomes a result. A result is what importing the
// object gives: the resource's own ImportState then its Read, so that the
// configuration `terraform query -generate-config-out` writes is the one an
// import block generates, and reads go through the same shared lists as a
// refresh (one request per branch and list endpoint).

// listConfigModel is the configuration of every list resource.
type listConfigModel struct {
	ProjectID types.String `tfsdk:"project_id"`
	BranchID  types.String `tfsdk:"branch_id"`
}

// listConfigSchema is the configuration schema of a list resource that finds
// what.
func listConfigSchema(what string) listschema.Schema {
	return listConfigSchemaOf("Finds "+what+" of a Neon project: on every branch with Neon Auth (`auth_api = \"branch\"`; "+
		"the project-level endpoints reach only the production branch), or on one branch.",
		"Id of the one branch to search. Omitted: every branch with Neon Auth in branch mode, the production branch in project mode.")
}

// listConfigSchemaOf is the configuration schema of a list resource, with
// its description and branch_id's.
func listConfigSchemaOf(description, branchDescription string) listschema.Schema {
	return listschema.Schema{
		MarkdownDescription: description,
		Attributes: map[string]listschema.Attribute{
			"project_id": listschema.StringAttribute{
				MarkdownDescription: "Id of the Neon project to search.",
				Required:            true,
			},
			"branch_id": listschema.StringAttribute{
				MarkdownDescription: branchDescription,
				Optional:            true,
			},
		},
	}
}

// listScope is a branch a list resource searches, with its name.
type listScope struct {
	neonauth.Scope
	name string
}

// foundObject is an object a list resource found: its import id and the name a
// person recognises it by.
type foundObject struct{ id, name string }

// importReader is a resource whose objects a list resource returns.
type importReader interface {
	resource.ResourceWithImportState
}

// listedResource is a resource whose objects a list resource returns, and
// the configured base through which the list reads.
type listedResource interface {
	resource.ResourceWithImportState
	resource.ResourceWithConfigure
	base() *configured
}

// objectList is the list resource of a type: each object found on each
// scope of the configuration (scopes; nil: listScopes), as the type's
// resource imports and reads it. A type declares its list beside its
// resource: what it finds (what), and either the keys of a scope's objects
// (keys, for ids `<project_id>/<branch_id>/<key>`; a branch without Neon
// Auth has none) or, for other ids, the objects themselves (find).
type objectList struct {
	listedResource
	what string
	// schema, when set, replaces the configuration schema made from what.
	schema listschema.Schema
	scopes func(c *configured, ctx context.Context, cfg listConfigModel) ([]listScope, error)
	keys   func(ctx context.Context, auth *neonauth.Service, s neonauth.Scope) ([]string, error)
	find   func(ctx context.Context, auth *neonauth.Service, s listScope) ([]foundObject, error)
	// branchOnly: only the branch-scoped API has the objects.
	branchOnly bool
}

var _ list.ListResourceWithConfigure = (*objectList)(nil)

func (l *objectList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	if l.schema.Attributes != nil {
		resp.Schema = l.schema
		return
	}
	resp.Schema = listConfigSchema(l.what)
}

func (l *objectList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	c := l.base()
	if l.branchOnly && needsBranchMode(c, stream) {
		return
	}
	scopes := c.listScopes
	if l.scopes != nil {
		scopes = func(ctx context.Context, cfg listConfigModel) ([]listScope, error) { return l.scopes(c, ctx, cfg) }
	}
	c.listIn(ctx, l.listedResource, req, stream, scopes, func(ctx context.Context, s listScope) ([]foundObject, error) {
		if l.keys == nil {
			return l.find(ctx, c.data.auth, s)
		}
		keys, err := l.keys(ctx, c.data.auth, s.Scope)
		return keyed(s, keys, err)
	})
}

// needsBranchMode refuses a list of a type that only the branch-scoped API
// has, in project mode; it reports whether it did.
func needsBranchMode(c *configured, stream *list.ListResultsStream) bool {
	if !c.data.ready() || c.data.auth.Family() == apiclient.FamilyBranch {
		return false
	}
	var diags diag.Diagnostics
	diags.AddError("Needs the branch-scoped API", "`"+string(c.typeName)+"` is only offered by Neon's branch-scoped endpoints; "+
		"set auth_api = \"branch\" in the provider block (or NEON_AUTH_API=branch) to list it.")
	stream.Results = list.ListResultsStreamDiagnostics(diags)
	return true
}

// listIn streams the objects that find returns on each scope that scopes
// makes of the request's configuration, each as the resource r imports and
// reads it.
func (c *configured) listIn(ctx context.Context, r importReader, req list.ListRequest, stream *list.ListResultsStream,
	scopes func(context.Context, listConfigModel) ([]listScope, error), find func(context.Context, listScope) ([]foundObject, error),
) {
	t := c.typeName
	var diags diag.Diagnostics
	if !requireClient(c.data, &diags) {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	var cfg listConfigModel
	if diags.Append(req.Config.Get(ctx, &cfg)...); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	in, err := scopes(ctx, cfg)
	if err != nil {
		diags.AddError(t.unable("List"), err.Error())
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = func(push func(list.ListResult) bool) {
		sent := int64(0)
		for _, s := range in {
			objects, err := find(ctx, s)
			if err != nil {
				var d diag.Diagnostics
				d.AddError(t.unable("List"), apiErrorDetail("Listing the "+string(t)+" objects of "+s.String(), err))
				push(list.ListResult{Diagnostics: d})
				return
			}
			for _, o := range objects {
				res, ok := importAndRead(ctx, r, req, o)
				if !ok {
					continue // gone between the list and the read
				}
				if !push(res) {
					return
				}
				if sent++; req.Limit > 0 && sent >= req.Limit {
					return
				}
			}
		}
	}
}

// listScopes are the branches a list configuration names: the branch given;
// else in branch mode every branch of the project, in project mode its
// production branch. A branch other than the production one needs branch
// mode.
func (c *configured) listScopes(ctx context.Context, cfg listConfigModel) ([]listScope, error) {
	return c.branchScopes(ctx, cfg, c.data.auth.Family())
}

// everyBranch is listScopes for a type whose endpoints reach every branch
// in both families (the Data API): the branch given, else every branch.
func (c *configured) everyBranch(ctx context.Context, cfg listConfigModel) ([]listScope, error) {
	return c.branchScopes(ctx, cfg, apiclient.FamilyBranch)
}

// branchScopes are the branches a list configuration names, as family
// reaches them (see listScopes).
func (c *configured) branchScopes(ctx context.Context, cfg listConfigModel, family apiclient.Family) ([]listScope, error) {
	projectID := cfg.ProjectID.ValueString()
	branches, err := c.data.auth.Branches(ctx, projectID)
	if err != nil {
		return nil, errors.New(projectErrorDetail(projectID, "Listing the branches of project "+projectID, err))
	}
	prod, err := apiclient.ProductionBranch(projectID, branches)
	if err != nil {
		return nil, err
	}
	var scopes []listScope
	for _, b := range branches {
		switch {
		case !cfg.BranchID.IsNull() && b.ID != cfg.BranchID.ValueString():
			continue
		case family == apiclient.FamilyProject && b.ID != prod.ID:
			if !cfg.BranchID.IsNull() {
				return nil, fmt.Errorf("branch %s is not the production branch (%s) of project %s. The project-level endpoints "+
					"(auth_api = %q) reach only the production branch's Neon Auth. Set auth_api = %q in the provider block to "+
					"search other branches", b.ID, prod.ID, projectID, authAPIProject, authAPIBranch)
			}
			continue
		}
		scopes = append(scopes, listScope{Scope: neonauth.Scope{Scope: apiclient.Scope{ProjectID: projectID, BranchID: b.ID, Family: family}}, name: b.Name})
	}
	if len(scopes) == 0 && !cfg.BranchID.IsNull() {
		return nil, fmt.Errorf("project %s has no branch %s", projectID, cfg.BranchID.ValueString())
	}
	return scopes, nil
}

// keyed is what a scope's shared list of objects holds, each found by its
// key (id `<project_id>/<branch_id>/<key>`, named "<key> (<branch>)"). A
// branch without Neon Auth (a 404) has none.
func keyed(s listScope, keys []string, err error) ([]foundObject, error) {
	if isNotFound(err) {
		return nil, nil
	}
	out := make([]foundObject, 0, len(keys))
	for _, k := range keys {
		out = append(out, foundObject{compositeID(s.ProjectID, s.BranchID, k), k + " (" + s.name + ")"})
	}
	return out, err
}

// keysOf is the key of each of items (an objectList's keys), passing err on.
func keysOf[T any](items []T, err error, key func(T) string) ([]string, error) {
	keys := make([]string, 0, len(items))
	for _, it := range items {
		keys = append(keys, key(it))
	}
	return keys, err
}

// importAndRead is the result for one object: what the resource's
// ImportState and then its Read make of its import id. ok is false when
// the object is gone.
func importAndRead(ctx context.Context, r importReader, req list.ListRequest, o foundObject) (list.ListResult, bool) {
	res := req.NewListResult(ctx)
	res.DisplayName = o.name
	empty := tfsdk.State{Schema: req.ResourceSchema, Raw: tftypes.NewValue(req.ResourceSchema.Type().TerraformType(ctx), nil)}
	imported := resource.ImportStateResponse{State: empty, Identity: res.Identity}
	r.ImportState(ctx, resource.ImportStateRequest{ID: o.id}, &imported)
	if res.Diagnostics.Append(imported.Diagnostics...); res.Diagnostics.HasError() {
		return res, true
	}
	identity := *res.Identity
	read := resource.ReadResponse{State: imported.State, Identity: &identity}
	r.Read(ctx, resource.ReadRequest{State: imported.State, Identity: res.Identity}, &read)
	if res.Diagnostics.Append(read.Diagnostics...); res.Diagnostics.HasError() {
		return res, true
	}
	if read.State.Raw.IsNull() {
		return res, false
	}
	res.Identity = read.Identity
	if req.IncludeResource {
		res.Resource = &tfsdk.Resource{Schema: req.ResourceSchema, Raw: read.State.Raw}
	} else {
		res.Resource = nil
	}
	return res, true
}
