package emulator

import (
	"fmt"
	"net/http"

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
	o, err := readBody(c, false, "domain", "auth_provider")
	if err != nil {
		return err
	}
	raw, err := o.requiredStr("domain")
	if err != nil {
		return err
	}
	domain, cerr := canonicalOrigin(raw)
	if cerr != nil {
		return invalid("domain", "%s", cerr.Error())
	}
	provider, err := o.authProvider()
	if err != nil {
		return err
	}
	return e.changeAuthWith(c, provider, http.StatusCreated, func(_ authScope, a *BranchAuth) (any, error) {
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
	o, err := readBody(c, false, "auth_provider", "domains")
	if err != nil {
		return err
	}
	provider, err := o.authProvider()
	if err != nil {
		return err
	}
	items, present, err := o.array("domains")
	if err != nil {
		return err
	}
	if !present {
		return invalid("domains", "is required")
	}
	remove := make([]string, 0, len(items))
	for i, raw := range items {
		field := fmt.Sprintf("domains[%d].domain", i)
		item, err := parseObject(raw, fmt.Sprintf("domains[%d].", i), []string{"domain"})
		if err != nil {
			return err
		}
		d, _, err := item.str("domain")
		if err != nil {
			return invalid(field, "must be a string")
		}
		canonical, cerr := canonicalOrigin(d)
		if cerr != nil {
			return invalid(field, "%s", cerr.Error())
		}
		remove = append(remove, canonical)
	}
	return e.changeAuthWith(c, provider, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		for _, d := range remove {
			if i := a.domainIndex(d); i >= 0 {
				a.Domains = append(a.Domains[:i], a.Domains[i+1:]...)
			}
		}
		return nil, nil
	})
}
