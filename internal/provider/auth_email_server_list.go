package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
)

// The neon_auth_email_server list resource: the email servers of a project's
// branches.

var _ list.ListResourceWithConfigure = (*authEmailServerList)(nil)

// NewAuthEmailServerList finds the neon_auth_email_server objects of a
// project.
func NewAuthEmailServerList() list.ListResource {
	return &authEmailServerList{authEmailServerResource{configured: configuredAs(typeAuthEmailServer)}}
}

// authEmailServerList is the list resource of neon_auth_email_server: the
// email server of every branch with Neon Auth, named by the branch.
type authEmailServerList struct{ authEmailServerResource }

func (l *authEmailServerList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listConfigSchema("the email servers")
}

func (l *authEmailServerList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	l.list(ctx, &l.authEmailServerResource, req, stream, singletonOf(l.data))
}

// singletonOf finds the one object of each branch with Neon Auth (the email
// server, the settings), named by the branch.
func singletonOf(d *providerData) func(context.Context, listScope) ([]foundObject, error) {
	return func(ctx context.Context, s listScope) ([]foundObject, error) {
		its, err := d.auth.EnabledIntegrations(ctx, s.Scope)
		if err != nil || len(its) == 0 {
			return nil, err
		}
		return []foundObject{{compositeID(s.ProjectID, s.BranchID), s.name}}, nil
	}
}
