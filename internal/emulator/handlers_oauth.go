package emulator

import (
	"net/http"
	"slices"
)

var oauthProviderIDs = []string{"google", "github", "microsoft"}

// oauthCredentials reads client_id and client_secret, which must be given
// together (both non-empty) or not at all.
func oauthCredentials(o object) (id, secret string, given bool, err error) {
	id, hasID, err := o.str("client_id")
	if err != nil {
		return "", "", false, err
	}
	secret, hasSecret, err := o.str("client_secret")
	if err != nil {
		return "", "", false, err
	}
	switch {
	case hasID && id == "":
		return "", "", false, invalid("client_id", "must not be empty")
	case hasSecret && secret == "":
		return "", "", false, invalid("client_secret", "must not be empty")
	case hasID && !hasSecret:
		return "", "", false, invalid("client_secret", "is required when client_id is given")
	case hasSecret && !hasID:
		return "", "", false, invalid("client_id", "is required when client_secret is given")
	}
	return id, secret, hasID, nil
}

// listOAuthProviders serves endpoint 8; credentials are never listed.
func (e *Emulator) listOAuthProviders(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, c.param("project_id"), authProviderStack)
	if err != nil {
		return err
	}
	type item struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	out := make([]item, 0, len(in.OAuthProviders))
	for _, p := range in.OAuthProviders {
		out = append(out, item{ID: p.ID, Type: p.Type})
	}
	return c.json(http.StatusOK, map[string]any{"providers": out})
}

// addOAuthProvider serves endpoint 9. Without credentials the provider uses
// shared keys (type "shared"), with them type "standard". Answers 200.
func (e *Emulator) addOAuthProvider(c *call) error {
	o, err := readBody(c, false, "id", "client_id", "client_secret")
	if err != nil {
		return err
	}
	id, err := o.requiredStr("id")
	if err != nil {
		return err
	}
	if !slices.Contains(oauthProviderIDs, id) {
		return invalid("id", "unsupported OAuth provider %q; supported: google, github, microsoft", id)
	}
	clientID, secret, given, err := oauthCredentials(o)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, c.param("project_id"), authProviderStack)
	if err != nil {
		return err
	}
	if in.oauthProvider(id) >= 0 {
		return conflict("OAuth provider %s already exists", id)
	}
	p := OAuthProvider{ID: id, Type: oauthShared}
	if given {
		p = OAuthProvider{ID: id, Type: oauthStandard, ClientID: clientID, ClientSecret: secret}
	}
	in.OAuthProviders = append(in.OAuthProviders, p)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, p)
}

// updateOAuthProvider serves endpoint 10: sets own credentials (both
// required), which makes the provider "standard".
func (e *Emulator) updateOAuthProvider(c *call) error {
	o, err := readBody(c, false, "client_id", "client_secret")
	if err != nil {
		return err
	}
	clientID, secret, given, err := oauthCredentials(o)
	if err != nil {
		return err
	}
	if !given {
		return invalid("client_id", "is required")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, c.param("project_id"), authProviderStack)
	if err != nil {
		return err
	}
	i := in.oauthProvider(c.param("oauth_provider_id"))
	if i < 0 {
		return notFound("OAuth provider not found")
	}
	in.OAuthProviders[i] = OAuthProvider{ID: in.OAuthProviders[i].ID, Type: oauthStandard, ClientID: clientID, ClientSecret: secret}
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, in.OAuthProviders[i])
}

// deleteOAuthProvider serves endpoint 11: 204 without body.
func (e *Emulator) deleteOAuthProvider(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, c.param("project_id"), authProviderStack)
	if err != nil {
		return err
	}
	i := in.oauthProvider(c.param("oauth_provider_id"))
	if i < 0 {
		return notFound("OAuth provider not found")
	}
	in.OAuthProviders = append(in.OAuthProviders[:i], in.OAuthProviders[i+1:]...)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.empty(http.StatusNoContent)
}
