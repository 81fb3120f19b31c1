package apiclient

import (
	"context"
	"net/http"
)

// emailEndpoint is GET/PATCH /projects/{project_id}/auth/email_server, or its
// successor …/branches/{branch_id}/auth/email_provider.
func emailEndpoint(s Scope) endpoint {
	if s.Family == FamilyBranch {
		return s.auth().sub("email_provider")
	}
	return s.auth().sub("email_server")
}

// GetEmailServer reads the scope's email server configuration. A shared
// configuration carries only Type; a password comes back masked, if at all.
// The branch endpoint answers 404 when no email provider is configured.
func (c *Client) GetEmailServer(ctx context.Context, s Scope) (*EmailServer, error) {
	var out EmailServer
	if err := c.do(ctx, call{method: http.MethodGet, ep: emailEndpoint(s), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateEmailServer replaces the scope's email server configuration. It sets
// the whole value, so sending it again is harmless.
func (c *Client) UpdateEmailServer(ctx context.Context, s Scope, req EmailServer) (*EmailServer, error) {
	var out EmailServer
	_, err := c.write(ctx, writeCall{call: call{method: http.MethodPatch, ep: emailEndpoint(s), body: req, out: &out}, rule: resendFreely})
	if err != nil {
		return nil, err
	}
	return &out, nil
}
