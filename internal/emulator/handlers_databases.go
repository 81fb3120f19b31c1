package emulator

import (
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The handlers of the databases and roles of a branch, and of the role
// password that a project storing passwords reveals.

// branchDatabase finds a database of the branch by name.
func (b *branchState) branchDatabase(name string) (int, bool) {
	i := slices.IndexFunc(b.Databases, func(d Database) bool { return d.Name == name })
	return i, i >= 0
}

func errDatabaseNotFound(b *branchState, name string) error {
	return notFound("database %s not found on branch %s", name, b.ID)
}

// listDatabases serves GET /projects/{project_id}/branches/{branch_id}/databases.
func (e *Emulator) listDatabases(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.DatabasesResponse{Databases: databasesOf(&b.Branch)})
}

// getDatabase serves GET …/databases/{database_name}.
func (e *Emulator) getDatabase(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	i, ok := b.branchDatabase(c.param("database_name"))
	if !ok {
		return errDatabaseNotFound(b, c.param("database_name"))
	}
	return c.json(http.StatusOK, neonapi.DatabaseResponse{Database: databaseViewOf(&b.Branch, b.Databases[i])})
}

// databaseFields are the fields of DatabaseUpdateRequest.database, which
// DatabaseCreateRequest.database has too (required there).
type databaseFields = neonapi.DatabaseUpdateRequest

// check refuses an empty name, a name another database of the branch has
// (409) and an owner that is no role of the branch (404).
func checkDatabase(req databaseFields, b *branchState, self string) error {
	f := req.Database
	switch {
	case f.Name != nil && *f.Name == "":
		return invalid("database.name", "must not be empty")
	case f.OwnerName != nil && *f.OwnerName == "":
		return invalid("database.owner_name", "must not be empty")
	case f.OwnerName != nil && !b.hasRole(*f.OwnerName):
		return notFound("database.owner_name: role %s does not exist on branch %s", *f.OwnerName, b.ID)
	}
	if f.Name != nil && *f.Name != self {
		if _, taken := b.branchDatabase(*f.Name); taken {
			return conflict("database %s already exists on branch %s", *f.Name, b.ID)
		}
	}
	return nil
}

// databaseRequest reads the database object of a create or update body.
func databaseRequest(c *call) (databaseFields, error) {
	var f databaseFields
	_, err := c.decode(&f)
	return f, err
}

// createDatabase serves POST …/databases: a database owned by a role of the
// branch.
func (e *Emulator) createDatabase(c *call) error {
	f, err := databaseRequest(c)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	if err := checkDatabase(f, b, ""); err != nil {
		return err
	}
	d := Database{ID: b.nextDatabaseID(), Name: *f.Database.Name, OwnerName: *f.Database.OwnerName, CreatedAt: now()}
	b.Databases = append(b.Databases, d)
	return e.answerDatabase(c, http.StatusCreated, p, b, d)
}

// updateDatabase serves PATCH …/databases/{database_name}: a new name, a
// new owner.
func (e *Emulator) updateDatabase(c *call) error {
	f, err := databaseRequest(c)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	i, ok := b.branchDatabase(c.param("database_name"))
	if !ok {
		return errDatabaseNotFound(b, c.param("database_name"))
	}
	if err := checkDatabase(f, b, b.Databases[i].Name); err != nil {
		return err
	}
	set(&b.Databases[i].Name, f.Database.Name)
	set(&b.Databases[i].OwnerName, f.Database.OwnerName)
	return e.answerDatabase(c, http.StatusOK, p, b, b.Databases[i])
}

// deleteDatabase serves DELETE …/databases/{database_name}; a database that
// does not exist (any more) answers 204.
func (e *Emulator) deleteDatabase(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	i, ok := b.branchDatabase(c.param("database_name"))
	if !ok {
		return c.empty(http.StatusNoContent)
	}
	d := b.Databases[i]
	b.Databases = slices.Delete(b.Databases, i, i+1)
	return e.answerDatabase(c, http.StatusOK, p, b, d)
}

