package emulator

import (
	"net/http"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The handlers of an integration's lifecycle: enabling Neon Auth on a branch,
// reading it, SDK keys, users and the ownership transfer. Validation order in
// every handler: the request body and fields (400), then the resources they
// name (404), then conflicts (409).

// credentialsOf is the body of POST /projects/auth/create,
// POST .../branches/{branch_id}/auth and POST /projects/auth/keys
// (NeonAuthCreateIntegrationResponse). Better Auth has no SDK keys: both
// are "".
func credentialsOf(a *BranchAuth) neonapi.NeonAuthCreateIntegrationResponse {
	return neonapi.NeonAuthCreateIntegrationResponse{
		AuthProvider:          neonapi.NeonAuthSupportedAuthProvider(a.AuthProvider),
		AuthProviderProjectID: a.AuthProviderProjectID,
		PubClientKey:          a.PubClientKey,
		SecretServerKey:       a.SecretServerKey,
		JWKSURL:               a.JWKSURL,
		SchemaName:            a.SchemaName,
		TableName:             a.TableName,
		BaseURL:               nonEmpty(a.BaseURL),
	}
}

// enableAuth serves POST /projects/auth/create (the body names the project
// and its production branch; role_name, deprecated, must exist when given)
// and POST /projects/{project_id}/branches/{branch_id}/auth (any branch).
// database_name defaults to the branch's first database ("neondb" on a new
// project). 409 when the branch already has Neon Auth, whatever its provider.
func (e *Emulator) enableAuth(c *call) error {
	// The project-level request; the branch-scoped one
	// (EnableNeonAuthIntegrationRequest) has only some of its fields.
	var req neonapi.NeonAuthCreateIntegrationRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	role := req.RoleName //nolint:staticcheck // role_name is deprecated, and the emulator serves it as the API still does
	if err := firstError(notEmpty("database_name", req.DatabaseName), notEmpty("role_name", role)); err != nil {
		return err
	}
	provider := string(req.AuthProvider)
	projectID, branchID := c.param("project_id"), c.param("branch_id")
	if !branchFamily(c) {
		projectID, branchID = req.ProjectID, req.BranchID
	}
	dbName, hasDB := deref(req.DatabaseName)
	roleName, hasRole := deref(role)

	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.enableAuthScope(c, projectID, branchID)
	if err != nil {
		return err
	}
	b := s.b
	db, err := authDatabase(b, dbName, hasDB)
	if err != nil {
		return err
	}
	if !hasRole {
		roleName = db.OwnerName
	} else if !b.hasRole(roleName) {
		return invalid("role_name", "role %q does not exist on branch %s", roleName, b.ID)
	}
	if a := b.Auth; a != nil {
		if a.AuthProvider == provider {
			return conflict("integration with auth provider %s already exists %s", provider, s.where())
		}
		return conflict("Neon Auth is already enabled %s, with auth provider %s", s.where(), a.AuthProvider)
	}
	b.Auth = newBranchAuth(s.p, b, provider, db.Name, roleName, now())
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, credentialsOf(b.Auth))
}

// enableAuthScope is the branch Neon Auth is enabled on: the path's in the
// branch family, else the body's, which must be the project's default
// (production) branch. e.mu is held.
func (e *Emulator) enableAuthScope(c *call, projectID, branchID string) (authScope, error) {
	if branchFamily(c) {
		return e.pathScope(c)
	}
	p, err := e.visibleProject(c, projectID)
	if err != nil {
		return authScope{}, err
	}
	b := p.branch(branchID)
	if b == nil {
		return authScope{}, invalid("branch_id", "branch %s does not exist in project %s", branchID, projectID)
	}
	if !b.Default {
		return authScope{}, invalid("branch_id", "branch %s is not the default (production) branch of project %s", branchID, projectID)
	}
	return authScope{p: p, b: b, projectLevel: true}, nil
}

// authDatabase is the database Neon Auth is enabled in: the one named, else
// the branch's first.
func authDatabase(b *branchState, dbName string, named bool) (*Database, error) {
	switch {
	case named:
		db := b.database(dbName)
		if db == nil {
			return nil, invalid("database_name", "database %q does not exist on branch %s", dbName, b.ID)
		}
		return db, nil
	case len(b.Databases) > 0:
		return &b.Databases[0], nil
	}
	return nil, invalid("database_name", "branch %s has no database", b.ID)
}

