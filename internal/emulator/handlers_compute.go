package emulator

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"
)

// The handlers of compute endpoints, and the views of endpoints, roles,
// databases and connection URIs that every answer about a branch shares.

// endpointView is Endpoint: a compute endpoint as the API shows it. The
// emulator's computes never run: they are idle.
type endpointView struct {
	Host                  string          `json:"host"`
	ID                    string          `json:"id"`
	Name                  string          `json:"name,omitempty"`
	ProjectID             string          `json:"project_id"`
	BranchID              string          `json:"branch_id"`
	MinCU                 float64         `json:"autoscaling_limit_min_cu"`
	MaxCU                 float64         `json:"autoscaling_limit_max_cu"`
	RegionID              string          `json:"region_id"`
	Type                  string          `json:"type"`
	CurrentState          string          `json:"current_state"`
	Settings              json.RawMessage `json:"settings"`
	PoolerEnabled         bool            `json:"pooler_enabled"`
	PoolerMode            string          `json:"pooler_mode"`
	Disabled              bool            `json:"disabled"`
	PasswordlessAccess    bool            `json:"passwordless_access"`
	CreationSource        string          `json:"creation_source"`
	CreatedAt             time.Time       `json:"created_at"`
	UpdatedAt             time.Time       `json:"updated_at"`
	ProxyHost             string          `json:"proxy_host"`
	SuspendTimeoutSeconds int64           `json:"suspend_timeout_seconds"`
	Provisioner           string          `json:"provisioner"`
}

