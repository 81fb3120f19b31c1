package emulator

import (
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The handlers of the OAuth providers of a branch's Neon Auth.

// oauthSettings are the writable fields of an OAuth provider.
type oauthSettings struct {
	clientID, secret string
	credentials      bool // client_id and client_secret given
	tenant           string
	hasTenant        bool
}

// parseOAuthSettings reads the writable fields of a provider (the fields of
// NeonAuthUpdateOAuthProviderRequest, which NeonAuthAddOAuthProviderRequest
// has too): client_id and client_secret, which must be given together (both
// non-empty) or not at all, and microsoft_tenant_id, only for the microsoft
// provider.
func parseOAuthSettings(req neonapi.NeonAuthUpdateOAuthProviderRequest, providerID string) (oauthSettings, error) {
	var s oauthSettings
	err := firstError(notEmpty("client_id", req.ClientID), notEmpty("client_secret", req.ClientSecret), notEmpty("microsoft_tenant_id", req.MicrosoftTenantID))
	switch {
	case err != nil:
		return s, err
	case req.ClientID != nil && req.ClientSecret == nil:
		return s, invalid("client_secret", "is required when client_id is given")
	case req.ClientSecret != nil && req.ClientID == nil:
		return s, invalid("client_id", "is required when client_secret is given")
	}
	s.clientID, _ = deref(req.ClientID)
	s.secret, s.credentials = deref(req.ClientSecret)
	s.tenant, s.hasTenant = deref(req.MicrosoftTenantID)
	if s.hasTenant && providerID != oauthMicrosoft {
		return s, invalid("microsoft_tenant_id", "is only for the %s provider", oauthMicrosoft)
	}
	return s, nil
}

var errOAuthProviderNotFound = &apiError{status: http.StatusNotFound, msg: "OAuth provider not found"}

// listOAuthProviders serves GET .../auth/oauth_providers of both families.
// The project-level list never shows credentials; the branch-scoped one
// shows a standard provider's client_id and client_secret, as the live
// service can (the MCP server redacts them from what it lists).
func (e *Emulator) listOAuthProviders(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		return neonapi.ListNeonAuthOauthProvidersResponse{Providers: oauthViews(branchFamily(c), a.OAuthProviders...)}, nil
	})
}

// codeInvalidSharedOAuthProvider is the API's error code for a provider
// added without credentials that has no shared keys (neon CLI 5.0.1).
const codeInvalidSharedOAuthProvider = "INVALID_SHARED_OAUTH_PROVIDER"

func (e *Emulator) hasSharedKeys(id string) bool {
	return len(e.sharedOAuth) == 0 || slices.Contains(e.sharedOAuth, id)
}

// sameOAuthProvider reports whether an add asks for what is stored: the
// branch-scoped API answers such a re-add 200, idempotently.
func sameOAuthProvider(p OAuthProvider, set oauthSettings) bool {
	if p.MicrosoftTenantID != set.tenant {
		return false
	}
	if !set.credentials {
		return p.Type == oauthShared
	}
	return p.Type == oauthStandard && p.ClientID == set.clientID && p.ClientSecret == set.secret
}

// addOAuthProvider serves POST .../auth/oauth_providers. Without credentials
// the provider uses shared keys (type "shared"; 400 INVALID_SHARED_OAUTH_PROVIDER
// for one without), with them "standard". Answers 200; a branch-scoped
// re-add of the same settings answers 200 again, other settings 409.
func (e *Emulator) addOAuthProvider(c *call) error {
	var req neonapi.NeonAuthAddOAuthProviderRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	id := string(req.ID)
	set, err := parseOAuthSettings(neonapi.NeonAuthUpdateOAuthProviderRequest{ClientID: req.ClientID, ClientSecret: req.ClientSecret,
		MicrosoftTenantID: req.MicrosoftTenantID}, id)
	if err != nil {
		return err
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		if i := a.oauthProvider(id); i >= 0 {
			if branchFamily(c) && sameOAuthProvider(a.OAuthProviders[i], set) {
				return oauthViews(true, a.OAuthProviders[i])[0], nil
			}
			return nil, conflict("OAuth provider %s already exists", id)
		}
		if !set.credentials && !e.hasSharedKeys(id) {
			return nil, &apiError{status: http.StatusBadRequest, code: codeInvalidSharedOAuthProvider,
				msg: id + " has no shared OAuth credentials: provide client_id and client_secret of your own OAuth app"}
		}
		p := OAuthProvider{ID: id, Type: oauthShared, MicrosoftTenantID: set.tenant}
		if set.credentials {
			p.Type, p.ClientID, p.ClientSecret = oauthStandard, set.clientID, set.secret
		}
		a.OAuthProviders = append(a.OAuthProviders, p)
		return oauthViews(true, p)[0], nil
	})
}

// updateOAuthProvider serves PATCH .../auth/oauth_providers/{oauth_provider_id}:
// own credentials (both required) make the provider "standard"; the tenant
// id of microsoft can be set alone.
func (e *Emulator) updateOAuthProvider(c *call) error {
	var req neonapi.NeonAuthUpdateOAuthProviderRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	id := c.param("oauth_provider_id")
	set, err := parseOAuthSettings(req, id)
	if err != nil {
		return err
	}
	if !set.credentials && !set.hasTenant {
		return invalid("client_id", "is required")
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		i := a.oauthProvider(id)
		if i < 0 {
			return nil, errOAuthProviderNotFound
		}
		p := &a.OAuthProviders[i]
		if set.credentials {
			p.Type, p.ClientID, p.ClientSecret = oauthStandard, set.clientID, set.secret
		}
		if set.hasTenant {
			p.MicrosoftTenantID = set.tenant
		}
		return oauthViews(true, *p)[0], nil
	})
}

// deleteOAuthProvider serves DELETE .../auth/oauth_providers/{oauth_provider_id}:
// 200 without body (204 with DeviationOAuthProviderDelete204). The
// branch-scoped API answers so for a provider that is not there too (the
// project-level one 404).
func (e *Emulator) deleteOAuthProvider(c *call) error {
	status := http.StatusOK
	if e.deviates(DeviationOAuthProviderDelete204) {
		status = http.StatusNoContent
	}
	return e.changeAuth(c, status, func(_ authScope, a *BranchAuth) (any, error) {
		i := a.oauthProvider(c.param("oauth_provider_id"))
		if i < 0 && branchFamily(c) {
			return nil, nil
		}
		if i < 0 {
			return nil, errOAuthProviderNotFound
		}
		a.OAuthProviders = slices.Delete(a.OAuthProviders, i, i+1)
		return nil, nil
	})
}
