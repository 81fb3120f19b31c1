package apiclient

import (
	"context"
	"errors"
	"net/http"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Neon Auth integrations: enable, list, disable, SDK keys and the ownership transfer.

// CreateIntegration enables Neon Auth on the scope: POST /projects/auth/create
// (project family, on the production branch named by s.BranchID) or POST
// /projects/{project_id}/branches/{branch_id}/auth. The returned credentials
// are the only time the API hands out the keys of this integration.
//
// When the answer is lost, a fresh list decides: an integration of that auth
// provider that is now there is recovered, and returned with Recovered set and
// without keys. So is one that a re-send finds there (409) because the read
// had not shown it yet. A 409 to the first attempt is returned: the branch
// had Neon Auth before.
func (c *Client) CreateIntegration(ctx context.Context, s Scope, req CreateIntegrationRequest) (*IntegrationCredentials, error) {
	provider := neonapi.NeonAuthSupportedAuthProvider(req.AuthProvider)
	var body any = neonapi.EnableNeonAuthIntegrationRequest{AuthProvider: provider, DatabaseName: Optional(req.DatabaseName)}
	ep := s.auth()
	if s.Family == FamilyProject {
		ep = projectsEndpoint.sub("auth").sub("create")
		// role_name is deprecated (and ignored) but still accepted: the
		// project-level family keeps sending what it always sent.
		body = neonapi.NeonAuthCreateIntegrationRequest{AuthProvider: provider, ProjectID: s.ProjectID, BranchID: s.BranchID,
			DatabaseName: Optional(req.DatabaseName), RoleName: Optional(req.RoleName)} //nolint:staticcheck // see above
	}
	var out IntegrationCredentials
	var found *Integration
	recovered, err := c.write(ctx, writeCall{
		call: call{method: http.MethodPost, ep: ep, body: body, out: &out},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			it, err := c.findIntegration(ctx, s, req.AuthProvider)
			found = it
			return it != nil, err
		},
	})
	if err != nil {
		return nil, err
	}
	if recovered {
		if found == nil {
			// Recovered on a 409 to a re-send: read it once more for what an
			// integration lists (a failure leaves that to the caller's read).
			found, _ = c.findIntegration(ctx, s, req.AuthProvider)
		}
		recovered := &IntegrationCredentials{Recovered: true}
		recovered.AuthProvider = provider
		if found != nil {
			recovered.AuthProvider, recovered.AuthProviderProjectID = found.AuthProvider, found.AuthProviderProjectID
			recovered.JWKSURL, recovered.BaseURL = found.JWKSURL, found.BaseURL
		}
		return recovered, nil
	}
	return &out, nil
}

// ListIntegrations lists the integrations of the scope: GET
// /projects/{project_id}/auth/integrations (the production branch's), or GET
// /projects/{project_id}/branches/{branch_id}/auth as a list of one. The
// branch endpoint answers 404 when Neon Auth is not enabled on the branch —
// and also when the branch or project cannot be seen; only the caller can
// tell which (see the provider's absence check).
func (c *Client) ListIntegrations(ctx context.Context, s Scope) ([]Integration, error) {
	if s.Family == FamilyBranch {
		var it Integration
		if err := c.do(ctx, call{method: http.MethodGet, ep: s.auth(), out: &it}); err != nil {
			return nil, err
		}
		return []Integration{it}, nil
	}
	var out neonapi.ListNeonAuthIntegrationsResponse
	if err := c.do(ctx, call{method: http.MethodGet, ep: s.auth().sub("integrations"), out: &out}); err != nil {
		return nil, err
	}
	return out.Data, nil
}

// findIntegration reads afresh the scope's integration with an auth provider;
// nil when the scope has none (for the branch family, a 404 counts as none:
// the read-back of a write just sent to that branch).
func (c *Client) findIntegration(ctx context.Context, s Scope, authProvider string) (*Integration, error) {
	its, err := c.ListIntegrations(ctx, s)
	if err != nil {
		if s.Family == FamilyBranch && errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	for i := range its {
		if string(its[i].AuthProvider) == authProvider {
			return &its[i], nil
		}
	}
	return nil, nil
}

// DeleteIntegration disables Neon Auth on the scope: DELETE
// /projects/{project_id}/auth/integration/{auth_provider} or DELETE
// /projects/{project_id}/branches/{branch_id}/auth. The body is sent only
// when it asks for something (deleteData: drop the neon_auth schema too).
// When the answer is lost, a fresh list decides.
func (c *Client) DeleteIntegration(ctx context.Context, s Scope, authProvider string, deleteData bool) error {
	ep := s.auth()
	if s.Family == FamilyProject {
		ep = ep.sub("integration").param("auth_provider", authProvider)
	}
	var body any
	if deleteData {
		body = neonapi.DisableNeonAuthJSONBody{DeleteData: Ptr(true)}
	}
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodDelete, ep: ep, body: body},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			it, err := c.findIntegration(ctx, s, authProvider)
			return it == nil, err
		},
	})
	return err
}

// CreateSDKKeys mints a new key pair for the integration of the project's
// production branch: POST /projects/auth/keys, which has no branch-scoped
// successor. Minting cannot be read back, so a lost answer is returned as
// ErrOutcomeUnknown and never sent again.
func (c *Client) CreateSDKKeys(ctx context.Context, s Scope, authProvider string) (*IntegrationCredentials, error) {
	var out IntegrationCredentials
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodPost, ep: projectsEndpoint.sub("auth").sub("keys"),
			body: neonapi.NeonAuthCreateAuthProviderSDKKeysRequest{ProjectID: s.ProjectID, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(authProvider)}, out: &out},
		rule: neverResend,
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// TransferOwnership requests the transfer of the managed auth project of the
// production branch to the caller's own provider account: POST
// /projects/auth/transfer_ownership, which has no branch-scoped successor.
// The URL must be opened in a browser to confirm. Asking again only issues a
// new link, so a lost answer is asked again.
func (c *Client) TransferOwnership(ctx context.Context, s Scope, authProvider string) (*TransferOwnership, error) {
	var out TransferOwnership
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodPost, ep: projectsEndpoint.sub("auth").sub("transfer_ownership"),
			body: neonapi.NeonAuthTransferAuthProviderProjectRequest{ProjectID: s.ProjectID, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(authProvider)}, out: &out},
		rule: resendFreely,
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}
