package apiclient

import (
	"context"
	"net/http"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Users of an integration: create, delete and roles (no endpoint reads one back).

// CreateUser creates a user at the auth provider: POST /projects/auth/user or
// POST /projects/{project_id}/branches/{branch_id}/auth/users. No endpoint
// reads a user back, so a lost answer is returned as ErrOutcomeUnknown and
// never sent again.
func (c *Client) CreateUser(ctx context.Context, s Scope, req CreateUserRequest) (*User, error) {
	var body any = neonapi.CreateBranchNeonAuthNewUserRequest{Email: openapi_types.Email(req.Email), Name: Optional(req.Name)}
	ep := s.auth().sub("users")
	if s.Family == FamilyProject {
		ep = projectsEndpoint.sub("auth").sub("user")
		body = neonapi.NeonAuthCreateNewUserRequest{ProjectID: s.ProjectID, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(req.AuthProvider),
			Email: openapi_types.Email(req.Email), Name: Optional(req.Name)}
	}
	var out User
	if _, err := c.write(ctx, writeCall{call: call{method: http.MethodPost, ep: ep, body: body, out: &out}, rule: neverResend}); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteUser deletes a user at the auth provider: DELETE
// /projects/{project_id}/auth/users/{auth_user_id} or its branch-scoped
// successor. A repeat of a delete that was applied answers 404, which the
// caller resolves, so a lost answer is sent again.
func (c *Client) DeleteUser(ctx context.Context, s Scope, userID string) error {
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodDelete, ep: s.auth().sub("users").param("auth_user_id", userID)},
		rule: resendFreely,
	})
	return err
}

// SetUserRoles replaces a user's roles: PUT
// /projects/{project_id}/branches/{branch_id}/auth/users/{auth_user_id}/role
// (branch family only). Setting the whole list again is harmless.
func (c *Client) SetUserRoles(ctx context.Context, s Scope, userID string, roles []string) error {
	if err := s.branchOnly("Setting user roles"); err != nil {
		return err
	}
	_, err := c.write(ctx, writeCall{
		call: call{method: http.MethodPut, ep: s.auth().sub("users").param("auth_user_id", userID).sub("role"),
			body: neonapi.UpdateNeonAuthUserRoleRequest{Roles: roles}, out: &neonapi.UpdateNeonAuthUserRoleResponse{}},
		rule: resendFreely,
	})
	return err
}
