package emulator

import (
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The compute endpoint endpoints: listing the endpoints of a project or a
// branch, creating, reading, updating and deleting one.

// errReadWriteTaken is the answer to a second read_write endpoint on a branch.
func errReadWriteTaken(b *branchState) error {
	return conflict("branch %s already has a read_write endpoint; a branch can have only one", b.ID)
}

// listProjectEndpoints serves GET /projects/{project_id}/endpoints.
func (e *Emulator) listProjectEndpoints(c *call) error {
	return e.inProject(c, func(p *projectState) error {
		return c.json(http.StatusOK, neonapi.EndpointsResponse{Endpoints: endpointViewsOf(p, p.Branches...)})
	})
}

// listBranchEndpoints serves GET /projects/{project_id}/branches/{branch_id}/endpoints.
func (e *Emulator) listBranchEndpoints(c *call) error {
	return e.inBranch(c, func(p *projectState, b *branchState) error {
		return c.json(http.StatusOK, neonapi.EndpointsResponse{Endpoints: endpointViewsOf(p, b)})
	})
}

// inEndpoint runs f, under the lock, on the endpoint of the path and the
// branch holding it.
func (e *Emulator) inEndpoint(c *call, f func(p *projectState, b *branchState, ep *endpointState) error) error {
	return e.inProject(c, func(p *projectState) error {
		b, ep := p.endpoint(c.param("endpoint_id"))
		if ep == nil {
			return notFound("endpoint %s not found in project %s", c.param("endpoint_id"), p.Project.ID)
		}
		return f(p, b, ep)
	})
}

// getEndpoint serves GET /projects/{project_id}/endpoints/{endpoint_id}.
func (e *Emulator) getEndpoint(c *call) error {
	return e.inEndpoint(c, func(p *projectState, b *branchState, ep *endpointState) error {
		return c.json(http.StatusOK, neonapi.EndpointResponse{Endpoint: endpointViewOf(p, b, ep)})
	})
}

// createEndpoint serves POST /projects/{project_id}/endpoints: an endpoint
// on endpoint.branch_id (404 when the project has no such branch), in the
// project's region (another region_id is refused), sized by the request or
// else by the project's default_endpoint_settings. A branch has at most one
// read_write endpoint (409).
func (e *Emulator) createEndpoint(c *call) error {
	var req neonapi.EndpointCreateRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	f := req.Endpoint
	return e.inProject(c, func(p *projectState) error {
		b := p.branch(f.BranchID)
		switch {
		case b == nil:
			return notFound("endpoint.branch_id: branch %s does not exist in project %s", f.BranchID, p.Project.ID)
		case f.RegionID != nil && *f.RegionID != "" && *f.RegionID != p.Project.RegionID:
			return invalid("endpoint.region_id", "must be the project's region %s", p.Project.RegionID)
		case string(f.Type) == endpointReadWrite && b.readWriteEndpoint() != nil:
			return errReadWriteTaken(b)
		}
		ep := newEndpoint(e.st.nextEndpointID(), p.Project, string(f.Type), now())
		if err := changeEndpoint(ep, f, "endpoint."); err != nil {
			return err
		}
		b.Endpoints = append(b.Endpoints, ep)
		return e.saved(c, http.StatusCreated, neonapi.EndpointOperations{
			Endpoint:   endpointViewOf(p, b, ep),
			Operations: []neonapi.Operation{endpointOperation(p, b, ep, neonapi.OperationActionStartCompute)},
		})
	})
}

// updateEndpoint serves PATCH /projects/{project_id}/endpoints/{endpoint_id}:
// what is given changes (settings merge into the endpoint's); the
// deprecated branch_id moves the endpoint to another branch of the project.
func (e *Emulator) updateEndpoint(c *call) error {
	var req neonapi.EndpointUpdateRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	f := req.Endpoint
	return e.inEndpoint(c, func(p *projectState, b *branchState, ep *endpointState) error {
		target := b
		if f.BranchID != nil && *f.BranchID != b.ID {
			if target = p.branch(*f.BranchID); target == nil {
				return notFound("endpoint.branch_id: branch %s does not exist in project %s", *f.BranchID, p.Project.ID)
			}
			if ep.Type == endpointReadWrite && target.readWriteEndpoint() != nil {
				return errReadWriteTaken(target)
			}
		}
		changed := *ep
		if err := changeEndpoint(&changed, f, "endpoint."); err != nil {
			return err
		}
		changed.UpdatedAt = now()
		*ep = changed
		if target != b {
			b.Endpoints = slices.DeleteFunc(b.Endpoints, func(x *endpointState) bool { return x == ep })
			target.Endpoints = append(target.Endpoints, ep)
		}
		return e.saved(c, http.StatusOK, neonapi.EndpointOperations{
			Endpoint:   endpointViewOf(p, target, ep),
			Operations: []neonapi.Operation{endpointOperation(p, target, ep, neonapi.OperationActionApplyConfig)},
		})
	})
}

// deleteEndpoint serves DELETE /projects/{project_id}/endpoints/{endpoint_id};
// an endpoint that does not exist (any more) answers 204, as the API
// reference says.
func (e *Emulator) deleteEndpoint(c *call) error {
	return e.inProject(c, func(p *projectState) error {
		b, ep := p.endpoint(c.param("endpoint_id"))
		if ep == nil {
			return c.empty(http.StatusNoContent)
		}
		b.Endpoints = slices.DeleteFunc(b.Endpoints, func(x *endpointState) bool { return x == ep })
		return e.saved(c, http.StatusOK, neonapi.EndpointOperations{Endpoint: endpointViewOf(p, b, ep), Operations: []neonapi.Operation{}})
	})
}
