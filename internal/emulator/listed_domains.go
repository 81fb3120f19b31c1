package emulator

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The trusted domains (the redirect URI whitelist) of a branch's Neon Auth,
// in both families, as a list-backed kind (listed.go). Requests name the
// integration's auth provider in the body; another provider than the
// scope's is an integration that does not exist (404).

var domainsKind = listedKind[Domain, neonapi.NeonAuthAddDomainToRedirectURIWhitelistRequest, noUpdate]{
	path:         "domains",
	projectLevel: true,
	field:        func(a *BranchAuth) *[]Domain { return &a.Domains },
	id:           func(d Domain) string { return d.Domain },
	listed: func(_ *call, ds []Domain) any {
		return neonapi.NeonAuthRedirectURIWhitelistResponse{Domains: ds}
	},
	// The domain must be an origin; it is held canonicalised. 201
	// without body.
	asked: func(req neonapi.NeonAuthAddDomainToRedirectURIWhitelistRequest) (Domain, error) {
		domain, err := canonicalOrigin(req.Domain)
		if err != nil {
			return Domain{}, invalid("domain", "%s", err.Error())
		}
		return Domain{Domain: domain, AuthProvider: req.AuthProvider}, nil
	},
	provider: func(req neonapi.NeonAuthAddDomainToRedirectURIWhitelistRequest) string {
		return string(req.AuthProvider)
	},
	addStatus: http.StatusCreated,
	taken:     "domain %s is already in the redirect URI whitelist",
	clear:     (*Emulator).deleteDomains,
	example: listedExample{
		held: map[string]any{"domain": "https://app.example.com"}, heldID: "https://app.example.com",
		added: map[string]any{"domain": "https://new.example.com"}, addedID: "https://new.example.com",
		clear:         func(id string) map[string]any { return map[string]any{"domains": []any{map[string]any{"domain": id}}} },
		namesProvider: true,
	},
}

// deleteDomains serves DELETE .../auth/domains: removes every listed domain
// (compared in canonical form; absent ones are ignored). 200 without body.
func (e *Emulator) deleteDomains(c *call) error {
	var req neonapi.NeonAuthDeleteDomainFromRedirectURIWhitelistRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	remove := make([]string, 0, len(req.Domains))
	for i, item := range req.Domains {
		canonical, cerr := canonicalOrigin(item.Domain)
		if cerr != nil {
			return invalid(fmt.Sprintf("domains[%d].domain", i), "%s", cerr.Error())
		}
		remove = append(remove, canonical)
	}
	return e.changeAuthWith(c, string(req.AuthProvider), http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		a.Domains = slices.DeleteFunc(a.Domains, func(d Domain) bool { return slices.Contains(remove, d.Domain) })
		return nil, nil
	})
}
