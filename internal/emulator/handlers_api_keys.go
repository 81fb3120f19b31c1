package emulator

import (
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// API keys through the API: a user's personal keys (/api_keys) and the
// organization's keys, optionally scoped to one project
// (/organizations/{org_id}/api_keys). A key made here works at once; a
// revoked one gets 401 on every later request (authenticate), and neither
// list shows it again. See internal/apispec/platform-behaviour.md for the
// sources.

// keyUse is when and from where a key was last used.
type keyUse struct {
	at   time.Time
	addr string
}

// noteKeyUse records a request authenticated by k. e.mu must be held. The
// use is not part of the state: a refused request changes no state.
func (e *Emulator) noteKeyUse(k *apiKey, r *http.Request) {
	addr, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		addr = r.RemoteAddr
	}
	e.keyUse[k.ID] = keyUse{at: now(), addr: addr}
}

// lastUse is what the key lists show of a key's last use.
func (e *Emulator) lastUse(k *apiKey) (*time.Time, string) {
	u, ok := e.keyUse[k.ID]
	if !ok {
		return nil, ""
	}
	return new(u.at), u.addr
}

// creator is the user every key was made by: the organization's admin, the
// one user of the emulator.
func (e *Emulator) creator() neonapi.APIKeyCreatorData {
	id, _ := uuid.Parse(e.st.OwnerID)
	return neonapi.APIKeyCreatorData{ID: id, Name: "admin", Image: ""}
}

// isPersonal reports whether k is a user's key, which /api_keys manages.
func isPersonal(k *apiKey) bool { return k.Kind == KeyPersonal }

// isOrganizations reports whether k is an organization's key (admin-level or
// scoped to one project), which /organizations/{org_id}/api_keys manages.
func isOrganizations(k *apiKey) bool { return k.Kind == KeyOrganization || k.Kind == KeyProject }

// requirePersonalKey refuses a caller whose key is not a personal key: the
// personal keys are the user's, and only the user's own key manages them.
func requirePersonalKey(c *call) error {
	if c.key.kind != KeyPersonal {
		return forbidden("only a personal API key manages personal API keys (/api_keys); this is a %s key", c.key.kind)
	}
	return nil
}

// listAPIKeys serves GET /api_keys: the user's personal keys that are not
// revoked, oldest first.
func (e *Emulator) listAPIKeys(c *call) error {
	if err := requirePersonalKey(c); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []neonapi.APIKeysListResponseItem{}
	for _, k := range e.st.Keys {
		if isPersonal(k) && !k.Revoked {
			at, addr := e.lastUse(k)
			out = append(out, neonapi.APIKeysListResponseItem{ID: k.ID, Name: k.Name, CreatedAt: k.CreatedAt, CreatedBy: e.creator(),
				LastUsedAt: at, LastUsedFromAddr: addr})
		}
	}
	return c.json(http.StatusOK, out)
}

// createAPIKey serves POST /api_keys: a personal key of the user, whose
// token the answer holds once.
func (e *Emulator) createAPIKey(c *call) error {
	if err := requirePersonalKey(c); err != nil {
		return err
	}
	var req neonapi.APIKeyCreateRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	if err := notEmpty("key_name", &req.KeyName); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	token := newAPIKeyToken()
	k := e.st.ensureKey(token, KeyPersonal, "", req.KeyName, now())
	return e.saved(c, http.StatusOK, neonapi.APIKeyCreateResponse{ID: k.ID, Key: token, Name: k.Name, CreatedAt: k.CreatedAt,
		CreatedBy: e.creator().ID})
}

// revokeAPIKey serves DELETE /api_keys/{key_id}: a personal key that is not
// revoked yet; any other id answers 404.
func (e *Emulator) revokeAPIKey(c *call) error {
	if err := requirePersonalKey(c); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	k, err := e.liveKey(c.param("key_id"), isPersonal)
	if err != nil {
		return err
	}
	k.Revoked = true
	at, addr := e.lastUse(k)
	return e.saved(c, http.StatusOK, neonapi.APIKeyRevokeResponse{ID: k.ID, Name: k.Name, CreatedAt: k.CreatedAt, CreatedBy: e.creator().ID,
		LastUsedAt: at, LastUsedFromAddr: addr, Revoked: true})
}

