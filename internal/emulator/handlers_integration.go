package emulator

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The endpoints of an integration's lifecycle: enabling Neon Auth on a
// branch, reading it, SDK keys, users and the ownership transfer.
// Validation order in every handler: the request body and fields (400),
// then the resources they name (404), then conflicts (409).

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
	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.enableAuthScope(c, req.ProjectID, req.BranchID)
	if err != nil {
		return err
	}
	b := s.b
	db := 0
	if req.DatabaseName != nil {
		if db = b.database(*req.DatabaseName); db < 0 {
			return invalid("database_name", "database %q does not exist on branch %s", *req.DatabaseName, b.ID)
		}
	} else if len(b.Databases) == 0 {
		return invalid("database_name", "branch %s has no database", b.ID)
	}
	roleName := b.Databases[db].OwnerName
	if role != nil {
		if roleName = *role; !b.hasRole(roleName) {
			return invalid("role_name", "role %q does not exist on branch %s", roleName, b.ID)
		}
	}
	if a := b.Auth; a != nil {
		if a.AuthProvider == provider {
			return conflict("integration with auth provider %s already exists %s", provider, s.where())
		}
		return conflict("Neon Auth is already enabled %s, with auth provider %s", s.where(), a.AuthProvider)
	}
	b.Auth = newBranchAuth(s.p.Project, b.ID, provider, b.Databases[db].Name, roleName, now())
	return e.saved(c, http.StatusCreated, credentialsOf(b.Auth))
}

// enableAuthScope is the branch Neon Auth is enabled on: the path's in the
// branch family, else the body's, which must be the project's default
// (production) branch. e.mu is held.
func (e *Emulator) enableAuthScope(c *call, projectID, branchID string) (authScope, error) {
	if branchFamily(c) {
		return e.scopeOf(c, c.param("project_id"))
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

// listIntegrations serves GET /projects/{project_id}/auth/integrations: the
// production branch's integration, if any (0 or 1 items).
func (e *Emulator) listIntegrations(c *call) error {
	return e.inProject(c, func(p *projectState) error {
		out := neonapi.ListNeonAuthIntegrationsResponse{Data: []neonapi.NeonAuthIntegration{}}
		if a := p.defaultBranch().Auth; a != nil {
			out.Data = append(out.Data, integrationViewOf(a))
		}
		return c.json(http.StatusOK, out)
	})
}

// getAuth serves GET /projects/{project_id}/branches/{branch_id}/auth; 404
// when Neon Auth is not enabled on the branch.
func (e *Emulator) getAuth(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		return integrationViewOf(a), nil
	})
}

// inBodyProject is an authOp on the project and auth provider a body names
// (project_id and auth_provider of NeonAuthCreateAuthProviderSDKKeysRequest,
// and of NeonAuthTransferAuthProviderProjectRequest of the same fields).
func inBodyProject(c *call, status int) (authOp, error) {
	var req neonapi.NeonAuthCreateAuthProviderSDKKeysRequest
	_, err := c.decode(&req)
	return authOp{status: status, save: true, project: req.ProjectID, provider: string(req.AuthProvider)}, err
}

// createSDKKeys serves POST /projects/auth/keys: a new distinct key pair
// every call. Better Auth has no SDK keys (400).
func (e *Emulator) createSDKKeys(c *call) error {
	op, err := inBodyProject(c, http.StatusCreated)
	if err != nil {
		return err
	}
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
	op := authOp{status: http.StatusCreated, save: true, project: req.ProjectID, provider: string(req.AuthProvider)}
	return e.serveAuth(c, op, func(_ authScope, a *BranchAuth) (any, error) {
		if a.userByEmail(string(req.Email)) >= 0 {
			return nil, conflict("a user with this email already exists")
		}
		u := UserRow{ID: uuid.NewString(), Email: string(req.Email), Name: *orZero(req.Name), CreatedAt: now()}
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
	if err := distinct("roles", req.Roles); err != nil {
		return err
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		i := a.userIndex(c.param("auth_user_id"))
		if i < 0 {
			return nil, errUserNotFound
		}
		a.Users[i].Roles = req.Roles
		return neonapi.UpdateNeonAuthUserRoleResponse{ID: a.Users[i].ID}, nil
	})
}

// transferOwnership serves POST /projects/auth/transfer_ownership. The
// transfer completes only when confirmed (ConfirmTransfer). Better Auth runs
// inside Neon: there is no provider project to transfer (400).
func (e *Emulator) transferOwnership(c *call) error {
	op, err := inBodyProject(c, http.StatusOK)
	if err != nil {
		return err
	}
	return e.serveAuth(c, op, func(_ authScope, a *BranchAuth) (any, error) {
		if hostedByNeon(a.AuthProvider) {
			return nil, invalid("auth_provider", "%s integrations run inside Neon: there is no auth provider project to transfer", a.AuthProvider)
		}
		a.TransferStatus = transferInitiated
		return neonapi.NeonAuthTransferAuthProviderProjectResponse{
			URL: "https://app.stack-auth.com/integrations/neon/projects/transfer/confirm?code=" + randomHex(16),
		}, nil
	})
}
