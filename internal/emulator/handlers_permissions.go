package emulator

import (
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Sharing a project: GET, POST /projects/{project_id}/permissions and DELETE
// /projects/{project_id}/permissions/{permission_id}. A grant names an
// account by its email; a revoked grant is gone from the list. See
// internal/apispec/platform-behaviour.md for the sources.

// listPermissions serves GET …/permissions: the grants in force, in the
// order given.
func (e *Emulator) listPermissions(c *call) error {
	return e.inProject(c, func(p *projectState) error {
		out := neonapi.ProjectPermissions{ProjectPermissions: slices.Clone(p.Permissions)}
		if out.ProjectPermissions == nil {
			out.ProjectPermissions = []neonapi.ProjectPermission{}
		}
		return c.json(http.StatusOK, out)
	})
}

// grantPermission serves POST …/permissions: access for the account of the
// email. An email that already has access is refused (409).
func (e *Emulator) grantPermission(c *call) error {
	var req neonapi.GrantPermissionToProjectRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	return e.inProject(c, func(p *projectState) error {
		if slices.ContainsFunc(p.Permissions, func(g neonapi.ProjectPermission) bool {
			return strings.EqualFold(string(g.GrantedToEmail), string(req.Email))
		}) {
			return conflict("project %s is already shared with that email", p.Project.ID)
		}
		g := neonapi.ProjectPermission{ID: uuid.NewString(), GrantedToEmail: req.Email, GrantedAt: now()}
		p.Permissions = append(p.Permissions, g)
		return e.saved(c, http.StatusOK, g)
	})
}

// revokePermission serves DELETE …/permissions/{permission_id}: it answers
// the grant with the time it was revoked and forgets it; an id that names no
// grant answers 404.
func (e *Emulator) revokePermission(c *call) error {
	return e.inProject(c, func(p *projectState) error {
		i := slices.IndexFunc(p.Permissions, func(g neonapi.ProjectPermission) bool { return g.ID == c.param("permission_id") })
		if i < 0 {
			return notFound("permission %s not found in project %s", c.param("permission_id"), p.Project.ID)
		}
		g := p.Permissions[i]
		g.RevokedAt = new(now())
		p.Permissions = slices.Delete(p.Permissions, i, i+1)
		return e.saved(c, http.StatusOK, g)
	})
}
