package apiclient

import (
	"context"
	"net/http"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Settings of a branch's Neon Auth integration that only the branch-scoped
// endpoints offer: its name and allow_localhost. Each write sets a whole
// value, so sending it again after a lost answer is harmless.

// SetIntegrationName sets the application name used in auth emails: PATCH
// /projects/{project_id}/branches/{branch_id}/auth/config.
func (c *Client) SetIntegrationName(ctx context.Context, s Scope, name string) (string, error) {
	var out neonapi.NeonAuthConfigResponse
	err := c.setBranchOnly(ctx, s, "The integration name", http.MethodPatch, s.auth().sub("config"), neonapi.NeonAuthConfigUpdate{Name: name}, &out)
	return out.Name, err
}

// GetAllowLocalhost reads whether localhost origins are allowed: GET
// …/branches/{branch_id}/auth/allow_localhost.
func (c *Client) GetAllowLocalhost(ctx context.Context, s Scope) (bool, error) {
	var out neonapi.NeonAuthAllowLocalhostResponse
	err := c.getBranchOnly(ctx, s, "allow_localhost", s.auth().sub("allow_localhost"), &out)
	return out.AllowLocalhost, err
}

// SetAllowLocalhost sets whether localhost origins are allowed: PATCH
// …/branches/{branch_id}/auth/allow_localhost.
func (c *Client) SetAllowLocalhost(ctx context.Context, s Scope, allow bool) (bool, error) {
	var out neonapi.NeonAuthAllowLocalhostResponse
	err := c.setBranchOnly(ctx, s, "allow_localhost", http.MethodPatch, s.auth().sub("allow_localhost"),
		neonapi.UpdateNeonAuthAllowLocalhostRequest{AllowLocalhost: allow}, &out)
	return out.AllowLocalhost, err
}
