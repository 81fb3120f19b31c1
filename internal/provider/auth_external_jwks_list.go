package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The neon_auth_external_jwks list resource: the JWKS a project trusts.

var _ list.ListResourceWithConfigure = (*authExternalJWKSList)(nil)

// NewAuthExternalJWKSList finds the neon_auth_external_jwks objects of a
// project.
func NewAuthExternalJWKSList() list.ListResource {
	return &authExternalJWKSList{authExternalJWKSResource{configured: configuredAs(typeAuthExternalJWKS)}}
}

// authExternalJWKSList is the list resource of neon_auth_external_jwks:
// every JWKS of the project (with branch_id, those of that branch), named by
// its provider and URL.
type authExternalJWKSList struct{ authExternalJWKSResource }

func (l *authExternalJWKSList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listConfigSchemaOf("Finds the JWKS of external identity providers that a Neon project trusts.",
		"Id of a branch: only the JWKS of that one branch. Omitted: every JWKS of the project, of all branches or one.")
}

func (l *authExternalJWKSList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	// One scope: the project, with the branch to keep to ("" for all).
	project := func(_ context.Context, cfg listConfigModel) ([]listScope, error) {
		return []listScope{{Scope: neonauth.Scope{Scope: apiclient.Scope{ProjectID: cfg.ProjectID.ValueString(),
			BranchID: cfg.BranchID.ValueString()}}}}, nil
	}
	l.listIn(ctx, &l.authExternalJWKSResource, req, stream, project, func(ctx context.Context, s listScope) ([]foundObject, error) {
		all, err := l.data.auth.JWKS(ctx, s.ProjectID)
		var out []foundObject
		for _, j := range all {
			if s.BranchID == "" || apiclient.Deref(j.BranchID) == s.BranchID {
				out = append(out, foundObject{compositeID(s.ProjectID, j.ID), j.ProviderName + " (" + j.JWKSURL + ", " + jwksBranches(j.BranchID) + ")"})
			}
		}
		return out, err
	})
}
