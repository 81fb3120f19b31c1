package emulator

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The redirect URI whitelist (trusted domains) of both families. Requests
// name the integration's auth provider in the body; another provider than
// the scope's is an integration that does not exist (404).

// listDomains serves GET .../auth/domains.
func (e *Emulator) listDomains(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		return neonapi.NeonAuthRedirectURIWhitelistResponse{Domains: a.Domains}, nil
	})
}

// addDomain serves POST .../auth/domains: the domain must be an origin; it is
// stored canonicalised. 201 without body.
func (e *Emulator) addDomain(c *call) error {
	var req neonapi.NeonAuthAddDomainToRedirectURIWhitelistRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	domain, cerr := canonicalOrigin(req.Domain)
	if cerr != nil {
		return invalid("domain", "%s", cerr.Error())
	}
	return e.changeAuthWith(c, string(req.AuthProvider), http.StatusCreated, func(_ authScope, a *BranchAuth) (any, error) {
		if a.domainIndex(domain) >= 0 {
			return nil, conflict("domain %s is already in the redirect URI whitelist", domain)
		}
		a.addDomain(domain)
		return nil, nil
	})
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
