package emulator

import (
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The OAuth providers of a branch's Neon Auth, in both families, as a
// list-backed kind (listed.go): shared keys or the caller's own
// credentials, the Microsoft tenant, and how the API shows them.

var oauthProvidersKind = listedKind[OAuthProvider, neonapi.NeonAuthAddOAuthProviderRequest, neonapi.NeonAuthUpdateOAuthProviderRequest]{
	path:         "oauth_providers",
	itemParam:    "oauth_provider_id",
	projectLevel: true,
	field:        func(a *BranchAuth) *[]OAuthProvider { return &a.OAuthProviders },
	id:           func(p OAuthProvider) string { return p.ID },
	// The project-level list never shows credentials; the branch-scoped
	// one shows a standard provider's client_id and client_secret, as
	// the live service can (the MCP server redacts them from what it
	// lists). Adds and updates answer with them.
	listed: func(c *call, ps []OAuthProvider) any {
		return neonapi.ListNeonAuthOauthProvidersResponse{Providers: oauthViews(branchFamily(c), ps...)}
	},
	shown: func(p OAuthProvider) any { return oauthViews(true, p)[0] },
	// Without credentials the provider uses shared keys (type "shared";
	// 400 INVALID_SHARED_OAUTH_PROVIDER for one without), with them
	// "standard". A branch-scoped re-add of the same settings answers
	// 200 again, other settings 409.
	asked:     addedOAuthProvider,
	addStatus: http.StatusOK,
	taken:     "OAuth provider %s already exists",
	again: func(c *call, held, asked OAuthProvider) bool {
		return branchFamily(c) && sameOAuthProvider(held, asked)
	},
	admit:   (*Emulator).admitOAuthProvider,
	change:  oauthProviderChange,
	missing: "OAuth provider not found",
	// 200 without body (204 with DeviationOAuthProviderDelete204); the
	// branch-scoped API answers so for a provider that is not there too
	// (the project-level one 404).
	deleted: func(e *Emulator) int {
		if e.deviates(DeviationOAuthProviderDelete204) {
			return http.StatusNoContent
		}
		return http.StatusOK
	},
	goneDeleted: true,
	example: listedExample{
		held: map[string]any{"id": "google"}, heldID: "google",
		added:   map[string]any{"id": "microsoft", "client_id": "c", "client_secret": "s", "microsoft_tenant_id": "t"},
		addedID: "microsoft",
		update:  map[string]any{"client_id": "id", "client_secret": "secret"},
	},
}

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

// addedOAuthProvider is the provider an add asks for: "shared" without
// credentials, "standard" with them.
func addedOAuthProvider(req neonapi.NeonAuthAddOAuthProviderRequest) (OAuthProvider, error) {
	id := string(req.ID)
	set, err := parseOAuthSettings(neonapi.NeonAuthUpdateOAuthProviderRequest{ClientID: req.ClientID, ClientSecret: req.ClientSecret,
		MicrosoftTenantID: req.MicrosoftTenantID}, id)
	if err != nil {
		return OAuthProvider{}, err
	}
	p := OAuthProvider{ID: id, Type: oauthShared, MicrosoftTenantID: set.tenant}
	if set.credentials {
		p.Type, p.ClientID, p.ClientSecret = oauthStandard, set.clientID, set.secret
	}
	return p, nil
}

// sameOAuthProvider reports whether an add asks for what is held.
func sameOAuthProvider(held, asked OAuthProvider) bool {
	if held.MicrosoftTenantID != asked.MicrosoftTenantID {
		return false
	}
	if asked.Type == oauthShared {
		return held.Type == oauthShared
	}
	return held.Type == oauthStandard && held.ClientID == asked.ClientID && held.ClientSecret == asked.ClientSecret
}

// codeInvalidSharedOAuthProvider is the API's error code for a provider
// added without credentials that has no shared keys (neon CLI 5.0.1).
const codeInvalidSharedOAuthProvider = "INVALID_SHARED_OAUTH_PROVIDER"

func (e *Emulator) hasSharedKeys(id string) bool {
	return len(e.sharedOAuth) == 0 || slices.Contains(e.sharedOAuth, id)
}

// admitOAuthProvider refuses a shared provider that has no shared keys.
func (e *Emulator) admitOAuthProvider(p OAuthProvider) error {
	if p.Type == oauthShared && !e.hasSharedKeys(p.ID) {
		return &apiError{status: http.StatusBadRequest, code: codeInvalidSharedOAuthProvider,
			msg: p.ID + " has no shared OAuth credentials: provide client_id and client_secret of your own OAuth app"}
	}
	return nil
}

// oauthProviderChange is what an update makes of provider id: own
// credentials (both required) make it "standard"; the tenant id of
// microsoft can be set alone.
func oauthProviderChange(id string, req neonapi.NeonAuthUpdateOAuthProviderRequest) (func(*OAuthProvider), error) {
	set, err := parseOAuthSettings(req, id)
	if err != nil {
		return nil, err
	}
	if !set.credentials && !set.hasTenant {
		return nil, invalid("client_id", "is required")
	}
	return func(p *OAuthProvider) {
		if set.credentials {
			p.Type, p.ClientID, p.ClientSecret = oauthStandard, set.clientID, set.secret
		}
		if set.hasTenant {
			p.MicrosoftTenantID = set.tenant
		}
	}, nil
}

// oauthViews are OAuth providers as the API shows them
// (NeonAuthOauthProvider): with their client credentials in the
// branch-scoped reads, which can carry them (auth-api-changes-since-2026-04-25.md),
// with id and type only in the project-level list; never the tenant id.
func oauthViews(withCredentials bool, providers ...OAuthProvider) []neonapi.NeonAuthOauthProvider {
	return mapped(providers, func(p OAuthProvider) neonapi.NeonAuthOauthProvider {
		v := neonapi.NeonAuthOauthProvider{ID: neonapi.NeonAuthOauthProviderID(p.ID), Type: neonapi.NeonAuthOauthProviderType(p.Type)}
		if withCredentials {
			v.ClientID, v.ClientSecret = nonEmpty(p.ClientID), nonEmpty(p.ClientSecret)
		}
		return v
	})
}
