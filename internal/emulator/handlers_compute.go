package emulator

import (
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The handlers of compute endpoints, and the views of endpoints, roles,
// databases and connection URIs that every answer about a branch shares
// (the reference's Endpoint, Role, Database and ConnectionDetails).

// endpointViewOf is a compute endpoint as the API shows it (Endpoint). The
// emulator's computes never run: they are idle.
func endpointViewOf(p *projectState, b *branchState, ep *endpointState) neonapi.Endpoint {
	settings := neonapi.EndpointSettingsData{}
	if ep.Settings != nil {
		settings = *clonePtr(ep.Settings)
	}
	return neonapi.Endpoint{
		Host:                  ep.host(p),
		ID:                    ep.ID,
		Name:                  nonEmpty(ep.Name),
		ProjectID:             p.Project.ID,
		BranchID:              b.ID,
		AutoscalingLimitMinCu: float32(ep.MinCU),
		AutoscalingLimitMaxCu: float32(ep.MaxCU),
		RegionID:              p.Project.RegionID,
		Type:                  neonapi.EndpointType(ep.Type),
		CurrentState:          neonapi.EndpointStateIdle,
		Settings:              settings,
		PoolerEnabled:         ep.PoolerEnabled,
		PoolerMode:            neonapi.EndpointPoolerModeTransaction,
		Disabled:              ep.Disabled,
		PasswordlessAccess:    ep.PasswordlessAccess,
		CreationSource:        "console",
		CreatedAt:             ep.CreatedAt,
		UpdatedAt:             ep.UpdatedAt,
		ProxyHost:             p.Project.ProxyHost,
		SuspendTimeoutSeconds: ep.SuspendTimeoutSeconds,
		Provisioner:           ep.Provisioner,
	}
}

// host is the endpoint's host name: ep-quiet-leaf-00000004.us-east-2.aws.neon.tech.
func (ep *endpointState) host(p *projectState) string { return ep.ID + "." + p.Project.ProxyHost }

// poolerHost is the host name of the endpoint's connection pooler.
func (ep *endpointState) poolerHost(p *projectState) string {
	return ep.ID + "-pooler." + p.Project.ProxyHost
}

// operation is a finished operation of the endpoint.
func (ep *endpointState) operation(p *projectState, b *branchState, action neonapi.OperationAction) neonapi.Operation {
	op := finishedOperation(p.Project.ID, b.ID, action, ep.UpdatedAt)
	op.EndpointID = new(ep.ID)
	return op
}

func endpointViewsOf(p *projectState, branches ...*branchState) []neonapi.Endpoint {
	out := []neonapi.Endpoint{}
	for _, b := range branches {
		for _, ep := range b.Endpoints {
			out = append(out, endpointViewOf(p, b, ep))
		}
	}
	return out
}

// roleViewOf is a role of a branch as the API shows it (Role), with its
// password only where the API reveals it (on creation).
func roleViewOf(p *projectState, b *branchState, name string, withPassword bool) neonapi.Role {
	r := neonapi.Role{BranchID: b.ID, Name: name, Protected: new(false), CreatedAt: b.CreatedAt, UpdatedAt: b.CreatedAt}
	if rs := p.roleOf(b, name); rs != nil {
		r.CreatedAt, r.UpdatedAt = rs.CreatedAt, rs.CreatedAt
		if withPassword {
			r.Password = nonEmpty(rs.Password)
		}
	}
	return r
}

func rolesOf(p *projectState, b *branchState, withPasswords bool) []neonapi.Role {
	out := make([]neonapi.Role, 0, len(b.Roles))
	for _, name := range b.Roles {
		out = append(out, roleViewOf(p, b, name, withPasswords))
	}
	return out
}

// databaseViewOf is a database of a branch as the API shows it (Database).
func databaseViewOf(b *Branch, d Database) neonapi.Database {
	return neonapi.Database{ID: d.ID, BranchID: b.ID, Name: d.Name, OwnerName: d.OwnerName, CreatedAt: d.CreatedAt, UpdatedAt: d.CreatedAt}
}

func databasesOf(b *Branch) []neonapi.Database {
	out := make([]neonapi.Database, 0, len(b.Databases))
	for _, d := range b.Databases {
		out = append(out, databaseViewOf(b, d))
	}
	return out
}

// connectionURIs are the branch's connection URIs (ConnectionDetails): its
// first database, as its owner, through its read_write endpoint (none
// without all three).
func connectionURIs(p *projectState, b *branchState) []neonapi.ConnectionDetails {
	ep := b.readWriteEndpoint()
	if ep == nil || len(b.Databases) == 0 {
		return []neonapi.ConnectionDetails{}
	}
	db := b.Databases[0]
	owner := p.roleOf(b, db.OwnerName)
	if owner == nil || owner.Password == "" {
		return []neonapi.ConnectionDetails{}
	}
	return []neonapi.ConnectionDetails{{
		ConnectionURI: "postgresql://" + db.OwnerName + ":" + owner.Password + "@" + ep.host(p) + "/" + db.Name + "?sslmode=require",
		ConnectionParameters: neonapi.ConnectionParameters{Database: db.Name, Password: owner.Password, Role: db.OwnerName,
			Host: ep.host(p), PoolerHost: ep.poolerHost(p)},
	}}
}

// endpointChange is what a request gives an endpoint: the fields of
// EndpointUpdateRequest.endpoint, which EndpointCreateRequest.endpoint and
// BranchCreateRequestEndpointOptions share by name (decodeEndpointChange).
type endpointChange = neonapi.EndpointUpdateRequest

// decodeEndpointChange reads the fields an endpoint takes from one of the
// requests that carry them (the object holding them, already checked
// against the reference).
func decodeEndpointChange(fields any) (endpointChange, error) {
	var ch endpointChange
	if err := convertShape(fields, &ch.Endpoint); err != nil {
		return ch, invalid("endpoint", "%v", err)
	}
	return ch, nil
}

// applyEndpointChange sets what was given on ep, and refuses a maximum size
// below the minimum (prefix names the request's object in the error).
func applyEndpointChange(ep *endpointState, ch endpointChange, prefix string) error {
	f := ch.Endpoint
	minCU, maxCU := ep.MinCU, ep.MaxCU
	if f.AutoscalingLimitMinCu != nil {
		minCU = computeUnits(*f.AutoscalingLimitMinCu)
	}
	if f.AutoscalingLimitMaxCu != nil {
		maxCU = computeUnits(*f.AutoscalingLimitMaxCu)
	} else if f.AutoscalingLimitMinCu != nil {
		maxCU = max(maxCU, minCU)
	}
	if maxCU < minCU {
		return invalid(prefix+"autoscaling_limit_max_cu", "must not be less than autoscaling_limit_min_cu (%s)", number(minCU))
	}
	ep.MinCU, ep.MaxCU = minCU, maxCU
	set(&ep.Name, f.Name)
	if f.Provisioner != nil && *f.Provisioner != "" {
		ep.Provisioner = *f.Provisioner
	}
	set(&ep.PoolerEnabled, f.PoolerEnabled)
	set(&ep.Disabled, f.Disabled)
	set(&ep.PasswordlessAccess, f.PasswordlessAccess)
	set(&ep.SuspendTimeoutSeconds, f.SuspendTimeoutSeconds)
	if f.Settings != nil {
		ep.Settings = merged(ep.Settings, f.Settings)
	}
	return nil
}

// errReadWriteTaken is the answer to a second read_write endpoint on a branch.
func errReadWriteTaken(b *branchState) error {
	return conflict("branch %s already has a read_write endpoint; a branch can have only one", b.ID)
}

// listProjectEndpoints serves GET /projects/{project_id}/endpoints.
func (e *Emulator) listProjectEndpoints(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.EndpointsResponse{Endpoints: endpointViewsOf(p, p.Branches...)})
}

