package apiclient

import (
	"context"
	"net/http"
)

// Settings of a branch's Neon Auth that only the branch-scoped endpoints
// offer. Each write sets a whole value (or the fields it names), so sending
// it again after a lost answer is harmless.

// getBranchOnly reads a branch-scoped settings endpoint into out.
func (c *Client) getBranchOnly(ctx context.Context, s Scope, what string, ep endpoint, out any) error {
	if err := s.branchOnly(what); err != nil {
		return err
	}
	return c.do(ctx, call{method: http.MethodGet, ep: ep, out: out})
}

// setBranchOnly sends a branch-scoped settings write and decodes the answer.
func (c *Client) setBranchOnly(ctx context.Context, s Scope, what, method string, ep endpoint, body, out any) error {
	if err := s.branchOnly(what); err != nil {
		return err
	}
	_, err := c.write(ctx, writeCall{call: call{method: method, ep: ep, body: body, out: out}, rule: resendFreely})
	return err
}

// SetIntegrationName sets the application name used in auth emails: PATCH
// /projects/{project_id}/branches/{branch_id}/auth/config.
func (c *Client) SetIntegrationName(ctx context.Context, s Scope, name string) (string, error) {
	var out struct {
		Name string `json:"name"`
	}
	body := struct {
		Name string `json:"name"`
	}{name}
	err := c.setBranchOnly(ctx, s, "The integration name", http.MethodPatch, s.auth().sub("config"), body, &out)
	return out.Name, err
}

type allowLocalhost struct {
	AllowLocalhost bool `json:"allow_localhost"`
}

// GetAllowLocalhost reads whether localhost origins are allowed: GET
// …/branches/{branch_id}/auth/allow_localhost.
func (c *Client) GetAllowLocalhost(ctx context.Context, s Scope) (bool, error) {
	var out allowLocalhost
	err := c.getBranchOnly(ctx, s, "allow_localhost", s.auth().sub("allow_localhost"), &out)
	return out.AllowLocalhost, err
}

// SetAllowLocalhost sets whether localhost origins are allowed: PATCH
// …/branches/{branch_id}/auth/allow_localhost.
func (c *Client) SetAllowLocalhost(ctx context.Context, s Scope, allow bool) (bool, error) {
	var out allowLocalhost
	err := c.setBranchOnly(ctx, s, "allow_localhost", http.MethodPatch, s.auth().sub("allow_localhost"), allowLocalhost{allow}, &out)
	return out.AllowLocalhost, err
}
