package neonauth

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// oauthProviderOf is the OAuth provider id of s as the API lists it.
func (e *testEnv) oauthProviderOf(svc *Service, s Scope, id string) apiclient.OAuthProvider {
	e.t.Helper()
	var found *apiclient.OAuthProvider
	if listed, err := OAuthProviderAPI.Listed(svc, s, id, &found)(context.Background()); err != nil || !listed {
		e.t.Fatalf("the %s OAuth provider of %s is not listed (%v)", id, s, err)
	}
	return *found
}

// takeOverOAuth takes the OAuth provider found on s over with app, for a
// destroy that restores nothing.
func takeOverOAuth(svc *Service, s Scope, found *apiclient.OAuthProvider, app OAuthApp) (*apiclient.OAuthProvider, error) {
	taken, err := OAuthProviderAPI.TakeOver(svc, context.Background(), s, found, app, TakeOver{Parent: "br-parent"}, false)
	return taken.Object, err
}

// foundAs is the record of a take-over that found an OAuth provider of
// type typ.
func foundAs(t *testing.T, typ string) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(foundOAuthProvider{Type: typ})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// oauthEnv is the production branch with Neon Auth, and a Service of it.
func oauthEnv(t *testing.T) (*testEnv, *Service, Scope) {
	t.Helper()
	e := newTestEnv(t, nil)
	s := e.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	e.enable(s)
	return e, e.service(apiclient.FamilyBranch, 0), s
}

// An OAuth provider added with an own app is standard, and taking it over
// without one (DropsOwnApp) turns it shared by deleting and adding it again;
// restoring it then leaves it shared, as it was found.
func TestTakeOverOAuthProvider_withoutAnAppGoesBackToTheSharedKeys(t *testing.T) {
	ctx := context.Background()
	e, svc, s := oauthEnv(t)
	own := OAuthApp{ClientID: "acme-client", ClientSecret: "acme-secret"}
	if _, err := svc.addOAuthProviderWith(ctx, s, "google", own); err != nil {
		t.Fatal(err)
	}
	found := e.oauthProviderOf(svc, s, "google")
	if string(found.Type) != apiclient.TypeStandard || !DropsOwnApp(&found, OAuthApp{}) || DropsOwnApp(&found, own) {
		t.Fatalf("added with an own app: type %s, DropsOwnApp without one %v, with it %v", found.Type,
			DropsOwnApp(&found, OAuthApp{}), DropsOwnApp(&found, own))
	}
	got, err := takeOverOAuth(svc, s, &found, OAuthApp{})
	if err != nil || string(got.Type) != apiclient.TypeShared {
		t.Fatalf("taken over without an app: %+v, %v; want type shared", got, err)
	}
	if now := e.oauthProviderOf(svc, s, "google"); string(now.Type) != apiclient.TypeShared {
		t.Fatalf("listed as %s after the take-over; want shared", now.Type)
	}
	if wrote, err := OAuthProviderAPI.Restore(svc, ctx, s, "google", foundAs(t, apiclient.TypeStandard), OAuthApp{}); wrote || err != nil {
		t.Fatalf("restoring one found standard wrote %v (%v); a client secret cannot be restored, so nothing is sent", wrote, err)
	}
}