// listBranchEndpoints serves GET /projects/{project_id}/branches/{branch_id}/endpoints.
func (e *Emulator) listBranchEndpoints(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.EndpointsResponse{Endpoints: endpointViewsOf(p, b)})
}

// visibleEndpoint finds the endpoint of the path in a project the key may
// see. e.mu must be held.
func (e *Emulator) visibleEndpoint(c *call) (*projectState, *branchState, *endpointState, error) {
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return nil, nil, nil, err
	}
	b, ep := p.endpoint(c.param("endpoint_id"))
	if ep == nil {
		return nil, nil, nil, notFound("endpoint %s not found in project %s", c.param("endpoint_id"), p.Project.ID)
	}
	return p, b, ep, nil
}

// getEndpoint serves GET /projects/{project_id}/endpoints/{endpoint_id}.
func (e *Emulator) getEndpoint(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, ep, err := e.visibleEndpoint(c)
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.EndpointResponse{Endpoint: endpointViewOf(p, b, ep)})
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
	ch, err := decodeEndpointChange(req.Endpoint)
	if err != nil {
		return err
	}
	f := req.Endpoint
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	b := p.branch(f.BranchID)
	switch {
	case b == nil:
		return notFound("endpoint.branch_id: branch %s does not exist in project %s", f.BranchID, p.Project.ID)
	case f.RegionID != nil && *f.RegionID != "" && *f.RegionID != p.Project.RegionID:
		return invalid("endpoint.region_id", "must be the project's region %s", p.Project.RegionID)
	case string(f.Type) == endpointReadWrite && b.readWriteEndpoint() != nil:
		return errReadWriteTaken(b)
	}
	ep := e.st.newEndpoint(p, string(f.Type), now())
	if err := applyEndpointChange(ep, ch, "endpoint."); err != nil {
		return err
	}
	b.Endpoints = append(b.Endpoints, ep)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, neonapi.EndpointOperations{
		Endpoint:   endpointViewOf(p, b, ep),
		Operations: []neonapi.Operation{ep.operation(p, b, neonapi.OperationActionStartCompute)},
	})
}

