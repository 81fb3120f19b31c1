package apiclient

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// The Better Auth configuration of a branch's Neon Auth (branch-scoped
// endpoints only): each setting of betterauth.Settings read and written at
// its own path, and the bundle GET …/auth/plugins that reports most of them
// at once. The values are the reference's types (neonapi's …Config and
// …ConfigUpdate); a write sends the whole value, so sending it again after
// a lost answer is harmless.

// ReadSetting reads a setting: GET …/auth/<path>.
func ReadSetting[T any](ctx context.Context, c *Client, s Scope, set betterauth.Setting) (T, error) {
	var out T
	err := c.getBranchOnly(ctx, s, set.Title, s.auth().subPath(set.Path), &out)
	return out, err
}

// WriteSetting writes a setting with its method and returns what the API
// stored (T). The body is the whole value, or with PATCH the reference's
// …Update type with the fields to change.
func WriteSetting[T any](ctx context.Context, c *Client, s Scope, set betterauth.Setting, body any) (T, error) {
	var out T
	err := c.setBranchOnly(ctx, s, set.Title, set.Write, s.auth().subPath(set.Path), body, &out)
	return out, err
}

// Plugins is GET …/auth/plugins (NeonAuthPluginConfigs): a branch's Better
// Auth configuration in one answer — the Bundled settings, the email
// provider (password redacted), the OAuth providers and allow_localhost.
// Every member is optional in the reference: a part the answer does not
// carry is reported missing, so that a caller can tell "not reported" from
// a value. The webhooks, the trusted domains and the integration itself are
// not part of it.
type Plugins struct {
	parts map[string]json.RawMessage
}

// Part decodes the part named name into v; false when the answer lacks it.
func (p *Plugins) Part(name string, v any) (bool, error) {
	raw, ok := p.parts[name]
	if !ok || string(raw) == "null" {
		return false, nil
	}
	return true, json.Unmarshal(raw, v)
}

// With is a copy of the bundle whose part name is v (as JSON): what the
// bundle holds after a write of that part answered v.
func (p *Plugins) With(name string, v any) (*Plugins, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	parts := make(map[string]json.RawMessage, len(p.parts)+1)
	maps.Copy(parts, p.parts)
	parts[name] = raw
	return &Plugins{parts: parts}, nil
}

// Without is a copy of the bundle that does not carry the part name: what
// is still known of the bundle after a write of that part whose result is
// not.
func (p *Plugins) Without(name string) *Plugins {
	parts := maps.Clone(p.parts)
	delete(parts, name)
	return &Plugins{parts: parts}
}

// The parts of the bundle that are not settings.
const (
	PartEmailProvider  = "email_provider"
	PartOAuthProviders = "oauth_providers"
	PartAllowLocalhost = "allow_localhost"
)

// GetPlugins reads GET …/auth/plugins.
func (c *Client) GetPlugins(ctx context.Context, s Scope) (*Plugins, error) {
	var out map[string]json.RawMessage
	if err := c.getBranchOnly(ctx, s, "Plugins", s.auth().sub("plugins"), &out); err != nil {
		return nil, err
	}
	return &Plugins{parts: out}, nil
}

// getBranchOnly reads a branch-scoped settings endpoint into out.
func (c *Client) getBranchOnly(ctx context.Context, s Scope, what string, ep endpoint, out any) error {
	if err := s.branchOnly(what); err != nil {
		return err
	}
	return c.do(ctx, call{method: http.MethodGet, ep: ep, out: out})
}

// setBranchOnly sends a branch-scoped settings write and decodes the answer.
func (c *Client) setBranchOnly(ctx context.Context, s Scope, what, method string, ep endpoint, body, out any) error {
	if err := s.branchOnly(what); err != nil {
		return err
	}
	_, err := c.write(ctx, writeCall{call: call{method: method, ep: ep, body: body, out: out}, rule: resendFreely})
	return err
}
