package neonauth

import (
	"context"
	"errors"
	"fmt"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The OAuth app of an OAuth provider: what a configuration sets that the API
// never returns (an own app's client id and secret, a Microsoft tenant), and
// the writes that give it to a provider added, taken over, recovered or
// restored. The API cannot turn a standard provider (an own app) shared in
// place: it is deleted and added again.

// OAuthApp is what a configuration sets of an OAuth provider: its own OAuth
// app's client id and secret (none: the platform's shared keys) and a
// Microsoft Entra tenant.
type OAuthApp struct {
	ClientID, ClientSecret, MicrosoftTenantID string
}

// Own reports whether the app is the configuration's own (type standard),
// not the shared keys.
func (a OAuthApp) Own() bool { return a.ClientID != "" }

// update is the request that sends a, and whether it sends anything.
func (a OAuthApp) update() (apiclient.UpdateOAuthProviderRequest, bool) {
	req := apiclient.UpdateOAuthProviderRequest{MicrosoftTenantID: apiclient.Optional(a.MicrosoftTenantID)}
	if a.Own() {
		req.ClientID, req.ClientSecret = apiclient.Optional(a.ClientID), apiclient.Optional(a.ClientSecret)
	}
	return req, a.Own() || a.MicrosoftTenantID != ""
}

// DropsOwnApp reports whether giving app to the OAuth provider p replaces
// p's own OAuth app by the shared keys, which loses credentials the API
// never returns.
func DropsOwnApp(p *apiclient.OAuthProvider, app OAuthApp) bool {
	return !app.Own() && string(p.Type) == apiclient.TypeStandard
}

// AddOAuthProviderWith adds the OAuth provider id to s with app.
func (svc *Service) AddOAuthProviderWith(ctx context.Context, s Scope, id string, app OAuthApp) (*apiclient.OAuthProvider, error) {
	req, _ := app.update()
	return svc.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: neonapi.NeonAuthOauthProviderID(id),
		ClientID: req.ClientID, ClientSecret: req.ClientSecret, MicrosoftTenantID: req.MicrosoftTenantID})
}

// UpdateOAuthProviderTo sends app to the OAuth provider id of s when it has
// anything to send (credentials or a tenant); nil, nil otherwise.
func (svc *Service) UpdateOAuthProviderTo(ctx context.Context, s Scope, id string, app OAuthApp) (*apiclient.OAuthProvider, error) {
	req, sends := app.update()
	if !sends {
		return nil, nil
	}
	return svc.UpdateOAuthProvider(ctx, s, id, req)
}

// TakeOverOAuthProvider gives app to the OAuth provider p found on s: sent
// in place when it has anything to send; when it drops p's own app
// (DropsOwnApp), p is deleted and added again with the shared keys. It
// answers the provider as the API then shows it.
func (svc *Service) TakeOverOAuthProvider(ctx context.Context, s Scope, p *apiclient.OAuthProvider, app OAuthApp) (*apiclient.OAuthProvider, error) {
	id := string(p.ID)
	if DropsOwnApp(p, app) {
		return svc.shareOAuthProvider(ctx, s, id)
	}
	updated, err := svc.UpdateOAuthProviderTo(ctx, s, id, app)
	if updated == nil && err == nil {
		return p, nil
	}
	return updated, err
}

// shareOAuthProvider turns the OAuth provider id of s to the shared keys:
// deleted (already gone counts) and added again without credentials.
func (svc *Service) shareOAuthProvider(ctx context.Context, s Scope, id string) (*apiclient.OAuthProvider, error) {
	err := svc.DeleteOAuthProvider(ctx, s, id)
	if err != nil && !errors.Is(err, apiclient.ErrNotFound) {
		return nil, err
	}
	return svc.AddOAuthProviderWith(ctx, s, id, OAuthApp{})
}

// RecoverOAuthProvider settles an add of app whose answer was lost but
// whose provider p is listed. The list shows only the type, so a provider
// without the planned one is given app's credentials; one with credentials
// app lacks is refused (an ErrConflict naming importID).
func (svc *Service) RecoverOAuthProvider(ctx context.Context, s Scope, p *apiclient.OAuthProvider, app OAuthApp, importID string) (*apiclient.OAuthProvider, error) {
	switch {
	case app.Own() && string(p.Type) != apiclient.TypeStandard:
		updated, err := svc.UpdateOAuthProviderTo(ctx, s, string(p.ID), app)
		if err != nil {
			return nil, fmt.Errorf("the create response was lost; the provider exists but setting its credentials failed: %w", err)
		}
		return updated, nil
	case !app.Own() && string(p.Type) != apiclient.TypeShared:
		return nil, fmt.Errorf("the create response was lost and the %s OAuth provider now exists with its own credentials (type %s), "+
			"which this configuration does not set; import it (id %s) or remove it and apply again: %w",
			p.ID, p.Type, importID, apiclient.ErrConflict)
	}
	return p, nil
}

// RestoreOAuthProvider is the restoring destroy of the OAuth provider id of
// s taken over as foundType and now of type nowType: one that was shared
// and was given an own app goes back to the shared keys; anything else
// stays as it is. It reports whether it wrote.
func (svc *Service) RestoreOAuthProvider(ctx context.Context, s Scope, id, foundType, nowType string) (bool, error) {
	if foundType != apiclient.TypeShared || nowType == apiclient.TypeShared {
		return false, nil
	}
	_, err := svc.shareOAuthProvider(ctx, s, id)
	return true, err
}
