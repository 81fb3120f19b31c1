package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// compositeID joins the parts of a resource id with "/".
func compositeID(parts ...string) string { return strings.Join(parts, "/") }

// importFormat is the import id of a resource type:
// `<project_id>[/<branch_id>]/<part>/…`, each part stored in the attribute of
// the same name. The branch id is optional (it names a branch other than the
// production one) and recognized by Neon's `br-` prefix.
type importFormat struct {
	resourceType string
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
}

// usage is the accepted forms, for error messages.
func (f importFormat) usage() string {
	forms := []string{}
	for n := len(f.parts) - f.optional; n <= len(f.parts); n++ {
		form := "<project_id>"
		for _, p := range f.parts[:n] {
			form += "/<" + p + ">"
		}
		forms = append(forms, "`"+form+"`")
		if f.withBranch {
			forms = append(forms, "`"+strings.Replace(form, "<project_id>", "<project_id>/<branch_id>", 1)+"`")
		}
	}
	return strings.Join(forms, " or ")
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
