package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Projects and branches: the paginated lists, the production branch,
// project and branch create and delete, and the databases of a branch.

// maxPages guards the paginated lists against a server that never stops.
const maxPages = 10000

// ProjectList is what GET /projects returns over all its pages.
type ProjectList struct {
	Projects []Project
	// UnavailableProjectIDs are projects the API could not read in time
	// (listed by id only); a later read may return them.
	UnavailableProjectIDs []string
}

// ListProjects lists every project the key can see (GET /projects),
// following the cursor pagination until a page comes back empty or without
// a cursor.
func (c *Client) ListProjects(ctx context.Context, opts ListProjectsOptions) (*ProjectList, error) {
	limit := opts.PageSize
	if limit <= 0 || limit > 400 {
		limit = 400
	}
	out := &ProjectList{}
	err := paginate(ctx, "GET /projects", func(ctx context.Context, cursor string) (string, bool, error) {
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if opts.Search != "" {
			q.Set("search", opts.Search)
		}
		if opts.OrgID != "" {
			q.Set("org_id", opts.OrgID)
		}
		if opts.Recoverable {
			q.Set("recoverable", "true")
		}
		var page struct {
			neonapi.ProjectsResponse
			neonapi.PaginationResponse
		}
		if err := c.do(ctx, call{method: http.MethodGet, ep: projectsEndpoint, query: q, out: &page}); err != nil {
			return "", false, err
		}
		out.Projects = append(out.Projects, page.Projects...)
		out.UnavailableProjectIDs = append(out.UnavailableProjectIDs, Deref(page.UnavailableProjectIds)...)
		next := ""
		if page.Pagination != nil {
			next = page.Pagination.Cursor
		}
		return next, len(page.Projects) > 0, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// branchPageSize is the `limit` of each page of branches (the API allows up
// to 10000).
const branchPageSize = 1000

// ListBranches lists a project's branches (GET
// /projects/{project_id}/branches), following `pagination.next`.
func (c *Client) ListBranches(ctx context.Context, projectID string) ([]Branch, error) {
	var all []Branch
	err := paginate(ctx, "GET /projects/{project_id}/branches", func(ctx context.Context, cursor string) (string, bool, error) {
		q := url.Values{"limit": {strconv.Itoa(branchPageSize)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page struct {
			neonapi.BranchesResponse
			neonapi.CursorPaginationResponse
		}
		if err := c.do(ctx, call{method: http.MethodGet, ep: projectEndpoint(projectID).sub("branches"), query: q, out: &page}); err != nil {
			return "", false, err
		}
		all = append(all, page.Branches...)
		next := ""
		if page.Pagination != nil {
			next = Deref(page.Pagination.Next)
		}
		return next, len(page.Branches) > 0, nil
	})
	return all, err
}

// paginate calls page with each cursor, starting from "", until a page has
// no next cursor or no items, guarding against a cursor that repeats.
func paginate(ctx context.Context, what string, page func(ctx context.Context, cursor string) (next string, more bool, err error)) error {
	seen := map[string]bool{}
	cursor := ""
	for range maxPages {
		next, more, err := page(ctx, cursor)
		if err != nil {
			return err
		}
		if !more || next == "" {
			return nil
		}
		if seen[next] {
			return fmt.Errorf("%s: the API returned cursor %q twice; stopping to avoid an endless loop", what, next)
		}
		seen[next] = true
		cursor = next
	}
	return fmt.Errorf("%s: more than %d pages", what, maxPages)
}

// DefaultBranch returns the project's production branch: the one whose
// `default` flag is true.
func (c *Client) DefaultBranch(ctx context.Context, projectID string) (*Branch, error) {
	branches, err := c.ListBranches(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return ProductionBranch(projectID, branches)
}

// ProductionBranch picks the branch whose `default` flag is true.
func ProductionBranch(projectID string, branches []Branch) (*Branch, error) {
	for i := range branches {
		if branches[i].Default {
			return &branches[i], nil
		}
	}
	return nil, fmt.Errorf("project %s has no branch marked default among its %d branches", projectID, len(branches))
}

// CreateBranchRequest is what creating a branch takes; empty fields take the
// API's defaults (a generated name; the production branch as parent; no
// compute endpoint).
type CreateBranchRequest struct {
	Name     string
	ParentID string
	// ReadWriteEndpoint gives the branch a read-write compute endpoint, as
	// a preview branch made for an application has: Neon Auth serves a
	// branch from the endpoint it matches.
	ReadWriteEndpoint bool
}

// CreateBranch creates a branch without compute endpoints: POST
// /projects/{project_id}/branches. Creating is not idempotent and a lost
// answer cannot be matched to a branch, so it is never sent again blindly.
func (c *Client) CreateBranch(ctx context.Context, projectID string, req CreateBranchRequest) (*Branch, error) {
	var out neonapi.CreatedBranch
	var body neonapi.BranchCreateRequest
	body.Branch = alloc(body.Branch) // an inline object of the reference: its type has no name
	body.Branch.Name, body.Branch.ParentID = Optional(req.Name), Optional(req.ParentID)
	if req.ReadWriteEndpoint {
		body.Endpoints = &[]neonapi.BranchCreateRequestEndpointOptions{{Type: neonapi.EndpointTypeReadWrite}}
	}
	if _, err := c.write(ctx, writeCall{call: call{method: http.MethodPost, ep: projectEndpoint(projectID).sub("branches"), body: body, out: &out}, rule: neverResend}); err != nil {
		return nil, err
	}
	return &out.Branch, nil
}

// DeleteBranch deletes a branch, and its Neon Auth with it: DELETE
// /projects/{project_id}/branches/{branch_id}. A repeat finds it gone.
func (c *Client) DeleteBranch(ctx context.Context, projectID, branchID string) error {
	_, err := c.write(ctx, writeCall{call: call{method: http.MethodDelete, ep: branchEndpoint(projectID, branchID)}, rule: resendFreely})
	return err
}

// CreateProjectRequest is what creating a project takes; empty fields take
// the API's defaults (a generated name; the key's own account).
type CreateProjectRequest struct {
	Name string
	// OrgID places the project in an organization: needed with a personal
	// key of a user who belongs to one, refused with an organization key of
	// another.
	OrgID string
}

// CreateProject creates a project with its production branch: POST
// /projects. Like a branch, a project cannot be matched to a lost answer,
// so the request is never sent again blindly.
func (c *Client) CreateProject(ctx context.Context, req CreateProjectRequest) (*CreatedProject, error) {
	var out neonapi.CreatedProject
	var body neonapi.ProjectCreateRequest
	body.Project.Name, body.Project.OrgID = Optional(req.Name), Optional(req.OrgID)
	if _, err := c.write(ctx, writeCall{call: call{method: http.MethodPost, ep: projectsEndpoint, body: body, out: &out}, rule: neverResend}); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetProject reads a project: GET /projects/{project_id}.
func (c *Client) GetProject(ctx context.Context, projectID string) (*ProjectDetail, error) {
	var out neonapi.ProjectResponse
	if err := c.do(ctx, call{method: http.MethodGet, ep: projectEndpoint(projectID), out: &out}); err != nil {
		return nil, err
	}
	return &out.Project, nil
}

// DeleteProject deletes a project with all its branches: DELETE
// /projects/{project_id}. A repeat finds it gone.
func (c *Client) DeleteProject(ctx context.Context, projectID string) error {
	_, err := c.write(ctx, writeCall{call: call{method: http.MethodDelete, ep: projectEndpoint(projectID)}, rule: resendFreely})
	return err
}

// Database is an element of GET …/branches/{branch_id}/databases.
type Database = neonapi.Database

// ListDatabases lists the databases of a branch: GET
// /projects/{project_id}/branches/{branch_id}/databases.
func (c *Client) ListDatabases(ctx context.Context, projectID, branchID string) ([]Database, error) {
	var out neonapi.DatabasesResponse
	if err := c.do(ctx, call{method: http.MethodGet, ep: branchEndpoint(projectID, branchID).sub("databases"), out: &out}); err != nil {
		return nil, err
	}
	return out.Databases, nil
}