// liveKey is the key of id that is of the kind ofKind accepts and not
// revoked; 404 otherwise. e.mu must be held.
func (e *Emulator) liveKey(id string, ofKind func(*apiKey) bool) (*apiKey, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err == nil && n >= 1 && n <= int64(len(e.st.Keys)) {
		if k := e.st.Keys[n-1]; ofKind(k) && !k.Revoked {
			return k, nil
		}
	}
	return nil, notFound("API key %s not found", id)
}

// inOrganization runs f, under the lock, for the organization of the path,
// which the caller's key must belong to and be allowed to manage: a
// personal key (of the admin, the emulator's one user) or an organization
// key. A project-scoped key is refused (403): it "cannot perform
// organization-related actions".
func (e *Emulator) inOrganization(c *call, f func() error) error {
	if c.key.kind == KeyProject {
		return forbidden("project-scoped API keys cannot manage the organization's API keys")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if c.param("org_id") != e.st.OrgID {
		return notFound("organization %s not found", c.param("org_id"))
	}
	return f()
}

// listOrgAPIKeys serves GET /organizations/{org_id}/api_keys: its keys that
// are not revoked, project-scoped ones with their project, oldest first.
func (e *Emulator) listOrgAPIKeys(c *call) error {
	return e.inOrganization(c, func() error {
		out := []neonapi.OrgAPIKeysListResponseItem{}
		for _, k := range e.st.Keys {
			if isOrganizations(k) && !k.Revoked {
				at, addr := e.lastUse(k)
				out = append(out, neonapi.OrgAPIKeysListResponseItem{ID: k.ID, Name: k.Name, CreatedAt: k.CreatedAt, CreatedBy: e.creator(),
					LastUsedAt: at, LastUsedFromAddr: addr, ProjectID: nonEmpty(k.ProjectID)})
			}
		}
		return c.json(http.StatusOK, out)
	})
}

// createOrgAPIKey serves POST /organizations/{org_id}/api_keys: an
// organization key, or with project_id a key of that project only.
func (e *Emulator) createOrgAPIKey(c *call) error {
	var req neonapi.OrgAPIKeyCreateRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	if err := notEmpty("key_name", &req.KeyName); err != nil {
		return err
	}
	return e.inOrganization(c, func() error {
		kind, projectID := KeyOrganization, ""
		if req.ProjectID != nil {
			if e.st.project(*req.ProjectID) == nil {
				return notFound("project_id: project %s not found in organization %s", *req.ProjectID, e.st.OrgID)
			}
			kind, projectID = KeyProject, *req.ProjectID
		}
		token := newAPIKeyToken()
		k := e.st.ensureKey(token, kind, projectID, req.KeyName, now())
		return e.saved(c, http.StatusOK, neonapi.OrgAPIKeyCreateResponse{ID: k.ID, Key: token, Name: k.Name, CreatedAt: k.CreatedAt,
			CreatedBy: e.creator().ID, ProjectID: nonEmpty(k.ProjectID)})
	})
}

// revokeOrgAPIKey serves DELETE /organizations/{org_id}/api_keys/{key_id}.
func (e *Emulator) revokeOrgAPIKey(c *call) error {
	return e.inOrganization(c, func() error {
		k, err := e.liveKey(c.param("key_id"), isOrganizations)
		if err != nil {
			return err
		}
		k.Revoked = true
		at, addr := e.lastUse(k)
		return e.saved(c, http.StatusOK, neonapi.OrgAPIKeyRevokeResponse{ID: k.ID, Name: k.Name, CreatedAt: k.CreatedAt, CreatedBy: e.creator().ID,
			LastUsedAt: at, LastUsedFromAddr: addr, ProjectID: nonEmpty(k.ProjectID), Revoked: true})
	})
}
