package apiclient

import (
	"context"
	"net/http"
)

func oauthProvidersPath(projectID string) string {
	return "projects/" + pathEscape(projectID) + "/auth/oauth_providers"
}

// ListOAuthProviders lists a project's OAuth providers, with id and type only
// (endpoint 8).
func (c *Client) ListOAuthProviders(ctx context.Context, projectID string) ([]OAuthProvider, error) {
	var out listOAuthProvidersResponse
	err := c.do(ctx, call{method: http.MethodGet, route: "projects/{project_id}/auth/oauth_providers", path: oauthProvidersPath(projectID), out: &out})
	if err != nil {
		return nil, err
	}
	return out.Providers, nil
}

// AddOAuthProvider adds an OAuth provider (endpoint 9). Without client
// credentials the provider uses the platform's shared keys.
func (c *Client) AddOAuthProvider(ctx context.Context, projectID string, req AddOAuthProviderRequest) (*OAuthProvider, error) {
	var out OAuthProvider
	err := c.do(ctx, call{method: http.MethodPost, route: "projects/{project_id}/auth/oauth_providers", path: oauthProvidersPath(projectID), body: req, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateOAuthProvider sets an OAuth provider's client credentials
// (endpoint 10), which makes it `standard`.
func (c *Client) UpdateOAuthProvider(ctx context.Context, projectID, providerID string, req UpdateOAuthProviderRequest) (*OAuthProvider, error) {
	var out OAuthProvider
	err := c.do(ctx, call{
		method: http.MethodPatch,
		route:  "projects/{project_id}/auth/oauth_providers/{oauth_provider_id}",
		path:   oauthProvidersPath(projectID) + "/" + pathEscape(providerID),
		body:   req,
		out:    &out,
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteOAuthProvider removes an OAuth provider (endpoint 11).
func (c *Client) DeleteOAuthProvider(ctx context.Context, projectID, providerID string) error {
	return c.do(ctx, call{
		method: http.MethodDelete,
		route:  "projects/{project_id}/auth/oauth_providers/{oauth_provider_id}",
		path:   oauthProvidersPath(projectID) + "/" + pathEscape(providerID),
	})
}
