package neonauth

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// oauthProviderOf is the OAuth provider id of s as the API lists it.
func (e *testEnv) oauthProviderOf(svc *Service, s Scope, id string) apiclient.OAuthProvider {
	e.t.Helper()
	var found *apiclient.OAuthProvider
	if listed, err := svc.ListedOAuthProvider(s, id, &found)(context.Background()); err != nil || !listed {
		e.t.Fatalf("the %s OAuth provider of %s is not listed (%v)", id, s, err)
	}
	return *found
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
	if _, err := svc.AddOAuthProviderWith(ctx, s, "google", own); err != nil {
		t.Fatal(err)
	}
	found := e.oauthProviderOf(svc, s, "google")
	if string(found.Type) != apiclient.TypeStandard || !DropsOwnApp(&found, OAuthApp{}) || DropsOwnApp(&found, own) {
		t.Fatalf("added with an own app: type %s, DropsOwnApp without one %v, with it %v", found.Type,
			DropsOwnApp(&found, OAuthApp{}), DropsOwnApp(&found, own))
	}
	got, err := svc.TakeOverOAuthProvider(ctx, s, &found, OAuthApp{})
	if err != nil || string(got.Type) != apiclient.TypeShared {
		t.Fatalf("taken over without an app: %+v, %v; want type shared", got, err)
	}
	if now := e.oauthProviderOf(svc, s, "google"); string(now.Type) != apiclient.TypeShared {
		t.Fatalf("listed as %s after the take-over; want shared", now.Type)
	}
	if wrote, err := svc.RestoreOAuthProvider(ctx, s, "google", apiclient.TypeStandard, apiclient.TypeShared); wrote || err != nil {
		t.Fatalf("restoring one found standard wrote %v (%v); a client secret cannot be restored, so nothing is sent", wrote, err)
	}
}

// Taking over a shared provider with an own app sends it in place; the
// restoring destroy turns it shared again. A take-over with nothing to send
// sends nothing.
func TestTakeOverOAuthProvider_anOwnAppIsSentAndRestoredToTheSharedKeys(t *testing.T) {
	ctx := context.Background()
	e, svc, s := oauthEnv(t)
	if _, err := svc.AddOAuthProviderWith(ctx, s, "github", OAuthApp{}); err != nil {
		t.Fatal(err)
	}
	found := e.oauthProviderOf(svc, s, "github")
	const update = "PATCH /projects/{project_id}/branches/{branch_id}/auth/oauth_providers/{oauth_provider_id}"
	before := e.routeCount(update)
	if got, err := svc.TakeOverOAuthProvider(ctx, s, &found, OAuthApp{}); err != nil || got.Type != found.Type || e.routeCount(update) != before {
		t.Fatalf("a take-over with nothing to send answered %+v, %v and sent %d updates; want what was found and none", got, err,
			e.routeCount(update)-before)
	}
	got, err := svc.TakeOverOAuthProvider(ctx, s, &found, OAuthApp{ClientID: "acme-client", ClientSecret: "acme-secret"})
	if err != nil || string(got.Type) != apiclient.TypeStandard || e.routeCount(update) != before+1 {
		t.Fatalf("taken over with an own app: %+v, %v, %d updates; want type standard, sent in one update", got, err, e.routeCount(update)-before)
	}
	if wrote, err := svc.RestoreOAuthProvider(ctx, s, "github", apiclient.TypeShared, string(got.Type)); !wrote || err != nil {
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
	if _, err := svc.AddOAuthProviderWith(ctx, s, "google", OAuthApp{ClientID: "someone-else", ClientSecret: "theirs"}); err != nil {
		t.Fatal(err)
	}
	found := e.oauthProviderOf(svc, s, "google")
	_, err := svc.RecoverOAuthProvider(ctx, s, &found, OAuthApp{}, "p/b/google")
	if !errors.Is(err, apiclient.ErrConflict) || !strings.Contains(err.Error(), "p/b/google") || !strings.Contains(err.Error(), "type standard") {
		t.Fatalf("recovering without credentials: %v; want a conflict naming the import id and the type", err)
	}
	got, err := svc.RecoverOAuthProvider(ctx, s, &found, OAuthApp{ClientID: "acme-client", ClientSecret: "acme-secret"}, "p/b/google")
	if err != nil || string(got.Type) != apiclient.TypeStandard {
		t.Fatalf("recovering with an own app: %+v, %v; want it as listed", got, err)
	}
}
