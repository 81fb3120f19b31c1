package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// maxPages guards ListProjects against a server that never stops paging.
const maxPages = 10000

// ListProjects lists every project the key can see (endpoint 17), following
// the cursor pagination of GET /projects until a page comes back empty or
// without a cursor.
func (c *Client) ListProjects(ctx context.Context, opts ListProjectsOptions) ([]Project, error) {
	limit := opts.PageSize
	if limit <= 0 || limit > 400 {
		limit = 400
	}
	var all []Project
	cursor := ""
	seen := map[string]bool{}
	for page := 0; page < maxPages; page++ {
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if opts.Search != "" {
			q.Set("search", opts.Search)
		}
		var out listProjectsResponse
		if err := c.do(ctx, call{method: http.MethodGet, route: "projects", path: "projects", query: q, out: &out}); err != nil {
			return nil, err
		}
		all = append(all, out.Projects...)
		if len(out.Projects) == 0 || out.Pagination == nil || out.Pagination.Cursor == "" {
			return all, nil
		}
		if seen[out.Pagination.Cursor] {
			return nil, fmt.Errorf("GET /projects: the API returned cursor %q twice; stopping to avoid an endless loop", out.Pagination.Cursor)
		}
		seen[out.Pagination.Cursor] = true
		cursor = out.Pagination.Cursor
	}
	return nil, fmt.Errorf("GET /projects: more than %d pages", maxPages)
}

// ListBranches lists a project's branches.
func (c *Client) ListBranches(ctx context.Context, projectID string) ([]Branch, error) {
	var out listBranchesResponse
	err := c.do(ctx, call{method: http.MethodGet, route: "projects/{project_id}/branches", path: "projects/" + pathEscape(projectID) + "/branches", out: &out})
	if err != nil {
		return nil, err
	}
	return out.Branches, nil
}

// DefaultBranch returns the project's production branch: the one whose
// `default` flag is true.
func (c *Client) DefaultBranch(ctx context.Context, projectID string) (*Branch, error) {
	branches, err := c.ListBranches(ctx, projectID)
	if err != nil {
		return nil, err
	}
	for i := range branches {
		if branches[i].Default {
			return &branches[i], nil
		}
	}
	return nil, fmt.Errorf("project %s has no branch marked default among its %d branches", projectID, len(branches))
}
