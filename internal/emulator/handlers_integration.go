package emulator

import (
	"net/http"
	"time"
)

// The handlers of Neon Auth integrations: enabling and disabling Neon Auth,
// listing and reading integrations, SDK keys, users and ownership transfers.
// Validation order in every handler: the request body and fields (400), then
// the resources they name (404), then conflicts (409).

// credentials is NeonAuthCreateIntegrationResponse: the body of
// POST /projects/auth/create, POST .../branches/{branch_id}/auth and
// POST /projects/auth/keys. Better Auth has no SDK keys: both are "".
type credentials struct {
	AuthProvider          string `json:"auth_provider"`
	AuthProviderProjectID string `json:"auth_provider_project_id"`
	PubClientKey          string `json:"pub_client_key"`
	SecretServerKey       string `json:"secret_server_key"`
	JWKSURL               string `json:"jwks_url"`
	SchemaName            string `json:"schema_name"`
	TableName             string `json:"table_name"`
	BaseURL               string `json:"base_url,omitempty"`
}

func credentialsOf(a *BranchAuth) credentials {
	return credentials{
		AuthProvider:          a.AuthProvider,
		AuthProviderProjectID: a.AuthProviderProjectID,
		PubClientKey:          a.PubClientKey,
		SecretServerKey:       a.SecretServerKey,
		JWKSURL:               a.JWKSURL,
		SchemaName:            a.SchemaName,
		TableName:             a.TableName,
		BaseURL:               a.BaseURL,
	}
}

// enableAuth serves POST /projects/auth/create (the body names the project
// and its production branch; role_name, deprecated, must exist when given)
// and POST /projects/{project_id}/branches/{branch_id}/auth (any branch).
// database_name defaults to the branch's first database ("neondb" on a new
// project). 409 when the branch already has Neon Auth, whatever its provider.
func (e *Emulator) enableAuth(c *call) error {
	r, err := readEnableRequest(c)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.enableScope(c, r)
	if err != nil {
		return err
	}
	b := s.b
	db, roleName, err := r.databaseAndRole(b)
	if err != nil {
		return err
	}
	if a := b.Auth; a != nil {
		if a.AuthProvider == r.provider {
			return conflict("integration with auth provider %s already exists %s", r.provider, s.where())
		}
		return conflict("Neon Auth is already enabled %s, with auth provider %s", s.where(), a.AuthProvider)
	}
	b.Auth = newBranchAuth(s.p, b, r.provider, db.Name, roleName, now())
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, credentialsOf(b.Auth))
}

// enableRequest is the body of a request that enables Neon Auth; the
// project-level one also names the project, branch and role.
type enableRequest struct {
	provider, projectID, branchID string
	dbName, roleName              string
	hasDB, hasRole                bool
}

// readEnableRequest reads and checks the body of a request that enables
// Neon Auth.
func readEnableRequest(c *call) (enableRequest, error) {
	fields := []string{"auth_provider", "database_name"}
	if !branchFamily(c) {
		fields = append(fields, "project_id", "branch_id", "role_name")
	}
	var r enableRequest
	o, err := readBody(c, false, fields...)
	if err != nil {
		return r, err
	}
	if r.provider, err = o.authProvider(); err != nil {
		return r, err
	}
	r.projectID, r.branchID = c.param("project_id"), c.param("branch_id")
	if !branchFamily(c) {
		if r.projectID, err = o.requiredStr("project_id"); err != nil {
			return r, err
		}
		if r.branchID, err = o.requiredStr("branch_id"); err != nil {
			return r, err
		}
	}
	if r.dbName, r.hasDB, err = o.nonEmptyStr("database_name"); err != nil {
		return r, err
	}
	r.roleName, r.hasRole, err = o.nonEmptyStr("role_name")
	return r, err
}

// enableScope is the branch a request enables Neon Auth on: the path's, or
// the body's, which the project-level endpoint needs to be the production
// branch. e.mu is held.
func (e *Emulator) enableScope(c *call, r enableRequest) (authScope, error) {
	if branchFamily(c) {
		return e.pathScope(c)
	}
	p, err := e.visibleProject(c, r.projectID)
	if err != nil {
		return authScope{}, err
	}
	b := p.branch(r.branchID)
	if b == nil {
		return authScope{}, invalid("branch_id", "branch %s does not exist in project %s", r.branchID, r.projectID)
	}
	if !b.Default {
		return authScope{}, invalid("branch_id", "branch %s is not the default (production) branch of project %s", r.branchID, r.projectID)
	}
	return authScope{p: p, b: b, projectLevel: true}, nil
}

