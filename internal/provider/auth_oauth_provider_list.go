package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The neon_auth_oauth_provider list resource: the OAuth providers of a
// project's branches.

var _ list.ListResourceWithConfigure = (*authOAuthProviderList)(nil)

// NewAuthOAuthProviderList finds the neon_auth_oauth_provider objects of a
// project.
func NewAuthOAuthProviderList() list.ListResource {
	return &authOAuthProviderList{authOAuthProviderResource{configured: configuredAs(typeAuthOAuthProvider)}}
}

// authOAuthProviderList is the list resource of neon_auth_oauth_provider:
// every OAuth provider, named by its id and its branch.
type authOAuthProviderList struct{ authOAuthProviderResource }

func (l *authOAuthProviderList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listConfigSchema("the OAuth providers")
}

func (l *authOAuthProviderList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	l.list(ctx, &l.authOAuthProviderResource, req, stream, func(ctx context.Context, s listScope) ([]foundObject, error) {
		ps, err := l.data.auth.OAuthProviders(ctx, s.Scope)
		return keyed(s, ps, err, func(p apiclient.OAuthProvider) string { return string(p.ID) })
	})
}