// answerDatabase saves the state and answers with the database and the
// finished operation that applied the change to the branch's compute.
func (e *Emulator) answerDatabase(c *call, status int, p *projectState, b *branchState, d Database) error {
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(status, neonapi.DatabaseOperations{Database: databaseViewOf(&b.Branch, d), Operations: applyConfig(p, b)})
}

// applyConfig is the operation a change of roles or databases makes: the
// branch's read_write compute applies it (none without one).
func applyConfig(p *projectState, b *branchState) []neonapi.Operation {
	ep := b.readWriteEndpoint()
	if ep == nil {
		return []neonapi.Operation{}
	}
	op := finishedOperation(p.Project.ID, b.ID, neonapi.OperationActionApplyConfig, now())
	op.EndpointID = new(ep.ID)
	return []neonapi.Operation{op}
}

// listRoles serves GET …/roles.
func (e *Emulator) listRoles(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.RolesResponse{Roles: rolesOf(p, b, false)})
}

// visibleRole finds the role of the path. e.mu must be held.
func (e *Emulator) visibleRole(c *call) (*projectState, *branchState, string, error) {
	p, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return nil, nil, "", err
	}
	name := c.param("role_name")
	if !b.hasRole(name) {
		return nil, nil, "", notFound("role %s not found on branch %s", name, b.ID)
	}
	return p, b, name, nil
}

// getRole serves GET …/roles/{role_name}.
func (e *Emulator) getRole(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, name, err := e.visibleRole(c)
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.RoleResponse{Role: roleViewOf(p, b, name, false)})
}

// createRole serves POST …/roles: a role with a new password (none with
// no_login), revealed in the answer. Names are unique on a branch (409).
func (e *Emulator) createRole(c *call) error {
	var req neonapi.RoleCreateRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	f := req.Role
	if f.Name == "" {
		return invalid("role.name", "must not be empty")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	if b.hasRole(f.Name) {
		return conflict("role %s already exists on branch %s", f.Name, b.ID)
	}
	rs := &roleState{CreatedAt: now()}
	if f.NoLogin == nil || !*f.NoLogin {
		rs.Password = newRolePassword()
	}
	p.ownRoles(b)
	b.Roles = append(b.Roles, f.Name)
	b.RoleStates[f.Name] = rs
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, neonapi.RoleOperations{Role: roleViewOf(p, b, f.Name, true), Operations: applyConfig(p, b)})
}

// deleteRole serves DELETE …/roles/{role_name}; a role that does not exist
// (any more) answers 204. A role that owns databases cannot go (409), as in
// Postgres.
func (e *Emulator) deleteRole(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	name := c.param("role_name")
	if !b.hasRole(name) {
		return c.empty(http.StatusNoContent)
	}
	if i := slices.IndexFunc(b.Databases, func(d Database) bool { return d.OwnerName == name }); i >= 0 {
		return conflict("role %s owns database %s on branch %s: delete the database or give it another owner first",
			name, b.Databases[i].Name, b.ID)
	}
	view := roleViewOf(p, b, name, false)
	p.ownRoles(b)
	b.Roles = slices.DeleteFunc(b.Roles, func(r string) bool { return r == name })
	delete(b.RoleStates, name)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.RoleOperations{Role: view, Operations: applyConfig(p, b)})
}

// revealRolePassword serves GET …/roles/{role_name}/reveal_password: the
// role's password, unless the project does not store passwords (412) or the
// role has none (404: created with no_login).
func (e *Emulator) revealRolePassword(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, name, err := e.visibleRole(c)
	if err != nil {
		return err
	}
	if !p.Project.StorePasswords {
		return &apiError{status: http.StatusPreconditionFailed, msg: "project " + p.Project.ID + " does not store passwords (store_passwords is false)"}
	}
	rs := p.roleOf(b, name)
	if rs == nil || rs.Password == "" {
		return notFound("role %s on branch %s has no password", name, b.ID)
	}
	return c.json(http.StatusOK, neonapi.RolePasswordResponse{Password: rs.Password})
}
