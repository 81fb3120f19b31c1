package apiclient

import (
	"context"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// OAuth providers of a scope: list, add, update and delete, a list-backed
// endpoint (AuthList).

// oauthProviders is the endpoint of a scope's OAuth providers, with id and
// type only in its list.
var oauthProviders = AuthList[neonapi.ListNeonAuthOauthProvidersResponse, OAuthProvider]{
	Path: "oauth_providers", Param: "oauth_provider_id",
	Items: func(l neonapi.ListNeonAuthOauthProvidersResponse) []OAuthProvider {
		ps := make([]OAuthProvider, len(l.Providers))
		for i, p := range l.Providers {
			ps[i] = OAuthProvider{NeonAuthOauthProvider: p}
		}
		return ps
	},
	Key: func(p OAuthProvider) string { return string(p.ID) },
}

// ListOAuthProviders lists the scope's OAuth providers, with id and type only:
// GET …/auth/oauth_providers.
func (c *Client) ListOAuthProviders(ctx context.Context, s Scope) ([]OAuthProvider, error) {
	return oauthProviders.List(c, ctx, s)
}

// AddOAuthProvider adds an OAuth provider: POST …/auth/oauth_providers.
// Without client credentials it uses the platform's shared keys. When the
// answer is lost, a fresh list decides; a provider found there is returned
// with Recovered set (id and type only; id only after a 409 to a re-send).
func (c *Client) AddOAuthProvider(ctx context.Context, s Scope, req AddOAuthProviderRequest) (*OAuthProvider, error) {
	p, recovered, err := oauthProviders.Add(c, ctx, s, string(req.ID), req)
	if err != nil || !recovered {
		return p, err
	}
	if p == nil {
		p = &OAuthProvider{}
		p.ID = req.ID
	}
	p.Recovered = true
	return p, nil
}

// UpdateOAuthProvider sets an OAuth provider's client credentials, which makes
// it `standard`: PATCH …/auth/oauth_providers/{oauth_provider_id}. Setting
// them again is harmless.
func (c *Client) UpdateOAuthProvider(ctx context.Context, s Scope, providerID string, req UpdateOAuthProviderRequest) (*OAuthProvider, error) {
	return oauthProviders.Update(c, ctx, s, providerID, req)
}

// DeleteOAuthProvider removes an OAuth provider: DELETE
// …/auth/oauth_providers/{oauth_provider_id}. When the answer is lost, a
// fresh list decides.
func (c *Client) DeleteOAuthProvider(ctx context.Context, s Scope, providerID string) error {
	return oauthProviders.Delete(c, ctx, s, providerID)
}
