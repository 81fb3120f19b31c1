package apiclient

import (
	"context"
	"net/http"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The email server (email provider) of a scope: read, update and the test-email endpoints.

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

// SendTestEmail sends a test email to recipient through the email provider
// saved on the branch: POST …/branches/{branch_id}/auth/email_provider/test.
// The API refuses it (400) when the provider is shared, when none is
// configured, or when the integration is not Better Auth. A test email is
// never sent blindly twice: an unknown outcome is returned as such.
func (c *Client) SendTestEmail(ctx context.Context, s Scope, recipient string) (*TestEmailResult, error) {
	if err := s.branchOnly("Testing the saved email provider"); err != nil {
		return nil, err
	}
	var out TestEmailResult
	body := neonapi.SendNeonAuthEmailProviderTestJSONBody{RecipientEmail: openapi_types.Email(recipient)}
	if _, err := c.write(ctx, writeCall{call: call{method: http.MethodPost, ep: s.auth().sub("email_provider").sub("test"), body: body, out: &out}, rule: neverResend}); err != nil {
		return nil, err
	}
	return &out, nil
}

// SendTestEmailWith sends a test email to recipient through cfg, a whole
// standard configuration that need not be saved (nor is): the deprecated
// POST …/branches/{branch_id}/auth/send_test_email, which also serves
// integrations other than Better Auth.
func (c *Client) SendTestEmailWith(ctx context.Context, s Scope, cfg EmailServer, recipient string) (*TestEmailResult, error) {
	if err := s.branchOnly("Sending a test email"); err != nil {
		return nil, err
	}
	var out TestEmailResult
	body := neonapi.SendNeonAuthTestEmailJSONBody{Host: Deref(cfg.Host), Port: Deref(cfg.Port), Username: Deref(cfg.Username),
		Password: Deref(cfg.Password), SenderEmail: Deref(cfg.SenderEmail), SenderName: Deref(cfg.SenderName),
		RecipientEmail: openapi_types.Email(recipient)}
	if _, err := c.write(ctx, writeCall{call: call{method: http.MethodPost, ep: s.auth().sub("send_test_email"), body: body, out: &out}, rule: neverResend}); err != nil {
		return nil, err
	}
	return &out, nil
}
