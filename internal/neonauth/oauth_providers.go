package neonauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The OAuth providers of a scope, a list-backed kind (OAuthProviderAPI),
// and the OAuth app a configuration gives one: what the API never returns
// (an own app's client id and secret, a Microsoft tenant), sent to a
// provider added, updated, taken over, recovered or restored. The API cannot turn a standard provider (an own app) shared in
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

// OAuthProviderAPI is the API of the OAuth providers of a scope, a
// list-backed kind keyed by provider id, given an OAuthApp.
var OAuthProviderAPI = &ListBacked[apiclient.OAuthProvider, OAuthApp]{
	Kind:         KindOAuthProvider,
	ProjectLevel: true,
	List:         (*Service).OAuthProviders,
	Key:          func(p apiclient.OAuthProvider) string { return string(p.ID) },
	Add:          addOAuthProvider,
	Update:       (*Service).updateOAuthProviderTo,
	Delete:       (*Service).DeleteOAuthProvider,
	TakeOver:     takeOverOAuthProvider,
	Recover:      recoverOAuthProvider,
	Restore:      restoreOAuthProvider,
}

// addOAuthProvider adds the OAuth provider id to s with app; recovered: its
// answer was lost and the list showed it.
func addOAuthProvider(svc *Service, ctx context.Context, s Scope, id string, app OAuthApp) (*apiclient.OAuthProvider, bool, error) {
	p, err := svc.addOAuthProviderWith(ctx, s, id, app)
	return p, err == nil && p.Recovered, err
}

// addOAuthProviderWith adds the OAuth provider id to s with app.
func (svc *Service) addOAuthProviderWith(ctx context.Context, s Scope, id string, app OAuthApp) (*apiclient.OAuthProvider, error) {
	req, _ := app.update()
	return svc.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: neonapi.NeonAuthOauthProviderID(id),
		ClientID: req.ClientID, ClientSecret: req.ClientSecret, MicrosoftTenantID: req.MicrosoftTenantID})
}

// updateOAuthProviderTo sends app to the OAuth provider id of s whenever it
// has anything to send (credentials or a tenant: a change of client_id,
// secret, secret version or tenant, or a type that drifted back to shared);
// nil, nil otherwise (removing the credentials replaces the provider).
func (svc *Service) updateOAuthProviderTo(ctx context.Context, s Scope, id string, app OAuthApp) (*apiclient.OAuthProvider, error) {
	req, sends := app.update()
	if !sends {
		return nil, nil
	}
	return svc.UpdateOAuthProvider(ctx, s, id, req)
}

// foundOAuthProvider is what taking over an OAuth provider found: its type,
// and its client id when the list shows it. The client secret is never
// recorded.
type foundOAuthProvider struct {
	Type     string `json:"type"`
	ClientID string `json:"client_id,omitempty"`
}

// takeOverOAuthProvider gives app to the OAuth provider p found on s: sent
// in place when it has anything to send; when it drops p's own app
// (DropsOwnApp), p is deleted and added again with the shared keys, which
// a restoring destroy could not undo (the API never returns a client
// secret), so that is refused when restoring. It answers the provider as
// the API then shows it.
func takeOverOAuthProvider(svc *Service, ctx context.Context, s Scope, p *apiclient.OAuthProvider, app OAuthApp, to TakeOver,
	restoring bool,
) (TakenOver[apiclient.OAuthProvider], error) {
	id, shared := string(p.ID), DropsOwnApp(p, app)
	if shared && restoring {
		return TakenOver[apiclient.OAuthProvider]{}, &TakeOverRefused{Summary: "Inherited OAuth provider has its own app",
			Why: fmt.Sprintf("Branch %[1]s was created from branch %[2]s and inherited its %[3]s OAuth provider, which uses its own OAuth app "+
				"(type standard); this configuration asks for the shared keys. Making it shared would delete its credentials, which "+
				"destroy could not restore: the API never returns a client secret. Set client_id and client_secret (or "+
				"client_secret_wo) of an OAuth app whose redirect URIs include this branch's callback (<base_url of its "+
				"integration>/callback/%[3]s) — the inherited app's, once you have added that URI, or one for previews.",
				s.BranchID, to.Parent, id)}
	}
	taken := TakenOver[apiclient.OAuthProvider]{Found: foundOAuthProvider{Type: string(p.Type), ClientID: apiclient.Deref(p.ClientID)},
		What: fmt.Sprintf("%s OAuth provider (type %s)", id, p.Type), Held: fmt.Sprintf("which holds the same %s OAuth provider", id),
		OnDestroy: "Destroy leaves it on the branch. The API never returns a client secret, so destroy cannot restore " +
			"inherited credentials that this configuration replaced."}
	var err error
	switch {
	case shared:
		taken.Object, err = svc.shareOAuthProvider(ctx, s, id)
		taken.Did = "Its own OAuth app was replaced by the shared keys; "
		if err != nil {
			err = &TakeOverFailed{Doing: fmt.Sprintf("Replacing the own OAuth app of the %s OAuth provider %s inherited by the shared keys", id, s.Scope), Err: err}
		}
	default:
		if string(p.Type) == apiclient.TypeShared {
			taken.OnDestroy = "Destroy leaves it on the branch, with the shared keys it had."
		}
		taken.Object, err = svc.updateOAuthProviderTo(ctx, s, id, app)
		if taken.Object == nil && err == nil {
			taken.Object = p
		}
		if err != nil {
			err = &TakeOverFailed{Doing: fmt.Sprintf("Setting the credentials of the %s OAuth provider %s inherited", id, s.Scope), Err: err}
		}
	}
	return taken, err
}

// shareOAuthProvider turns the OAuth provider id of s to the shared keys:
// deleted (already gone counts) and added again without credentials.
func (svc *Service) shareOAuthProvider(ctx context.Context, s Scope, id string) (*apiclient.OAuthProvider, error) {
	err := svc.DeleteOAuthProvider(ctx, s, id)
	if err != nil && !errors.Is(err, apiclient.ErrNotFound) {
		return nil, err
	}
	return svc.addOAuthProviderWith(ctx, s, id, OAuthApp{})
}

// recoverOAuthProvider settles an add of app whose answer was lost but
// whose provider p is listed. The list shows only the type, so a provider
// without the planned one is given app's credentials; one with credentials
// app lacks is refused (an ErrConflict naming importID).
func recoverOAuthProvider(svc *Service, ctx context.Context, s Scope, p *apiclient.OAuthProvider, app OAuthApp, importID string) (*apiclient.OAuthProvider, error) {
	switch {
	case app.Own() && string(p.Type) != apiclient.TypeStandard:
		updated, err := svc.updateOAuthProviderTo(ctx, s, string(p.ID), app)
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

// restoreOAuthProvider is the restoring destroy of the OAuth provider id of
// s taken over as found and now holding app: one that was shared and was
// given an own app goes back to the shared keys; anything else stays as it
// is. It reports whether it wrote.
func restoreOAuthProvider(svc *Service, ctx context.Context, s Scope, id string, found json.RawMessage, app OAuthApp) (bool, error) {
	var was foundOAuthProvider
	if err := json.Unmarshal(found, &was); err != nil {
		return false, fmt.Errorf("the record of what the create took over cannot be read: %w", err)
	}
	if was.Type != apiclient.TypeShared || !app.Own() {
		return false, nil
	}
	_, err := svc.shareOAuthProvider(ctx, s, id)
	return true, err
}
