package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The neon_auth_data_api list resource: the Data APIs of a project's
// branches.

var _ list.ListResourceWithConfigure = (*authDataAPIList)(nil)

// NewAuthDataAPIList finds the neon_auth_data_api objects of a project.
func NewAuthDataAPIList() list.ListResource {
	return &authDataAPIList{authDataAPIResource{configured: configuredAs(typeAuthDataAPI)}}
}

// authDataAPIList is the list resource of neon_auth_data_api: the Data API
// of every database of every branch that has one, named by the database and
// its branch.
type authDataAPIList struct{ authDataAPIResource }

func (l *authDataAPIList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listConfigSchemaOf("Finds the Data APIs of a Neon project's databases: on every branch, or on one "+
		"(in both API modes: the Data API's endpoints reach every branch).", "Id of the one branch to search. Omitted: every branch.")
}

// List reads each branch's databases, then each one's Data API (a database
// without one answers 404 and is skipped).
func (l *authDataAPIList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	l.listIn(ctx, &l.authDataAPIResource, req, stream, l.everyBranch, func(ctx context.Context, s listScope) ([]foundObject, error) {
		dbs, err := l.data.auth.ListDatabases(ctx, s.ProjectID, s.BranchID)
		if err != nil {
			return nil, err
		}
		var out []foundObject
		for _, db := range dbs {
			switch _, err := l.data.auth.DataAPI(ctx, apiclient.DataAPIRef{ProjectID: s.ProjectID, BranchID: s.BranchID, DatabaseName: db.Name}); {
			case err == nil:
				out = append(out, foundObject{compositeID(s.ProjectID, s.BranchID, db.Name), db.Name + " (" + s.name + ")"})
			case !isNotFound(err):
				return nil, err
			}
		}
		return out, nil
	})
}
