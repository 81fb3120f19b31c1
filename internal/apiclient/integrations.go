package apiclient

import (
	"context"
	"net/http"
)

// CreateIntegration creates the managed auth project of a database project
// (endpoint 1, POST /projects/auth/create). The returned credentials are the
// only time the API hands out the keys of this integration.
func (c *Client) CreateIntegration(ctx context.Context, req CreateIntegrationRequest) (*IntegrationCredentials, error) {
	var out IntegrationCredentials
	err := c.do(ctx, call{method: http.MethodPost, route: "projects/auth/create", path: "projects/auth/create", body: req, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ListIntegrations lists the active integrations of a project (endpoint 2).
func (c *Client) ListIntegrations(ctx context.Context, projectID string) ([]Integration, error) {
	var out listIntegrationsResponse
	err := c.do(ctx, call{
		method: http.MethodGet,
		route:  "projects/{project_id}/auth/integrations",
		path:   "projects/" + pathEscape(projectID) + "/auth/integrations",
		out:    &out,
	})
	if err != nil {
		return nil, err
	}
	return out.Data, nil
}

// CreateSDKKeys mints a new key pair for a project's integration (endpoint 3).
func (c *Client) CreateSDKKeys(ctx context.Context, req SDKKeysRequest) (*IntegrationCredentials, error) {
	var out IntegrationCredentials
	err := c.do(ctx, call{method: http.MethodPost, route: "projects/auth/keys", path: "projects/auth/keys", body: req, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteIntegration removes a project's integration with an auth provider
// (endpoint 4). The body is sent only when it asks for something.
func (c *Client) DeleteIntegration(ctx context.Context, projectID, authProvider string, opts DeleteIntegrationRequest) error {
	var body any
	if opts.DeleteData {
		body = opts
	}
	return c.do(ctx, call{
		method: http.MethodDelete,
		route:  "projects/{project_id}/auth/integration/{auth_provider}",
		path:   "projects/" + pathEscape(projectID) + "/auth/integration/" + pathEscape(authProvider),
		body:   body,
	})
}

// CreateUser creates a user at the auth provider (endpoint 5).
func (c *Client) CreateUser(ctx context.Context, req CreateUserRequest) (*User, error) {
	var out User
	err := c.do(ctx, call{method: http.MethodPost, route: "projects/auth/user", path: "projects/auth/user", body: req, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteUser deletes a user at the auth provider (endpoint 6).
func (c *Client) DeleteUser(ctx context.Context, projectID, userID string) error {
	return c.do(ctx, call{
		method: http.MethodDelete,
		route:  "projects/{project_id}/auth/users/{auth_user_id}",
		path:   "projects/" + pathEscape(projectID) + "/auth/users/" + pathEscape(userID),
	})
}

// TransferOwnership requests the transfer of the managed auth project to the
// caller's own provider account (endpoint 7). The URL must be opened in a
// browser to confirm.
func (c *Client) TransferOwnership(ctx context.Context, req TransferOwnershipRequest) (*TransferOwnership, error) {
	var out TransferOwnership
	err := c.do(ctx, call{method: http.MethodPost, route: "projects/auth/transfer_ownership", path: "projects/auth/transfer_ownership", body: req, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}