// integrationViewOf is an integration as the API shows it
// (NeonAuthIntegration): an item of GET /projects/{project_id}/auth/integrations
// and the body of GET .../branches/{branch_id}/auth.
func integrationViewOf(a *BranchAuth) neonapi.NeonAuthIntegration {
	v := neonapi.NeonAuthIntegration{
		AuthProvider:          neonapi.NeonAuthSupportedAuthProvider(a.AuthProvider),
		AuthProviderProjectID: a.AuthProviderProjectID,
		BranchID:              a.BranchID,
		DBName:                a.DBName,
		CreatedAt:             a.CreatedAt,
		OwnedBy:               neonapi.NeonAuthProviderProjectOwnedBy(a.OwnedBy),
		JWKSURL:               a.JWKSURL,
		BaseURL:               nonEmpty(a.BaseURL),
		Name:                  nonEmpty(a.Name),
	}
	if a.TransferStatus != "" {
		v.TransferStatus = new(neonapi.NeonAuthProviderProjectTransferStatus(a.TransferStatus))
	}
	return v
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
	out := neonapi.ListNeonAuthIntegrationsResponse{Data: []neonapi.NeonAuthIntegration{}}
	if a := s.b.Auth; a != nil {
		out.Data = append(out.Data, integrationViewOf(a))
	}
	return c.json(http.StatusOK, out)
}

// getAuth serves GET /projects/{project_id}/branches/{branch_id}/auth; 404
// when Neon Auth is not enabled on the branch.
func (e *Emulator) getAuth(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		return integrationViewOf(a), nil
	})
}

// readProjectProvider reads a body of exactly project_id and auth_provider,
// both required (NeonAuthCreateAuthProviderSDKKeysRequest, and
// NeonAuthTransferAuthProviderProjectRequest of the same fields).
func readProjectProvider(c *call) (projectID, provider string, err error) {
	var req neonapi.NeonAuthCreateAuthProviderSDKKeysRequest
	if _, err := c.decode(&req); err != nil {
		return "", "", err
	}
	return req.ProjectID, string(req.AuthProvider), nil
}

// createSDKKeys serves POST /projects/auth/keys: a new distinct key pair
// every call. Better Auth has no SDK keys (400).
func (e *Emulator) createSDKKeys(c *call) error {
	projectID, provider, err := readProjectProvider(c)
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
	if _, err := c.decode(nil); err != nil { // delete_data: the emulator keeps nothing
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
	// The project-level request; the branch-scoped one
	// (CreateBranchNeonAuthNewUserRequest) has only some of its fields.
	var req neonapi.NeonAuthCreateNewUserRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	projectID, provider := c.param("project_id"), ""
	if !branchFamily(c) {
		projectID, provider = req.ProjectID, string(req.AuthProvider)
	}
	email := string(req.Email)
	name, _ := deref(req.Name)

	op := authOp{status: http.StatusCreated, save: true, project: projectID, provider: provider}
	return e.serveAuth(c, op, func(_ authScope, a *BranchAuth) (any, error) {
		if a.userByEmail(email) >= 0 {
			return nil, conflict("a user with this email already exists")
		}
		u := UserRow{ID: newUUID(), Email: email, Name: name, CreatedAt: now()}
		a.Users = append(a.Users, u)
		return neonapi.NeonAuthCreateNewUserResponse{ID: u.ID}, nil
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
	var req neonapi.UpdateNeonAuthUserRoleRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	roles := req.Roles
	if err := distinct("roles", roles); err != nil {
		return err
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		i := a.userIndex(c.param("auth_user_id"))
		if i < 0 {
			return nil, errUserNotFound
		}
		a.Users[i].Roles = roles
		return neonapi.UpdateNeonAuthUserRoleResponse{ID: a.Users[i].ID}, nil
	})
}

// transferOwnership serves POST /projects/auth/transfer_ownership. The
// transfer completes only when confirmed (ConfirmTransfer). Better Auth runs
// inside Neon: there is no provider project to transfer (400).
func (e *Emulator) transferOwnership(c *call) error {
	projectID, provider, err := readProjectProvider(c)
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
		return neonapi.NeonAuthTransferAuthProviderProjectResponse{
			URL: "https://app.stack-auth.com/integrations/neon/projects/transfer/confirm?code=" + a.TransferCode,
		}, nil
	})
}
