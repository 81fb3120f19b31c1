package emulator

import (
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The database and role endpoints of a branch, and the role password that a
// project storing passwords reveals.

// listDatabases serves GET /projects/{project_id}/branches/{branch_id}/databases.
func (e *Emulator) listDatabases(c *call) error {
	return e.inBranch(c, func(_ *projectState, b *branchState) error {
		return c.json(http.StatusOK, neonapi.DatabasesResponse{Databases: databasesOf(&b.Branch)})
	})
}

// inDatabase runs f, under the lock, on the database of the path (its index
// in the branch's databases).
func (e *Emulator) inDatabase(c *call, f func(p *projectState, b *branchState, i int) error) error {
	return e.inBranch(c, func(p *projectState, b *branchState) error {
		i := b.database(c.param("database_name"))
		if i < 0 {
			return notFound("database %s not found on branch %s", c.param("database_name"), b.ID)
		}
		return f(p, b, i)
	})
}

// getDatabase serves GET …/databases/{database_name}.
func (e *Emulator) getDatabase(c *call) error {
	return e.inDatabase(c, func(_ *projectState, b *branchState, i int) error {
		return c.json(http.StatusOK, neonapi.DatabaseResponse{Database: databaseViewOf(&b.Branch, b.Databases[i])})
	})
}

// checkDatabase refuses the fields of DatabaseUpdateRequest.database (which
// DatabaseCreateRequest.database has too, required there) that the
// reference allows and the API does not: an empty name, a name another
// database of the branch has (409), an owner that is no role of the branch
// (404).
func checkDatabase(f neonapi.DatabaseUpdateRequest, b *branchState, self string) error {
	db := f.Database
	if err := firstError(notEmpty("database.name", db.Name), notEmpty("database.owner_name", db.OwnerName)); err != nil {
		return err
	}
	switch {
	case db.OwnerName != nil && !b.hasRole(*db.OwnerName):
		return notFound("database.owner_name: role %s does not exist on branch %s", *db.OwnerName, b.ID)
	case db.Name != nil && *db.Name != self && b.database(*db.Name) >= 0:
		return conflict("database %s already exists on branch %s", *db.Name, b.ID)
	}
	return nil
}

// createDatabase serves POST …/databases: a database owned by a role of the
// branch.
func (e *Emulator) createDatabase(c *call) error {
	var f neonapi.DatabaseUpdateRequest
	if _, err := c.decode(&f); err != nil {
		return err
	}
	return e.inBranch(c, func(p *projectState, b *branchState) error {
		if err := checkDatabase(f, b, ""); err != nil {
			return err
		}
		d := Database{ID: b.nextDatabaseID(), Name: *f.Database.Name, OwnerName: *f.Database.OwnerName, CreatedAt: now()}
		b.Databases = append(b.Databases, d)
		return e.saved(c, http.StatusCreated, neonapi.DatabaseOperations{Database: databaseViewOf(&b.Branch, d), Operations: applyConfig(p, b)})
	})
}

// updateDatabase serves PATCH …/databases/{database_name}: a new name, a
// new owner.
func (e *Emulator) updateDatabase(c *call) error {
	var f neonapi.DatabaseUpdateRequest
	if _, err := c.decode(&f); err != nil {
		return err
	}
	return e.inDatabase(c, func(p *projectState, b *branchState, i int) error {
		d := &b.Databases[i]
		if err := checkDatabase(f, b, d.Name); err != nil {
			return err
		}
		if api := b.dataAPI(d.Name); api != nil && f.Database.Name != nil {
			api.DatabaseName = *f.Database.Name // its Data API follows the database
		}
		set(&d.Name, f.Database.Name)
		set(&d.OwnerName, f.Database.OwnerName)
		return e.saved(c, http.StatusOK, neonapi.DatabaseOperations{Database: databaseViewOf(&b.Branch, *d), Operations: applyConfig(p, b)})
	})
}

// deleteDatabase serves DELETE …/databases/{database_name}, with its Data
// API; a database that does not exist (any more) answers 204.
func (e *Emulator) deleteDatabase(c *call) error {
	return e.inBranch(c, func(p *projectState, b *branchState) error {
		i := b.database(c.param("database_name"))
		if i < 0 {
			return c.empty(http.StatusNoContent)
		}
		d := b.Databases[i]
		b.Databases = slices.Delete(b.Databases, i, i+1)
		b.removeDataAPI(d.Name)
		return e.saved(c, http.StatusOK, neonapi.DatabaseOperations{Database: databaseViewOf(&b.Branch, d), Operations: applyConfig(p, b)})
	})
}

// listRoles serves GET …/roles.
func (e *Emulator) listRoles(c *call) error {
	return e.inBranch(c, func(p *projectState, b *branchState) error {
		return c.json(http.StatusOK, neonapi.RolesResponse{Roles: rolesOf(p, b, false)})
	})
}

// inRole runs f, under the lock, on the role of the path.
func (e *Emulator) inRole(c *call, f func(p *projectState, b *branchState, name string) error) error {
	return e.inBranch(c, func(p *projectState, b *branchState) error {
		name := c.param("role_name")
		if !b.hasRole(name) {
			return notFound("role %s not found on branch %s", name, b.ID)
		}
		return f(p, b, name)
	})
}

// getRole serves GET …/roles/{role_name}.
func (e *Emulator) getRole(c *call) error {
	return e.inRole(c, func(p *projectState, b *branchState, name string) error {
		return c.json(http.StatusOK, neonapi.RoleResponse{Role: roleViewOf(p, b, name, false)})
	})
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
	return e.inBranch(c, func(p *projectState, b *branchState) error {
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
		return e.saved(c, http.StatusCreated, neonapi.RoleOperations{Role: roleViewOf(p, b, f.Name, true), Operations: applyConfig(p, b)})
	})
}

// deleteRole serves DELETE …/roles/{role_name}; a role that does not exist
// (any more) answers 204. A role that owns databases cannot go (409), as in
// Postgres.
func (e *Emulator) deleteRole(c *call) error {
	return e.inBranch(c, func(p *projectState, b *branchState) error {
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
		return e.saved(c, http.StatusOK, neonapi.RoleOperations{Role: view, Operations: applyConfig(p, b)})
	})
}

// revealRolePassword serves GET …/roles/{role_name}/reveal_password: the
// role's password, unless the project does not store passwords (412) or the
// role has none (404: created with no_login).
func (e *Emulator) revealRolePassword(c *call) error {
	return e.inRole(c, func(p *projectState, b *branchState, name string) error {
		if !p.Project.StorePasswords {
			return &apiError{status: http.StatusPreconditionFailed, msg: "project " + p.Project.ID + " does not store passwords (store_passwords is false)"}
		}
		rs := p.roleOf(b, name)
		if rs == nil || rs.Password == "" {
			return notFound("role %s on branch %s has no password", name, b.ID)
		}
		return c.json(http.StatusOK, neonapi.RolePasswordResponse{Password: rs.Password})
	})
}
