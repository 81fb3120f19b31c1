package emulator

import (
	"fmt"
	"net/http"
)

// listDomains serves endpoint 12.
func (e *Emulator) listDomains(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, c.param("project_id"), authProviderStack)
	if err != nil {
		return err
	}
	out := append([]Domain{}, in.Domains...)
	return c.json(http.StatusOK, map[string]any{"domains": out})
}

// addDomain serves endpoint 13: the domain must be an origin; it is stored
// canonicalised. 201 without body.
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
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, c.param("project_id"), provider)
	if err != nil {
		return err
	}
	if in.domainIndex(domain) >= 0 {
		return conflict("domain %s is already in the redirect URI whitelist", domain)
	}
	in.Domains = append(in.Domains, Domain{Domain: domain, AuthProvider: provider})
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.empty(http.StatusCreated)
}

// deleteDomains serves endpoint 14: removes every listed domain (compared in
// canonical form; absent ones are ignored). 200 without body.
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
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, c.param("project_id"), provider)
	if err != nil {
		return err
	}
	for _, d := range remove {
		if i := in.domainIndex(d); i >= 0 {
			in.Domains = append(in.Domains[:i], in.Domains[i+1:]...)
		}
	}
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.empty(http.StatusOK)
}
