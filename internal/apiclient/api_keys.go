package apiclient

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// API keys made and revoked through the API: the user's personal keys
// (/api_keys) and the organization's, optionally scoped to one project
// (/organizations/{org_id}/api_keys). The provider manages no key; the
// acceptance tests use these to make a key of their own and revoke it, and
// the sweepers to revoke what a crashed run left.

// APIKey is a key the API made. Token is answered once, at creation, and is
// a secret: String never prints it.
type APIKey struct {
	ID    int64
	Name  string
	Token string
	// OrgID is the organization of an organization's key ("" for a
	// personal key); ProjectID the one project it may access ("" for all).
	OrgID, ProjectID string
}

// String describes the key without its token.
func (k APIKey) String() string {
	return "APIKey{id=" + strconv.FormatInt(k.ID, 10) + ", name=" + k.Name + ", org=" + k.OrgID + ", project=" + k.ProjectID + ", token=<redacted>}"
}

// GoString keeps %#v from printing the token.
func (k APIKey) GoString() string { return k.String() }

// ListedAPIKey is a key as a list shows it (without its token).
type ListedAPIKey struct {
	ID        int64
	Name      string
	CreatedAt time.Time
}

var (
	apiKeysEndpoint = endpoint{route: "api_keys", path: "api_keys"}
	orgsEndpoint    = endpoint{route: "organizations", path: "organizations"}
)

func orgKeysEndpoint(orgID string) endpoint {
	return orgsEndpoint.param("org_id", orgID).sub("api_keys")
}

// CreateAPIKey makes a personal key of the calling key's user named name:
// POST /api_keys. A key whose answer was lost is never made again: its token
// is gone with the answer.
func (c *Client) CreateAPIKey(ctx context.Context, name string) (*APIKey, error) {
	var out neonapi.APIKeyCreateResponse
	_, err := c.write(ctx, writeCall{call: call{method: http.MethodPost, ep: apiKeysEndpoint,
		body: neonapi.APIKeyCreateRequest{KeyName: name}, out: &out}, rule: neverResend})
	if err != nil {
		return nil, err
	}
	return &APIKey{ID: out.ID, Name: out.Name, Token: out.Key}, nil
}

// CreateOrgAPIKey makes a key of organization orgID named name, which may
// access only projectID when it is not "": POST
// /organizations/{org_id}/api_keys.
func (c *Client) CreateOrgAPIKey(ctx context.Context, orgID, name, projectID string) (*APIKey, error) {
	var out neonapi.OrgAPIKeyCreateResponse
	_, err := c.write(ctx, writeCall{call: call{method: http.MethodPost, ep: orgKeysEndpoint(orgID),
		body: neonapi.OrgAPIKeyCreateRequest{KeyName: name, ProjectID: Optional(projectID)}, out: &out}, rule: neverResend})
	if err != nil {
		return nil, err
	}
	return &APIKey{ID: out.ID, Name: out.Name, Token: out.Key, OrgID: orgID, ProjectID: Deref(out.ProjectID)}, nil
}

// RevokeAPIKey revokes a key for good: DELETE /api_keys/{key_id}, or
// /organizations/{org_id}/api_keys/{key_id} for an organization's key. A
// key that is revoked already is no longer found (ErrNotFound).
func (c *Client) RevokeAPIKey(ctx context.Context, k APIKey) error {
	ep := apiKeysEndpoint
	if k.OrgID != "" {
		ep = orgKeysEndpoint(k.OrgID)
	}
	_, err := c.write(ctx, writeCall{call: call{method: http.MethodDelete, ep: ep.param("key_id", strconv.FormatInt(k.ID, 10))},
		rule: resendFreely})
	return err
}

// ListAPIKeys lists the personal keys of the calling key's user that are not
// revoked: GET /api_keys.
func (c *Client) ListAPIKeys(ctx context.Context) ([]ListedAPIKey, error) {
	var out []neonapi.APIKeysListResponseItem
	if err := c.do(ctx, call{method: http.MethodGet, ep: apiKeysEndpoint, out: &out}); err != nil {
		return nil, err
	}
	keys := make([]ListedAPIKey, len(out))
	for i, k := range out {
		keys[i] = ListedAPIKey{ID: k.ID, Name: k.Name, CreatedAt: k.CreatedAt}
	}
	return keys, nil
}

// ListOrgAPIKeys lists the keys of organization orgID that are not revoked:
// GET /organizations/{org_id}/api_keys.
func (c *Client) ListOrgAPIKeys(ctx context.Context, orgID string) ([]ListedAPIKey, error) {
	var out []neonapi.OrgAPIKeysListResponseItem
	if err := c.do(ctx, call{method: http.MethodGet, ep: orgKeysEndpoint(orgID), out: &out}); err != nil {
		return nil, err
	}
	keys := make([]ListedAPIKey, len(out))
	for i, k := range out {
		keys[i] = ListedAPIKey{ID: k.ID, Name: k.Name, CreatedAt: k.CreatedAt}
	}
	return keys, nil
}