func endpointViewOf(p *projectState, b *branchState, ep *endpointState) endpointView {
	settings := ep.Settings
	if len(settings) == 0 {
		settings = json.RawMessage(`{}`)
	}
	return endpointView{
		Host:                  ep.host(p),
		ID:                    ep.ID,
		Name:                  ep.Name,
		ProjectID:             p.Project.ID,
		BranchID:              b.ID,
		MinCU:                 ep.MinCU,
		MaxCU:                 ep.MaxCU,
		RegionID:              p.Project.RegionID,
		Type:                  ep.Type,
		CurrentState:          "idle",
		Settings:              settings,
		PoolerEnabled:         ep.PoolerEnabled,
		PoolerMode:            "transaction",
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
func (ep *endpointState) operation(p *projectState, b *branchState, action string) operation {
	op := finishedOperation(p.Project.ID, b.ID, action, ep.UpdatedAt)
	op.EndpointID = ep.ID
	return op
}

func endpointViewsOf(p *projectState, branches ...*branchState) []endpointView {
	out := []endpointView{}
	for _, b := range branches {
		for _, ep := range b.Endpoints {
			out = append(out, endpointViewOf(p, b, ep))
		}
	}
	return out
}

// role is Role: a role of a branch, with its password only where the API
// reveals it (on creation).
type role struct {
	BranchID  string    `json:"branch_id"`
	Name      string    `json:"name"`
	Password  string    `json:"password,omitempty"`
	Protected bool      `json:"protected"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func roleViewOf(p *projectState, b *branchState, name string, withPassword bool) role {
	r := role{BranchID: b.ID, Name: name, CreatedAt: b.CreatedAt, UpdatedAt: b.CreatedAt}
	if rs := p.roleOf(b, name); rs != nil {
		r.CreatedAt, r.UpdatedAt = rs.CreatedAt, rs.CreatedAt
		if withPassword {
			r.Password = rs.Password
		}
	}
	return r
}

func rolesOf(p *projectState, b *branchState, withPasswords bool) []role {
	out := make([]role, 0, len(b.Roles))
	for _, name := range b.Roles {
		out = append(out, roleViewOf(p, b, name, withPasswords))
	}
	return out
}

// database is Database.
type database struct {
	ID        int64     `json:"id"`
	BranchID  string    `json:"branch_id"`
	Name      string    `json:"name"`
	OwnerName string    `json:"owner_name"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func databaseViewOf(b *Branch, d Database) database {
	return database{ID: d.ID, BranchID: b.ID, Name: d.Name, OwnerName: d.OwnerName, CreatedAt: d.CreatedAt, UpdatedAt: d.CreatedAt}
}

func databasesOf(b *Branch) []database {
	out := make([]database, 0, len(b.Databases))
	for _, d := range b.Databases {
		out = append(out, databaseViewOf(b, d))
	}
	return out
}

// connectionDetails is ConnectionDetails.
type connectionDetails struct {
	URI        string `json:"connection_uri"`
	Parameters struct {
		Database   string `json:"database"`
		Password   string `json:"password"`
		Role       string `json:"role"`
		Host       string `json:"host"`
		PoolerHost string `json:"pooler_host"`
	} `json:"connection_parameters"`
}

// connectionURIs are the branch's connection URIs: its first database, as
// its owner, through its read_write endpoint (none without all three).
func connectionURIs(p *projectState, b *branchState) []connectionDetails {
	ep := b.readWriteEndpoint()
	if ep == nil || len(b.Databases) == 0 {
		return []connectionDetails{}
	}
	db := b.Databases[0]
	owner := p.roleOf(b, db.OwnerName)
	if owner == nil || owner.Password == "" {
		return []connectionDetails{}
	}
	var cd connectionDetails
	cd.Parameters.Database, cd.Parameters.Password, cd.Parameters.Role = db.Name, owner.Password, db.OwnerName
	cd.Parameters.Host, cd.Parameters.PoolerHost = ep.host(p), ep.poolerHost(p)
	cd.URI = "postgresql://" + db.OwnerName + ":" + owner.Password + "@" + ep.host(p) + "/" + db.Name + "?sslmode=require"
	return []connectionDetails{cd}
}

// endpointFields are the fields of EndpointCreateRequest.endpoint,
// EndpointUpdateRequest.endpoint and BranchCreateRequestEndpointOptions that
// the emulator keeps (internal/apispec decides which fields they may hold
// and their values).
type endpointFields struct {
	BranchID              *string         `json:"branch_id"`
	RegionID              *string         `json:"region_id"`
	Type                  *string         `json:"type"`
	Name                  *string         `json:"name"`
	Settings              json.RawMessage `json:"settings"`
	MinCU                 *float64        `json:"autoscaling_limit_min_cu"`
	MaxCU                 *float64        `json:"autoscaling_limit_max_cu"`
	Provisioner           *string         `json:"provisioner"`
	PoolerEnabled         *bool           `json:"pooler_enabled"`
	Disabled              *bool           `json:"disabled"`
	PasswordlessAccess    *bool           `json:"passwordless_access"`
	SuspendTimeoutSeconds *int64          `json:"suspend_timeout_seconds"`
}

// apply sets what was given on ep, and refuses a maximum size below the
// minimum (prefix names the request's object in the error).
func (f endpointFields) apply(ep *endpointState, prefix string) error {
	minCU, maxCU := ep.MinCU, ep.MaxCU
	set(&minCU, f.MinCU)
	set(&maxCU, f.MaxCU)
	if f.MinCU != nil && f.MaxCU == nil {
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
	if len(f.Settings) > 0 {
		ep.Settings = mergeJSON(ep.Settings, f.Settings)
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
	return c.json(http.StatusOK, map[string]any{"endpoints": endpointViewsOf(p, p.Branches...)})
}

// listBranchEndpoints serves GET /projects/{project_id}/branches/{branch_id}/endpoints.
func (e *Emulator) listBranchEndpoints(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, map[string]any{"endpoints": endpointViewsOf(p, b)})
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
	return c.json(http.StatusOK, map[string]any{"endpoint": endpointViewOf(p, b, ep)})
}

// createEndpoint serves POST /projects/{project_id}/endpoints: an endpoint
// on endpoint.branch_id (404 when the project has no such branch), in the
// project's region (another region_id is refused), sized by the request or
// else by the project's default_endpoint_settings. A branch has at most one
// read_write endpoint (409).
func (e *Emulator) createEndpoint(c *call) error {
	o, err := readDocumentBody(c, false)
	if err != nil {
		return err
	}
	var f endpointFields
	if err := json.Unmarshal(o["endpoint"], &f); err != nil {
		return invalid("endpoint", "must be a JSON object")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	b := p.branch(*f.BranchID)
	switch {
	case b == nil:
		return notFound("endpoint.branch_id: branch %s does not exist in project %s", *f.BranchID, p.Project.ID)
	case f.RegionID != nil && *f.RegionID != "" && *f.RegionID != p.Project.RegionID:
		return invalid("endpoint.region_id", "must be the project's region %s", p.Project.RegionID)
	case *f.Type == endpointReadWrite && b.readWriteEndpoint() != nil:
		return errReadWriteTaken(b)
	}
	ep := e.st.newEndpoint(p, *f.Type, now())
	if err := f.apply(ep, "endpoint."); err != nil {
		return err
	}
	b.Endpoints = append(b.Endpoints, ep)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, map[string]any{
		"endpoint":   endpointViewOf(p, b, ep),
		"operations": []operation{ep.operation(p, b, "start_compute")},
	})
}

// updateEndpoint serves PATCH /projects/{project_id}/endpoints/{endpoint_id}:
// what is given changes (settings merge into the endpoint's); the
// deprecated branch_id moves the endpoint to another branch of the project.
func (e *Emulator) updateEndpoint(c *call) error {
	o, err := readDocumentBody(c, false)
	if err != nil {
		return err
	}
	var f endpointFields
	if err := json.Unmarshal(o["endpoint"], &f); err != nil {
		return invalid("endpoint", "must be a JSON object")
	}
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
	if err := f.apply(&changed, "endpoint."); err != nil {
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
	return c.json(http.StatusOK, map[string]any{
		"endpoint":   endpointViewOf(p, target, ep),
		"operations": []operation{ep.operation(p, target, "apply_config")},
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
	return c.json(http.StatusOK, map[string]any{"endpoint": endpointViewOf(p, b, ep), "operations": []operation{}})
}