// databaseAndRole are the database and role the integration uses: those
// named, else the branch's first database and its owner.
func (r enableRequest) databaseAndRole(b *branchState) (*Database, string, error) {
	var db *Database
	switch {
	case r.hasDB:
		if db = b.database(r.dbName); db == nil {
			return nil, "", invalid("database_name", "database %q does not exist on branch %s", r.dbName, b.ID)
		}
	case len(b.Databases) > 0:
		db = &b.Databases[0]
	default:
		return nil, "", invalid("database_name", "branch %s has no database", b.ID)
	}
	if !r.hasRole {
		return db, db.OwnerName, nil
	}
	if !b.hasRole(r.roleName) {
		return nil, "", invalid("role_name", "role %q does not exist on branch %s", r.roleName, b.ID)
	}
	return db, r.roleName, nil
}

// integrationView is NeonAuthIntegration: an item of
// GET /projects/{project_id}/auth/integrations and the body of
// GET .../branches/{branch_id}/auth.
type integrationView struct {
	AuthProvider          string    `json:"auth_provider"`
	AuthProviderProjectID string    `json:"auth_provider_project_id"`
	BranchID              string    `json:"branch_id"`
	DBName                string    `json:"db_name"`
	CreatedAt             time.Time `json:"created_at"`
	OwnedBy               string    `json:"owned_by"`
	TransferStatus        string    `json:"transfer_status,omitempty"`
	JWKSURL               string    `json:"jwks_url"`
	BaseURL               string    `json:"base_url,omitempty"`
	Name                  string    `json:"name,omitempty"`
}

func integrationViewOf(a *BranchAuth) integrationView {
	return integrationView{
		AuthProvider:          a.AuthProvider,
		AuthProviderProjectID: a.AuthProviderProjectID,
		BranchID:              a.BranchID,
		DBName:                a.DBName,
		CreatedAt:             a.CreatedAt,
		OwnedBy:               a.OwnedBy,
		TransferStatus:        a.TransferStatus,
		JWKSURL:               a.JWKSURL,
		BaseURL:               a.BaseURL,
		Name:                  a.Name,
	}
}

// listIntegrations serves GET /projects/{project_id}/auth/integrations: the
// production branch's integration, if any (0 or 1 items).
func (e *Emulator) listIntegrations(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.pathScope(c)
	if err != nil {
		return err
	}
	out := []integrationView{}
	if a := s.b.Auth; a != nil {
		out = append(out, integrationViewOf(a))
	}
	return c.json(http.StatusOK, map[string]any{"data": out})
}

// getAuth serves GET /projects/{project_id}/branches/{branch_id}/auth; 404
// when Neon Auth is not enabled on the branch.
func (e *Emulator) getAuth(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		return integrationViewOf(a), nil
	})
}

// createSDKKeys serves POST /projects/auth/keys: a new distinct key pair
// every call. Better Auth has no SDK keys (400).
func (e *Emulator) createSDKKeys(c *call) error {
	o, err := readBody(c, false, "project_id", "auth_provider")
	if err != nil {
		return err
	}
	projectID, err := o.requiredStr("project_id")
	if err != nil {
		return err
	}
	provider, err := o.authProvider()
	if err != nil {
		return err
	}
	op := authOp{status: http.StatusCreated, save: true, project: projectID, provider: provider}
	return e.serveAuth(c, op, func(_ authScope, a *BranchAuth) (any, error) {
		if hostedByNeon(a.AuthProvider) {
			return nil, invalid("auth_provider", "%s integrations have no SDK keys: the auth server runs inside Neon at the integration's base_url; verify tokens with its jwks_url", a.AuthProvider)
		}
		a.mintKeys()
		return credentialsOf(a), nil
	})
}

// disableAuth serves DELETE /projects/{project_id}/auth/integration/{auth_provider}
// and DELETE /projects/{project_id}/branches/{branch_id}/auth, optional body
// {"delete_data": bool}. The integration's OAuth providers, domains, users,
// email provider, settings and pending transfer go with it. Answers 200 {}.
func (e *Emulator) disableAuth(c *call) error {
	o, err := readBody(c, true, "delete_data")
	if err != nil {
		return err
	}
	if _, _, err := o.boolean("delete_data"); err != nil {
		return err
	}
	provider := c.param("auth_provider")
	if !branchFamily(c) {
		if err := checkAuthProvider(provider); err != nil {
			return err
		}
	}
	return e.changeAuthWith(c, provider, http.StatusOK, func(s authScope, _ *BranchAuth) (any, error) {
		s.b.Auth = nil
		return struct{}{}, nil
	})
}