// updateEndpoint serves PATCH /projects/{project_id}/endpoints/{endpoint_id}:
// what is given changes (settings merge into the endpoint's); the
// deprecated branch_id moves the endpoint to another branch of the project.
func (e *Emulator) updateEndpoint(c *call) error {
	var ch endpointChange
	if _, err := c.decode(&ch); err != nil {
		return err
	}
	f := ch.Endpoint
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, ep, err := e.visibleEndpoint(c)
	if err != nil {
		return err
	}
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
	if err := applyEndpointChange(&changed, ch, "endpoint."); err != nil {
		return err
	}
	changed.UpdatedAt = now()
	*ep = changed
	if target != b {
		b.Endpoints = slices.DeleteFunc(b.Endpoints, func(x *endpointState) bool { return x == ep })
		target.Endpoints = append(target.Endpoints, ep)
	}
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.EndpointOperations{
		Endpoint:   endpointViewOf(p, target, ep),
		Operations: []neonapi.Operation{ep.operation(p, target, neonapi.OperationActionApplyConfig)},
	})
}

// deleteEndpoint serves DELETE /projects/{project_id}/endpoints/{endpoint_id};
// an endpoint that does not exist (any more) answers 204, as the API
// reference says.
func (e *Emulator) deleteEndpoint(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	b, ep := p.endpoint(c.param("endpoint_id"))
	if ep == nil {
		return c.empty(http.StatusNoContent)
	}
	b.Endpoints = slices.DeleteFunc(b.Endpoints, func(x *endpointState) bool { return x == ep })
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.EndpointOperations{Endpoint: endpointViewOf(p, b, ep), Operations: []neonapi.Operation{}})
}
