package emulator

import (
	"net/http"
	"slices"

	"github.com/google/uuid"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The JWKS endpoints of a project: list, add (verified as jwks.go says),
// delete.

// listJWKS serves GET /projects/{project_id}/jwks, in the order added.
func (e *Emulator) listJWKS(c *call) error {
	return e.inProject(c, func(p *projectState) error {
		return c.json(http.StatusOK, neonapi.ProjectJWKSResponse{JWKS: orEmpty(p.JWKS)})
	})
}

// checkJWKSScope refuses what the reference's schema cannot say of a JWKS
// being added to p: a branch that is not the project's, the same URL twice
// for the same branches (409), a URL that is no key set as far as the
// emulator can tell offline (checkJWKSOffline). fetch: the URL is still to
// be fetched.
func (e *Emulator) checkJWKSScope(p *projectState, req neonapi.AddProjectJWKSRequest) (fetch bool, err error) {
	if req.BranchID != nil && p.branch(*req.BranchID) == nil {
		return false, notFound("branch_id: branch %s does not exist in project %s", *req.BranchID, p.Project.ID)
	}
	for _, j := range p.JWKS {
		if j.JWKSURL == req.JWKSURL && valueOf(j.BranchID) == valueOf(req.BranchID) {
			return false, conflict("%s is already added to project %s", describeJWKS(j), p.Project.ID)
		}
	}
	fetch, err = e.st.checkJWKSOffline(req.JWKSURL)
	return fetch && e.opts.FetchJWKS != nil, err
}

// addJWKS serves POST /projects/{project_id}/jwks: checks the request,
// verifies the URL (fetching it with Options.FetchJWKS) and answers 201
// with the JWKS and the operations that apply it (finished).
func (e *Emulator) addJWKS(c *call) error {
	var req neonapi.AddProjectJWKSRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	err := firstError(checkJWKSURL(req.JWKSURL), notEmpty("provider_name", &req.ProviderName), notEmpty("jwt_audience", req.JwtAudience))
	if err == nil && req.RoleNames != nil {
		err = distinct("role_names", *req.RoleNames)
	}
	if err != nil {
		return err
	}
	var fetch bool
	if err := e.inProject(c, func(p *projectState) (err error) {
		fetch, err = e.checkJWKSScope(p, req)
		return err
	}); err != nil {
		return err
	}
	if fetch {
		if err := fetchJWKS(c.r.Context(), e.opts.FetchJWKS, req.JWKSURL); err != nil {
			return err
		}
	}
	return e.inProject(c, func(p *projectState) error {
		if _, err := e.checkJWKSScope(p, req); err != nil { // changed while the URL was fetched
			return err
		}
		j := newJWKS(p, req, uuid.NewString(), now())
		p.JWKS = append(p.JWKS, j)
		return e.saved(c, http.StatusCreated, neonapi.JWKSCreationOperation{JWKS: j, Operations: jwksOperations(p, req.BranchID)})
	})
}

// deleteJWKS serves DELETE /projects/{project_id}/jwks/{jwks_id}: answers
// 200 with the JWKS removed; 404 for an id the project does not have.
func (e *Emulator) deleteJWKS(c *call) error {
	return e.inProject(c, func(p *projectState) error {
		id := c.param("jwks_id")
		j := p.jwksNamed(id)
		if j == nil {
			return notFound("JWKS %s not found in project %s", id, p.Project.ID)
		}
		removed := *j
		p.JWKS = slices.DeleteFunc(p.JWKS, func(j neonapi.JWKS) bool { return j.ID == id })
		return e.saved(c, http.StatusOK, removed)
	})
}
