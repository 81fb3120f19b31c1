package apiclient

import (
	"context"
	"errors"
	"net/http"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The Data API of a branch's database: create, read, update its settings,
// delete. It has one family of endpoints, under
// /projects/{project_id}/branches/{branch_id}/data-api/{database_name}, and
// no list.

// Auth providers of a Data API: the branch's Neon Auth, or an external
// identity provider named by its JWKS URL.
const (
	DataAPIAuthNeonAuth = string(neonapi.DataAPICreateRequestAuthProviderNeonAuth)
	DataAPIAuthExternal = string(neonapi.DataAPICreateRequestAuthProviderExternal)
)

// DataAPIAuthProviders are the auth providers of a Data API, in the
// reference's order.
var DataAPIAuthProviders = values(neonapi.DataAPICreateRequestAuthProviderValues)

// DataAPI is a Data API as GET answers it: its URL, deployment status,
// settings and the schemas it can expose.
type DataAPI = neonapi.DataAPIReponse

// DataAPISettings are the settings of a Data API (PostgREST's): every field
// is optional, one left out keeps its value.
type DataAPISettings = neonapi.DataAPISettings

// CreateDataAPIRequest is the body of creating a Data API.
type CreateDataAPIRequest = neonapi.DataAPICreateRequest

// DataAPIRef names the Data API of one database of a branch.
type DataAPIRef struct {
	ProjectID, BranchID, DatabaseName string
}

// String is "the Data API of database <db> on branch <id> of project <id>",
// for messages.
func (r DataAPIRef) String() string {
	return "the Data API of database " + r.DatabaseName + " on branch " + r.BranchID + " of project " + r.ProjectID
}

func (r DataAPIRef) endpoint() endpoint {
	return branchEndpoint(r.ProjectID, r.BranchID).sub("data-api").param("database_name", r.DatabaseName)
}

// GetDataAPI reads a Data API: GET …/data-api/{database_name}. A 404 does not
// say by itself whether the Data API, its database, its branch or the
// project is missing (see neonauth's DataAPIAbsence).
func (c *Client) GetDataAPI(ctx context.Context, r DataAPIRef) (*DataAPI, error) {
	var out DataAPI
	if err := c.do(ctx, call{method: http.MethodGet, ep: r.endpoint(), out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreatedDataAPI is the answer of creating a Data API: its URL.
type CreatedDataAPI struct {
	neonapi.DataAPICreateResponse
	// Recovered: the create's response was lost but a read-back found the
	// Data API (URL filled from that read).
	Recovered bool
}

// CreateDataAPI creates the Data API of a database: POST
// …/data-api/{database_name} (201). A database has at most one, so when the
// answer is lost a fresh read decides, and a 409 to a re-send is the lost
// attempt's own Data API.
func (c *Client) CreateDataAPI(ctx context.Context, r DataAPIRef, req CreateDataAPIRequest) (*CreatedDataAPI, error) {
	var out CreatedDataAPI
	var found *DataAPI
	recovered, err := c.write(ctx, writeCall{
		call: call{method: http.MethodPost, ep: r.endpoint(), body: req, out: &out.DataAPICreateResponse},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			var err error
			found, err = c.GetDataAPI(ctx, r)
			if errors.Is(err, ErrNotFound) {
				return false, nil
			}
			return err == nil, err
		},
	})
	if err != nil {
		return nil, err
	}
	if recovered {
		out.Recovered = true
		if found != nil {
			out.URL = found.URL
		}
	}
	return &out, nil
}

// UpdateDataAPI sends settings of a Data API and refreshes its schema cache:
// PATCH …/data-api/{database_name} (201). The fields sent replace their
// values, so sending them again is harmless.
func (c *Client) UpdateDataAPI(ctx context.Context, r DataAPIRef, settings DataAPISettings) error {
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodPatch, ep: r.endpoint(), body: neonapi.DataAPIUpdateRequest{Settings: &settings},
			out: &neonapi.EmptyResponse{}},
		rule: resendFreely,
	})
	return err
}

// DeleteDataAPI deletes a Data API: DELETE …/data-api/{database_name}. When
// the answer is lost, a fresh read decides; a repeat of a delete that was
// applied answers 404, which the caller resolves.
func (c *Client) DeleteDataAPI(ctx context.Context, r DataAPIRef) error {
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodDelete, ep: r.endpoint(), out: &neonapi.EmptyResponse{}},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			_, err := c.GetDataAPI(ctx, r)
			if errors.Is(err, ErrNotFound) {
				return true, nil
			}
			return false, err
		},
	})
	return err
}

// DataAPIAuthProvider is the auth_provider of a create request: nil for ""
// (none configured).
func DataAPIAuthProvider(provider string) *neonapi.DataAPICreateRequestAuthProvider {
	if provider == "" {
		return nil
	}
	p := neonapi.DataAPICreateRequestAuthProvider(provider)
	return &p
}
