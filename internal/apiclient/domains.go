package apiclient

import (
	"context"
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Trusted domains (the redirect URI whitelist): list, add and delete, in both endpoint families.

// ListDomains lists the redirect URI whitelist of the scope: GET
// /projects/{project_id}/auth/domains or its branch-scoped successor.
func (c *Client) ListDomains(ctx context.Context, s Scope) ([]Domain, error) {
	var out neonapi.NeonAuthRedirectURIWhitelistResponse
	if err := c.do(ctx, call{method: http.MethodGet, ep: s.auth().sub("domains"), out: &out}); err != nil {
		return nil, err
	}
	return out.Domains, nil
}

// AddDomain adds a domain to the whitelist: POST …/auth/domains. When the
// answer is lost, a fresh list decides; recovered reports a domain that was
// added although the answer was lost.
func (c *Client) AddDomain(ctx context.Context, s Scope, req AddDomainRequest) (recovered bool, err error) {
	return c.write(ctx, writeCall{
		call: call{method: http.MethodPost, ep: s.auth().sub("domains"), body: req},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			listed, err := c.listedDomains(ctx, s, string(req.AuthProvider), req.Domain)
			return len(listed) == 1, err
		},
	})
}

// DeleteDomains removes domains from the whitelist in one request: DELETE
// …/auth/domains with all of them. When the answer is lost, a fresh list
// decides.
func (c *Client) DeleteDomains(ctx context.Context, s Scope, authProvider string, domains []string) error {
	body := neonapi.NeonAuthDeleteDomainFromRedirectURIWhitelistRequest{AuthProvider: neonapi.NeonAuthSupportedAuthProvider(authProvider)}
	for _, d := range domains {
		body.Domains = append(body.Domains, neonapi.NeonAuthDeleteDomainFromRedirectURIWhitelistItem{Domain: d})
	}
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodDelete, ep: s.auth().sub("domains"), body: body},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			listed, err := c.listedDomains(ctx, s, authProvider, domains...)
			return len(listed) == 0, err
		},
	})
	return err
}

// listedDomains reads the whitelist afresh and returns which of the domains
// it holds for the auth provider, compared in canonical form.
func (c *Client) listedDomains(ctx context.Context, s Scope, authProvider string, domains ...string) ([]string, error) {
	list, err := c.ListDomains(ctx, s)
	if err != nil {
		return nil, err
	}
	var listed []string
	for _, d := range domains {
		if slices.ContainsFunc(list, func(l Domain) bool {
			return (l.AuthProvider == "" || string(l.AuthProvider) == authProvider) && SameOrigin(l.Domain, d)
		}) {
			listed = append(listed, d)
		}
	}
	return listed, nil
}
