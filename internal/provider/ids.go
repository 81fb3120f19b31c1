package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// Import ids and composite ids: their formats, parsing, and the branch an
// import may name.

// compositeID joins the parts of a resource id with "/".
func compositeID(parts ...string) string { return strings.Join(parts, "/") }

// importFormat is the import id of a resource type:
// `<project_id>[/<branch_id>]/<part>/…`, each part stored in the attribute of
// the same name. The branch id is what the resource's own id names; it is
// recognized by Neon's `br-` prefix. Left out (the short form), it means the
// project's production branch.
type importFormat struct {
	resourceType typeName
	// parts are the names of the parts after project_id (and branch_id):
	// attribute names, unless attrs maps a part to another attribute.
	parts []string
	attrs map[string]string
	// optional is how many trailing parts may be left out.
	optional int
	// lastMaySlash: the last part may itself contain "/" (a domain such as
	// https://app.example.com).
	lastMaySlash bool
	// withBranch: the resource has a branch_id attribute.
	withBranch bool
	// example is an id of this format.
	example string
	// note is said after the expected forms (where a part is found).
	note string
	// described describes identity attributes that identityDescriptions
	// does not (a list-backed type's key, from its attribute).
	described map[string]string
}

// usage is the accepted forms, for error messages.
func (f importFormat) usage() string {
	forms := []string{}
	for n := len(f.parts) - f.optional; n <= len(f.parts); n++ {
		form := "<project_id>"
		for _, p := range f.parts[:n] {
			form += "/<" + p + ">"
		}
		if f.withBranch {
			forms = append(forms, "`"+strings.Replace(form, "<project_id>", "<project_id>/<branch_id>", 1)+"`")
		}
		forms = append(forms, "`"+form+"`")
	}
	usage := strings.Join(forms, " or ")
	if f.withBranch {
		usage += " (without a branch id: the production branch)"
	}
	return usage
}

// parse splits id into attribute values; branch_id is "" when the id does
// not name one.
func (f importFormat) parse(id string) (map[string]string, error) {
	bad := func(why string) error {
		msg := fmt.Sprintf("Expected %s, such as `%s`; got %q.", f.usage(), f.example, id)
		if why != "" {
			msg = why + " " + msg
		}
		if f.note != "" {
			msg += " " + f.note
		}
		return fmt.Errorf("%s", msg)
	}
	projectID, rest, _ := strings.Cut(id, "/")
	if !projectIDPattern.MatchString(projectID) {
		return nil, bad("The project id part is not a Neon project id.")
	}
	values := map[string]string{"project_id": projectID}
	if f.withBranch {
		values["branch_id"] = ""
		if first, after, _ := strings.Cut(rest, "/"); strings.HasPrefix(first, "br-") {
			if !projectIDPattern.MatchString(first) {
				return nil, bad("The branch id part is not a Neon branch id.")
			}
			values["branch_id"], rest = first, after
		}
	}
	var segs []string
	switch {
	case rest == "":
	case f.lastMaySlash && len(f.parts) > 0:
		segs = strings.SplitN(rest, "/", len(f.parts))
	default:
		segs = strings.Split(rest, "/")
	}
	if len(segs) > len(f.parts) || len(segs) < len(f.parts)-f.optional {
		return nil, bad("")
	}
	for i, s := range segs {
		if s == "" {
			return nil, bad(fmt.Sprintf("The %s part is empty.", f.parts[i]))
		}
		values[f.parts[i]] = s
	}
	return values, nil
}

// checkImportBranch refuses, in project mode, an import id that names a
// branch other than the production one (the project-level endpoints would
// read the production branch's Neon Auth instead).
func (c *configured) checkImportBranch(ctx context.Context, v map[string]string, resp *resource.ImportStateResponse) {
	if !c.data.ready() || c.data.auth.Family() == apiclient.FamilyBranch || v["branch_id"] == "" {
		return
	}
	prod, err := c.data.auth.ProductionBranch(ctx, v["project_id"])
	if err != nil {
		resp.Diagnostics.AddError("Unable to Import", projectErrorDetail(v["project_id"], "Looking up the production branch of project "+v["project_id"], err))
		return
	}
	if v["branch_id"] != prod {
		resp.Diagnostics.AddError("Branch not reachable in project mode",
			fmt.Sprintf("The import id names branch %s, which is not the production branch (%s) of project %s. The project-level "+
				"endpoints (auth_api = %q) reach only the production branch. Set auth_api = %q in the provider block to import "+
				"Neon Auth objects of other branches.", v["branch_id"], prod, v["project_id"], authAPIProject, authAPIBranch))
	}
}

// branchObjectID is the id of an object that lives on a branch:
// `<project_id>/<branch_id>/<part>/…`. It names the branch, so that no id of
// one branch's object can be mistaken for another branch's.
func branchObjectID(s neonauth.Scope, parts ...string) string {
	return compositeID(append([]string{s.ProjectID, s.BranchID}, parts...)...)
}

// importedID is the id an import sets before the first refresh: the parts
// of the import id, the branch only where the id named one (the refresh
// writes the id with the branch it resolved).
func importedID(v map[string]string, parts ...string) string {
	head := []string{v["project_id"]}
	if v["branch_id"] != "" {
		head = append(head, v["branch_id"])
	}
	return compositeID(append(head, parts...)...)
}
