package apiclient

import (
	"context"
	"net/http"
)

func domainsPath(projectID string) string {
	return "projects/" + pathEscape(projectID) + "/auth/domains"
}

const domainsRoute = "projects/{project_id}/auth/domains"

// ListDomains lists the redirect URI whitelist of a project (endpoint 12).
func (c *Client) ListDomains(ctx context.Context, projectID string) ([]Domain, error) {
	var out listDomainsResponse
	if err := c.do(ctx, call{method: http.MethodGet, route: domainsRoute, path: domainsPath(projectID), out: &out}); err != nil {
		return nil, err
	}
	return out.Domains, nil
}

// AddDomain adds a domain to the whitelist (endpoint 13).
func (c *Client) AddDomain(ctx context.Context, projectID string, req AddDomainRequest) error {
	return c.do(ctx, call{method: http.MethodPost, route: domainsRoute, path: domainsPath(projectID), body: req})
}

// DeleteDomains removes domains from the whitelist (endpoint 14).
func (c *Client) DeleteDomains(ctx context.Context, projectID string, req DeleteDomainsRequest) error {
	return c.do(ctx, call{method: http.MethodDelete, route: domainsRoute, path: domainsPath(projectID), body: req})
}
