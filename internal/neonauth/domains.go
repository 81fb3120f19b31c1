package neonauth

import (
	"cmp"
	"context"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The trusted domains of a scope (its redirect URI whitelist), a
// list-backed kind keyed by canonical origin (DomainAPI). A create holds
// its domain against the deletes of a whole list of the same process
// (RemovedDomain, whitelist_handover.go), and any domain found is taken
// over, whatever put it there.

// DomainAPI is the API of a scope's trusted domains: the scope's auth
// provider's, compared in canonical form; a domain is only its key.
var DomainAPI = &ListBacked[apiclient.Domain, struct{}]{
	Kind:         KindDomain,
	ProjectLevel: true,
	List:         (*Service).Domains,
	Key:          func(d apiclient.Domain) string { return d.Domain },
	// A domain listed without an auth provider belongs to Stack Auth.
	Holds: func(s Scope, d apiclient.Domain, domain string) bool {
		return cmp.Or(string(d.AuthProvider), apiclient.AuthProviderStack) == s.AuthProvider && apiclient.SameOrigin(d.Domain, domain)
	},
	Add: func(svc *Service, ctx context.Context, s Scope, domain string, _ struct{}) (*apiclient.Domain, bool, error) {
		recovered, err := svc.AddDomain(ctx, s, domain)
		return &apiclient.Domain{Domain: domain}, recovered, err
	},
	Delete: (*Service).DeleteDomain,
	// A domain that the deletes of a whole list of this process removed
	// was on the branch when the apply began: found, and added back; one
	// still listed answers the add with a 409.
	Found: func(svc *Service, ctx context.Context, s Scope, domain string) (*apiclient.Domain, bool, error) {
		removed, err := svc.RemovedDomain(ctx, s, domain)
		if !removed {
			return nil, false, err
		}
		return &apiclient.Domain{Domain: domain}, true, err
	},
	ConflictFound: true,
}
