package apiclient

import (
	"context"
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// OAuth providers of a scope: list, add, update and delete.

func oauthEndpoint(s Scope) endpoint { return s.auth().sub("oauth_providers") }

// ListOAuthProviders lists the scope's OAuth providers, with id and type only:
// GET …/auth/oauth_providers.
func (c *Client) ListOAuthProviders(ctx context.Context, s Scope) ([]OAuthProvider, error) {
	var out neonapi.ListNeonAuthOauthProvidersResponse
	if err := c.do(ctx, call{method: http.MethodGet, ep: oauthEndpoint(s), out: &out}); err != nil {
		return nil, err
	}
	ps := make([]OAuthProvider, len(out.Providers))
	for i, p := range out.Providers {
		ps[i] = OAuthProvider{NeonAuthOauthProvider: p}
	}
	return ps, nil
}

// AddOAuthProvider adds an OAuth provider: POST …/auth/oauth_providers.
// Without client credentials it uses the platform's shared keys. When the
// answer is lost, a fresh list decides; a provider found there is returned
// with Recovered set (id and type only).
func (c *Client) AddOAuthProvider(ctx context.Context, s Scope, req AddOAuthProviderRequest) (*OAuthProvider, error) {
	var out OAuthProvider
	var listed *OAuthProvider
	recovered, err := c.write(ctx, writeCall{
		call: call{method: http.MethodPost, ep: oauthEndpoint(s), body: req, out: &out},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			ps, err := c.ListOAuthProviders(ctx, s)
			if i := slices.IndexFunc(ps, func(p OAuthProvider) bool { return p.ID == req.ID }); i >= 0 {
				listed = &ps[i]
			}
			return listed != nil, err
		},
	})
	if err != nil {
		return nil, err
	}
	if recovered {
		if listed == nil {
			// Recovered on a 409 to a re-send.
			listed = &OAuthProvider{}
			listed.ID = req.ID
		}
		listed.Recovered = true
		return listed, nil
	}
	return &out, nil
}

// UpdateOAuthProvider sets an OAuth provider's client credentials, which makes
// it `standard`: PATCH …/auth/oauth_providers/{oauth_provider_id}. Setting
// them again is harmless.
func (c *Client) UpdateOAuthProvider(ctx context.Context, s Scope, providerID string, req UpdateOAuthProviderRequest) (*OAuthProvider, error) {
	var out OAuthProvider
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodPatch, ep: oauthEndpoint(s).param("oauth_provider_id", providerID), body: req, out: &out},
		rule: resendFreely,
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteOAuthProvider removes an OAuth provider: DELETE
// …/auth/oauth_providers/{oauth_provider_id}. When the answer is lost, a
// fresh list decides.
func (c *Client) DeleteOAuthProvider(ctx context.Context, s Scope, providerID string) error {
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodDelete, ep: oauthEndpoint(s).param("oauth_provider_id", providerID)},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			ps, err := c.ListOAuthProviders(ctx, s)
			return !slices.ContainsFunc(ps, func(p OAuthProvider) bool { return string(p.ID) == providerID }), err
		},
	})
	return err
}
