package apiclient

import (
	"context"
	"net/http"
)

const emailServerRoute = "projects/{project_id}/auth/email_server"

func emailServerPath(projectID string) string {
	return "projects/" + pathEscape(projectID) + "/auth/email_server"
}

// GetEmailServer reads a project's email server configuration (endpoint 15).
// A shared configuration carries only Type.
func (c *Client) GetEmailServer(ctx context.Context, projectID string) (*EmailServer, error) {
	var out EmailServer
	if err := c.do(ctx, call{method: http.MethodGet, route: emailServerRoute, path: emailServerPath(projectID), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateEmailServer replaces a project's email server configuration
// (endpoint 16).
func (c *Client) UpdateEmailServer(ctx context.Context, projectID string, req EmailServer) (*EmailServer, error) {
	var out EmailServer
	if err := c.do(ctx, call{method: http.MethodPatch, route: emailServerRoute, path: emailServerPath(projectID), body: req, out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}
