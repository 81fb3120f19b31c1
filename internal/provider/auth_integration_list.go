package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/list"
)

// The neon_auth_integration list resource: the Neon Auth integrations of a
// project's branches.

var _ list.ListResourceWithConfigure = (*authIntegrationList)(nil)

// NewAuthIntegrationList finds the neon_auth_integration objects of a project.
func NewAuthIntegrationList() list.ListResource {
	return &authIntegrationList{authIntegrationResource{configured: configuredAs(typeAuthIntegration)}}
}

// authIntegrationList is the list resource of neon_auth_integration: every
// branch's integration, named by the branch and its auth provider.
type authIntegrationList struct{ authIntegrationResource }

func (l *authIntegrationList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listConfigSchema("the Neon Auth integrations")
}

func (l *authIntegrationList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	l.list(ctx, &l.authIntegrationResource, req, stream, func(ctx context.Context, s listScope) ([]foundObject, error) {
		its, err := l.data.auth.EnabledIntegrations(ctx, s.Scope)
		var out []foundObject
		for _, it := range its {
			out = append(out, foundObject{compositeID(s.ProjectID, s.BranchID, string(it.AuthProvider)), fmt.Sprintf("%s (%s)", s.name, string(it.AuthProvider))})
		}
		return out, err
	})
}
