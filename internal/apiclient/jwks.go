package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The JWKS of external identity providers that a project trusts: list, add
// and delete (there is no update).

// JWKS is a JWKS URL a project trusts, as listed and as added.
type JWKS = neonapi.JWKS

// AddJWKSRequest is the body of adding a JWKS URL to a project.
type AddJWKSRequest = neonapi.AddProjectJWKSRequest

func jwksEndpoint(projectID string) endpoint { return projectEndpoint(projectID).sub("jwks") }

// ListJWKS lists the JWKS URLs of a project: GET /projects/{project_id}/jwks.
func (c *Client) ListJWKS(ctx context.Context, projectID string) ([]JWKS, error) {
	var out neonapi.ProjectJWKSResponse
	if err := c.do(ctx, call{method: http.MethodGet, ep: jwksEndpoint(projectID), out: &out}); err != nil {
		return nil, err
	}
	return out.JWKS, nil
}

// AddedJWKS is the answer of adding a JWKS URL.
type AddedJWKS struct {
	JWKS
	// Recovered: the add's response was lost but a fresh list showed a JWKS
	// of the same URL and branch, which is returned.
	Recovered bool
}

// SameJWKS reports whether a listed JWKS is the one req adds: the same URL
// for the same branch (none: every branch).
func SameJWKS(listed JWKS, req AddJWKSRequest) bool {
	return listed.JWKSURL == req.JWKSURL && Deref(listed.BranchID) == Deref(req.BranchID)
}

// AddJWKS adds a JWKS URL to a project: POST /projects/{project_id}/jwks
// (201). Neon fetches the URL before it answers. When the answer is lost, a
// fresh list decides: a JWKS of the same URL and branch is taken as the
// lost attempt's (callers look for one before adding).
func (c *Client) AddJWKS(ctx context.Context, projectID string, req AddJWKSRequest) (*AddedJWKS, error) {
	var out neonapi.JWKSCreationOperation
	var listed *JWKS
	recovered, err := c.write(ctx, writeCall{
		call: call{method: http.MethodPost, ep: jwksEndpoint(projectID), body: req, out: &out},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			all, err := c.ListJWKS(ctx, projectID)
			if i := slices.IndexFunc(all, func(j JWKS) bool { return SameJWKS(j, req) }); i >= 0 {
				listed = &all[i]
			}
			return listed != nil, err
		},
	})
	switch {
	case err != nil:
		return nil, err
	case recovered && listed != nil:
		return &AddedJWKS{JWKS: *listed, Recovered: true}, nil
	case recovered:
		// Recovered on a 409 to a re-send: read it back.
		all, err := c.ListJWKS(ctx, projectID)
		if i := slices.IndexFunc(all, func(j JWKS) bool { return SameJWKS(j, req) }); err == nil && i >= 0 {
			return &AddedJWKS{JWKS: all[i], Recovered: true}, nil
		}
		if err == nil {
			err = fmt.Errorf("the add was answered 409 after a lost answer, but no JWKS of that URL is listed: %w", ErrConflict)
		}
		return nil, err
	}
	return &AddedJWKS{JWKS: out.JWKS}, nil
}

// DeleteJWKS removes a JWKS URL from a project: DELETE
// /projects/{project_id}/jwks/{jwks_id}. When the answer is lost, a fresh
// list decides; a repeat of a delete that was applied answers 404, which the
// caller resolves.
func (c *Client) DeleteJWKS(ctx context.Context, projectID, jwksID string) error {
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodDelete, ep: jwksEndpoint(projectID).param("jwks_id", jwksID), out: &JWKS{}},
		rule: resendUnlessApplied,
		applied: func(ctx context.Context) (bool, error) {
			all, err := c.ListJWKS(ctx, projectID)
			return err == nil && !slices.ContainsFunc(all, func(j JWKS) bool { return j.ID == jwksID }), err
		},
	})
	return err
}
