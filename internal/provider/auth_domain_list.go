package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The neon_auth_domain list resource: the whitelisted domains of a project's
// branches.

var _ list.ListResourceWithConfigure = (*authDomainList)(nil)

// NewAuthDomainList finds the neon_auth_domain objects of a project.
func NewAuthDomainList() list.ListResource {
	return &authDomainList{authDomainResource{configured: configuredAs(typeAuthDomain)}}
}

// authDomainList is the list resource of neon_auth_domain: every whitelisted
// origin, canonical, named by itself and its branch.
type authDomainList struct{ authDomainResource }

func (l *authDomainList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listConfigSchema("the whitelisted domains")
}

func (l *authDomainList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	l.list(ctx, &l.authDomainResource, req, stream, func(ctx context.Context, s listScope) ([]foundObject, error) {
		ds, err := l.data.auth.Domains(ctx, s.Scope)
		return keyed(s, ds, err, func(d apiclient.Domain) string {
			if c, cerr := apiclient.CanonicalOrigin(d.Domain); cerr == nil {
				return c
			}
			return d.Domain
		})
	})
}
