package apiclient

import (
	"fmt"
	"net/url"
	"strings"
)

// The paths of the API: a call's Scope (which project, branch and endpoint
// family it goes to) and the endpoints the client builds every path from.

// Family is the generation of the Neon Auth endpoints a call goes to. The
// caller chooses it once, in the Scope it passes; the client builds the path.
type Family int

const (
	// FamilyProject is the project-level endpoints of
	// internal/apispec/auth-api.md (`/projects/auth/…` and
	// `/projects/{project_id}/auth/…`). Neon has deprecated most of them in
	// favour of FamilyBranch; they act on the project's production branch.
	FamilyProject Family = iota
	// FamilyBranch is their branch-scoped successors, under
	// `/projects/{project_id}/branches/{branch_id}/auth`.
	FamilyBranch
)

func (f Family) String() string {
	switch f {
	case FamilyProject:
		return "project"
	case FamilyBranch:
		return "branch"
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// Scope names one Neon Auth: the branch of a project it belongs to, and the
// family of endpoints that reach it.
type Scope struct {
	ProjectID string
	// BranchID is part of every FamilyBranch path. FamilyProject endpoints
	// reach the production branch whatever it says; callers set it to that
	// branch's id for their own bookkeeping (it is sent where the
	// project-level create needs it).
	BranchID string
	Family   Family
}

// String is "project <id>" or "branch <id> of project <id>", for messages.
func (s Scope) String() string {
	if s.Family == FamilyBranch || s.BranchID != "" {
		return "branch " + s.BranchID + " of project " + s.ProjectID
	}
	return "project " + s.ProjectID
}

// endpoint is a path relative to the base URL together with its template
// ("projects/{project_id}/auth/domains"), which names the route in rate
// limits and logs.
type endpoint struct {
	route string
	path  string
}

// sub appends a literal segment.
func (e endpoint) sub(segment string) endpoint {
	return endpoint{route: join(e.route, segment), path: join(e.path, segment)}
}

// subPath appends literal segments written as a relative path (a setting's Path, "plugins/<name>").
func (e endpoint) subPath(rel string) endpoint {
	for _, seg := range strings.Split(rel, "/") {
		e = e.sub(seg)
	}
	return e
}

// param appends a path parameter: its name in the template, its escaped
// value in the path.
func (e endpoint) param(name, value string) endpoint {
	return endpoint{route: join(e.route, "{"+name+"}"), path: join(e.path, url.PathEscape(value))}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

var projectsEndpoint = endpoint{route: "projects", path: "projects"}

func projectEndpoint(projectID string) endpoint {
	return projectsEndpoint.param("project_id", projectID)
}

func branchEndpoint(projectID, branchID string) endpoint {
	return projectEndpoint(projectID).sub("branches").param("branch_id", branchID)
}

// auth is the root of the scope's Neon Auth endpoints:
// `projects/{project_id}/auth` or `projects/{project_id}/branches/{branch_id}/auth`.
func (s Scope) auth() endpoint {
	if s.Family == FamilyBranch {
		return branchEndpoint(s.ProjectID, s.BranchID).sub("auth")
	}
	return projectEndpoint(s.ProjectID).sub("auth")
}

// branchOnly refuses a call that only the branch-scoped family offers.
func (s Scope) branchOnly(what string) error {
	if s.Family == FamilyBranch {
		return nil
	}
	return fmt.Errorf("%s is only offered by the branch-scoped endpoints (/projects/{project_id}/branches/{branch_id}/auth…), not by the project-level ones: %w", what, ErrNotInFamily)
}