// createUser serves POST /projects/auth/user (project_id and auth_provider
// in the body) and POST /projects/{project_id}/branches/{branch_id}/auth/users.
func (e *Emulator) createUser(c *call) error {
	fields := []string{"email", "name"}
	if !branchFamily(c) {
		fields = append(fields, "project_id", "auth_provider")
	}
	o, err := readBody(c, false, fields...)
	if err != nil {
		return err
	}
	projectID, provider := c.param("project_id"), ""
	if !branchFamily(c) {
		if projectID, err = o.requiredStr("project_id"); err != nil {
			return err
		}
		if provider, err = o.authProvider(); err != nil {
			return err
		}
	}
	email, err := o.requiredStr("email")
	if err != nil {
		return err
	}
	if !validEmail(email) {
		return invalid("email", "must be an email address")
	}
	name, hasName, err := o.str("name")
	if err != nil {
		return err
	}
	if hasName {
		if n := runeCount(name); n < 1 || n > 255 {
			return invalid("name", "must be 1 to 255 characters, got %d", n)
		}
	}

	op := authOp{status: http.StatusCreated, save: true, project: projectID, provider: provider}
	return e.serveAuth(c, op, func(_ authScope, a *BranchAuth) (any, error) {
		if a.userByEmail(email) >= 0 {
			return nil, conflict("a user with this email already exists")
		}
		u := UserRow{ID: newUUID(), Email: email, Name: name, CreatedAt: now()}
		a.Users = append(a.Users, u)
		return map[string]string{"id": u.ID}, nil
	})
}

var errUserNotFound = &apiError{status: http.StatusNotFound, msg: "user not found"}

// deleteUser serves DELETE /projects/{project_id}/auth/users/{auth_user_id}
// and DELETE .../branches/{branch_id}/auth/users/{auth_user_id}: 204.
func (e *Emulator) deleteUser(c *call) error {
	return e.changeAuth(c, http.StatusNoContent, func(_ authScope, a *BranchAuth) (any, error) {
		i := a.userIndex(c.param("auth_user_id"))
		if i < 0 {
			return nil, errUserNotFound
		}
		a.Users = append(a.Users[:i], a.Users[i+1:]...)
		return nil, nil
	})
}

// setUserRoles serves PUT .../branches/{branch_id}/auth/users/{auth_user_id}/role:
// {"roles": [...]} (at least one, each a distinct non-empty string) replaces
// the user's roles. 200 {"id"}.
func (e *Emulator) setUserRoles(c *call) error {
	o, err := readBody(c, false, "roles")
	if err != nil {
		return err
	}
	roles, present, err := o.strings("roles")
	if err != nil {
		return err
	}
	if !present || len(roles) == 0 {
		return invalid("roles", "is required and must hold at least one role")
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		i := a.userIndex(c.param("auth_user_id"))
		if i < 0 {
			return nil, errUserNotFound
		}
		a.Users[i].Roles = roles
		return map[string]string{"id": a.Users[i].ID}, nil
	})
}

// transferOwnership serves POST /projects/auth/transfer_ownership. The
// transfer completes only when confirmed (ConfirmTransfer). Better Auth runs
// inside Neon: there is no provider project to transfer (400).
func (e *Emulator) transferOwnership(c *call) error {
	o, err := readBody(c, false, "project_id", "auth_provider")
	if err != nil {
		return err
	}
	projectID, err := o.requiredStr("project_id")
	if err != nil {
		return err
	}
	provider, err := o.authProvider()
	if err != nil {
		return err
	}
	op := authOp{status: http.StatusOK, save: true, project: projectID, provider: provider}
	return e.serveAuth(c, op, func(_ authScope, a *BranchAuth) (any, error) {
		if hostedByNeon(a.AuthProvider) {
			return nil, invalid("auth_provider", "%s integrations run inside Neon: there is no auth provider project to transfer", a.AuthProvider)
		}
		a.TransferCode = randomHex(16)
		a.TransferStatus = transferInitiated
		return map[string]string{
			"url": "https://app.stack-auth.com/integrations/neon/projects/transfer/confirm?code=" + a.TransferCode,
		}, nil
	})
}