// Taking over a shared provider with an own app sends it in place; the
// restoring destroy turns it shared again. A take-over with nothing to send
// sends nothing.
func TestTakeOverOAuthProvider_anOwnAppIsSentAndRestoredToTheSharedKeys(t *testing.T) {
	ctx := context.Background()
	e, svc, s := oauthEnv(t)
	if _, err := svc.addOAuthProviderWith(ctx, s, "github", OAuthApp{}); err != nil {
		t.Fatal(err)
	}
	found := e.oauthProviderOf(svc, s, "github")
	const update = "PATCH /projects/{project_id}/branches/{branch_id}/auth/oauth_providers/{oauth_provider_id}"
	before := e.routeCount(update)
	if got, err := takeOverOAuth(svc, s, &found, OAuthApp{}); err != nil || got.Type != found.Type || e.routeCount(update) != before {
		t.Fatalf("a take-over with nothing to send answered %+v, %v and sent %d updates; want what was found and none", got, err,
			e.routeCount(update)-before)
	}
	acme := OAuthApp{ClientID: "acme-client", ClientSecret: "acme-secret"}
	got, err := takeOverOAuth(svc, s, &found, acme)
	if err != nil || string(got.Type) != apiclient.TypeStandard || e.routeCount(update) != before+1 {
		t.Fatalf("taken over with an own app: %+v, %v, %d updates; want type standard, sent in one update", got, err, e.routeCount(update)-before)
	}
	if wrote, err := OAuthProviderAPI.Restore(svc, ctx, s, "github", foundAs(t, apiclient.TypeShared), acme); !wrote || err != nil {
		t.Fatalf("restoring one found shared: wrote %v, %v; want the shared keys written back", wrote, err)
	}
	if now := e.oauthProviderOf(svc, s, "github"); string(now.Type) != apiclient.TypeShared {
		t.Fatalf("listed as %s after the restore; want shared", now.Type)
	}
}

// A create whose answer was lost finds a provider with credentials the
// configuration lacks: refused as a conflict that names the import id.
func TestRecoverOAuthProvider_credentialsTheConfigurationLacksAreAConflict(t *testing.T) {
	ctx := context.Background()
	e, svc, s := oauthEnv(t)
	if _, err := svc.addOAuthProviderWith(ctx, s, "google", OAuthApp{ClientID: "someone-else", ClientSecret: "theirs"}); err != nil {
		t.Fatal(err)
	}
	found := e.oauthProviderOf(svc, s, "google")
	_, err := OAuthProviderAPI.Recover(svc, ctx, s, &found, OAuthApp{}, "p/b/google")
	if !errors.Is(err, apiclient.ErrConflict) || !strings.Contains(err.Error(), "p/b/google") || !strings.Contains(err.Error(), "type standard") {
		t.Fatalf("recovering without credentials: %v; want a conflict naming the import id and the type", err)
	}
	got, err := OAuthProviderAPI.Recover(svc, ctx, s, &found, OAuthApp{ClientID: "acme-client", ClientSecret: "acme-secret"}, "p/b/google")
	if err != nil || string(got.Type) != apiclient.TypeStandard {
		t.Fatalf("recovering with an own app: %+v, %v; want it as listed", got, err)
	}
}

// Taking over a standard provider for the shared keys would lose its
// credentials: refused when the destroy is to restore what was found, with
// the parent and the callback to add; nothing is sent.
func TestTakeOverOAuthProvider_droppingAnOwnAppIsRefusedWhenRestoring(t *testing.T) {
	ctx := context.Background()
	e, svc, s := oauthEnv(t)
	if _, err := svc.addOAuthProviderWith(ctx, s, "google", OAuthApp{ClientID: "theirs", ClientSecret: "their-secret"}); err != nil {
		t.Fatal(err)
	}
	found := e.oauthProviderOf(svc, s, "google")
	const remove = "DELETE /projects/{project_id}/branches/{branch_id}/auth/oauth_providers/{oauth_provider_id}"
	before := e.routeCount(remove)
	_, err := OAuthProviderAPI.TakeOver(svc, ctx, s, &found, OAuthApp{}, TakeOver{Parent: "br-parent"}, true)
	var refused *TakeOverRefused
	if !errors.As(err, &refused) || !strings.Contains(refused.Why, "br-parent") || !strings.Contains(refused.Why, "/callback/google") ||
		e.routeCount(remove) != before {
		t.Fatalf("taking over for the shared keys while restoring: %v, %d deletes; want a refusal naming the parent and the callback, "+
			"and nothing sent", err, e.routeCount(remove)-before)
	}
	if now := e.oauthProviderOf(svc, s, "google"); string(now.Type) != apiclient.TypeStandard {
		t.Fatalf("listed as %s after the refusal; want it as it was, standard", now.Type)
	}
}
