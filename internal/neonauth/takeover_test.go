package neonauth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

const listBranchesRoute = "GET /projects/{project_id}/branches"

// What a create may do with an object it found, branch by branch: refused
// wherever nothing can have been inherited, and on a branch created from a
// parent that holds nothing of the kind.
func TestTakeOver_decidesByTheBranch(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	prod := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	child, err := env.client.CreateBranch(ctx, env.projectID, apiclient.CreateBranchRequest{Name: "preview", ParentID: prod.BranchID})
	if err != nil {
		t.Fatal(err)
	}
	onChild := prod
	onChild.BranchID = child.ID
	missing := prod
	missing.BranchID = "br-missing-12345678"
	google := OAuthProviderAPI.Object("google")

	branchMode := env.service(apiclient.FamilyBranch, time.Hour)
	for _, tc := range []struct {
		name   string
		svc    *Service
		s      Scope
		want   Refusal
		parent string
		// reads is how many branch lists the decision reads: the cases in
		// branch mode share one service, so the first reads the list and
		// the others find their branch in it, or read it again to be sure
		// a branch is missing.
		reads int
	}{
		{name: "project mode", svc: env.service(apiclient.FamilyProject, time.Hour), s: projectScope(env), want: RefusedProjectMode},
		{name: "refused by setting", svc: New(env.client, Options{Family: apiclient.FamilyBranch, RefuseInherited: true}), s: onChild, want: RefusedBySetting},
		{name: "production branch", svc: branchMode, s: prod, want: RefusedRootBranch, reads: 1},
		// The parent (production, without Neon Auth) holds no OAuth provider.
		{name: "branch created from production", svc: branchMode, s: onChild, want: RefusedParentLacks, parent: prod.BranchID},
		{name: "branch not in the project", svc: branchMode, s: missing, want: RefusedBranchMissing, reads: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env.emu.ResetStats()
			got := tc.svc.MayTakeOver(ctx, tc.s, google)
			if got.Refused != tc.want || got.Parent != tc.parent || got.Allowed() || got.Err != nil {
				t.Errorf("decision %+v, want refusal %d and parent %q", got, tc.want, tc.parent)
			}
			if n := env.routeCount(listBranchesRoute); n != tc.reads {
				t.Errorf("%d branch lists read, want %d", n, tc.reads)
			}
		})
	}
}

// A trusted domain found already on its branch is taken over on any branch,
// in either family — whatever put it there: the parent's copy, a platform
// such as the Vercel integration, a person, another configuration — without
// a read, unless the service refuses what it finds.
func TestTakeOver_aDomainIsTakenOverOnAnyBranch(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	prod := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	domain := Object{Kind: KindDomain, Key: "https://pr-7.preview.example.com"}
	env.emu.ResetStats()
	for _, tc := range []struct {
		name string
		svc  *Service
		s    Scope
	}{
		{name: "project mode", svc: env.service(apiclient.FamilyProject, time.Hour), s: projectScope(env)},
		{name: "production branch", svc: env.service(apiclient.FamilyBranch, time.Hour), s: prod},
	} {
		if got := tc.svc.MayTakeOver(ctx, tc.s, domain); !got.Allowed() || !got.OnAnyBranch || got.Parent != "" {
			t.Errorf("%s: decision %+v, want taken over as found", tc.name, got)
		}
	}
	if n := env.emu.Stats().Total; n != 0 {
		t.Errorf("%d requests, want none: a domain needs no evidence", n)
	}
	refusing := New(env.client, Options{Family: apiclient.FamilyBranch, RefuseInherited: true})
	if got := refusing.MayTakeOver(ctx, prod, domain); got.Allowed() || got.Refused != RefusedBySetting {
		t.Errorf("refusing: decision %+v, want RefusedBySetting", got)
	}
}

// On a branch whose Neon Auth this process enabled itself, nothing was
// inherited, whatever the branch's parent.
func TestTakeOver_refusedWhereThisProcessEnabledNeonAuth(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	prod := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	child, err := env.client.CreateBranch(ctx, env.projectID, apiclient.CreateBranchRequest{Name: "preview", ParentID: prod.BranchID})
	if err != nil {
		t.Fatal(err)
	}
	s := prod
	s.BranchID = child.ID
	svc := env.service(apiclient.FamilyBranch, time.Hour)
	if _, err := svc.CreateIntegration(ctx, s, "", ""); err != nil {
		t.Fatal(err)
	}
	if got := svc.MayTakeOver(ctx, s, Object{Kind: KindUser, Key: "ann@example.com"}); got.Refused != RefusedEnabledHere {
		t.Errorf("decision %+v, want RefusedEnabledHere", got)
	}
}

// A branch missing from the list read earlier in the run is looked for in
// a list read afresh before it is declared missing: it may have been
// created since.
func TestBranch_rereadsTheListBeforeDeclaringABranchMissing(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	svc := env.service(apiclient.FamilyBranch, time.Hour)
	prod := env.production(apiclient.FamilyBranch, "")
	if _, err := svc.Branches(ctx, env.projectID); err != nil {
		t.Fatal(err)
	}
	child, err := env.client.CreateBranch(ctx, env.projectID, apiclient.CreateBranchRequest{Name: "later", ParentID: prod.BranchID})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Branch(ctx, env.projectID, child.ID)
	if err != nil || b == nil || b.ID != child.ID {
		t.Fatalf("Branch = %v, %v; want the branch created after the first list", b, err)
	}
}

// On a branch created from a parent, an object is taken over only when the
// parent holds the same one: the same OAuth provider id, an integration of
// the same auth provider; a user when the parent has Neon
// Auth of that provider (no endpoint lists users); the singletons when the
// parent has Neon Auth.
// Anything else was made on the branch since, by something else, and is
// refused. What the parent holds is read once per kind, and never written.
func TestTakeOver_onEvidenceThatTheParentHoldsTheSame(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	prod := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	env.enable(prod)
	if _, err := env.client.AddDomain(ctx, prod.Scope, apiclient.AddDomainRequest{Domain: "https://app.example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider(apiclient.AuthProviderBetterAuth)}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.client.AddOAuthProvider(ctx, prod.Scope, apiclient.AddOAuthProviderRequest{ID: "google"}); err != nil {
		t.Fatal(err)
	}
	child, err := env.client.CreateBranch(ctx, env.projectID, apiclient.CreateBranchRequest{Name: "preview", ParentID: prod.BranchID})
	if err != nil {
		t.Fatal(err)
	}
	onChild := prod
	onChild.BranchID = child.ID
	svc := env.service(apiclient.FamilyBranch, time.Hour)
	env.emu.ResetStats()
	for _, tc := range []struct {
		found Object
		held  bool
	}{
		{OAuthProviderAPI.Object("google"), true},
		{OAuthProviderAPI.Object("github"), false},
		{Object{Kind: KindIntegration, Key: apiclient.AuthProviderBetterAuth}, true},
		{Object{Kind: KindUser, Key: "ann@example.com"}, true},
		{Object{Kind: KindEmailServer}, true},
		{Object{Kind: KindSettings, Key: "organization"}, true},
	} {
		got := svc.MayTakeOver(ctx, onChild, tc.found)
		if got.Allowed() != tc.held || got.Parent != prod.BranchID || (!tc.held && got.Refused != RefusedParentLacks) {
			t.Errorf("%s %q: decision %+v, want taken over: %v", tc.found.Kind, tc.found.Key, got, tc.held)
		}
	}
	stackChild := onChild
	stackChild.AuthProvider = apiclient.AuthProviderStack
	if got := svc.MayTakeOver(ctx, stackChild, Object{Kind: KindIntegration, Key: apiclient.AuthProviderStack}); got.Refused != RefusedParentLacks {
		t.Errorf("an integration of another auth provider than the parent's: decision %+v, want RefusedParentLacks", got)
	}
	for route, want := range map[string]int{
		"GET /projects/{project_id}/branches/{branch_id}/auth/plugins": 1,
		"GET /projects/{project_id}/branches/{branch_id}/auth":         1,
		listBranchesRoute: 1,
	} {
		if n := env.routeCount(route); n != want {
			t.Errorf("%d %s, want %d: one read per kind, shared", n, route, want)
		}
	}
	if n := env.emu.Stats().Total; n != 3 {
		t.Errorf("%d requests, want the 3 reads: nothing is ever written to the parent", n)
	}
}

// A parent without Neon Auth holds nothing: on a branch made from it whose
// Neon Auth something else enabled since, not even the singletons (the
// email server, the settings) were inherited.
func TestTakeOver_aParentWithoutNeonAuthHoldsNoSingleton(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	prod := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	child, err := env.client.CreateBranch(ctx, env.projectID, apiclient.CreateBranchRequest{Name: "preview", ParentID: prod.BranchID})
	if err != nil {
		t.Fatal(err)
	}
	onChild := prod
	onChild.BranchID = child.ID
	env.enable(onChild)
	svc := env.service(apiclient.FamilyBranch, time.Hour)
	for _, kind := range []Kind{KindEmailServer, KindSettings} {
		if got := svc.MayTakeOver(ctx, onChild, Object{Kind: kind, Key: "organization"}); got.Refused != RefusedParentLacks {
			t.Errorf("%s: decision %+v, want RefusedParentLacks", kind, got)
		}
	}
}

// A branch that a list read after a 404 showed missing stays gone for the
// process: ids are never reused. The refresh of many objects on a deleted
// branch reads the branch list once, whichever check asks.
func TestBranchMissing_aBranchFoundGoneIsNotLookedForAgain(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	prod := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	child, err := env.client.CreateBranch(ctx, env.projectID, apiclient.CreateBranchRequest{Name: "preview/pr-1", ParentID: prod.BranchID})
	if err != nil {
		t.Fatal(err)
	}
	s := prod
	s.BranchID = child.ID
	svc := env.service(apiclient.FamilyBranch, time.Hour)
	if svc.BranchMissing(ctx, s) {
		t.Fatal("the branch just created is reported missing")
	}
	if err := env.client.DeleteBranch(ctx, env.projectID, child.ID); err != nil {
		t.Fatal(err)
	}
	env.emu.ResetStats()
	for range 5 {
		if !svc.BranchMissing(ctx, s) {
			t.Fatal("the deleted branch is not reported missing")
		}
	}
	if b, err := svc.Branch(ctx, env.projectID, child.ID); b != nil || err != nil {
		t.Errorf("Branch = %v, %v; want none", b, err)
	}
	if p, err := svc.DataAPIAbsence(ctx, apiclient.DataAPIRef{ProjectID: env.projectID, BranchID: child.ID, DatabaseName: "neondb"}); p != Gone || !errors.Is(err, ErrBranchGone) {
		t.Errorf("DataAPIAbsence = %v, %v; want Gone with ErrBranchGone", p, err)
	}
	if n := env.routeCount("GET /projects/{project_id}/branches"); n != 1 {
		t.Errorf("the branch list read %d times, want once", n)
	}
}

// A create of an integration whose answer is lost finds Neon Auth on the
// branch afterwards, whether the request enabled it or was refused because
// the branch had it already. Where the parent has Neon Auth of the same
// auth provider, the branch counts as having inherited it: the create
// answers the 409 the API would have given, and the scope does not count as
// enabled by this process. Elsewhere the create is recovered.
func TestCreateIntegration_aLostAnswerOnABranchWhoseParentHasNeonAuthIsAConflict(t *testing.T) {
	ctx := context.Background()
	lostPosts := emulator.Faults{LostResponseRate: 1, Routes: []string{"POST /projects/{project_id}/branches/{branch_id}/auth"}}
	child := func(env *testEnv, prod Scope) Scope {
		b, err := env.client.CreateBranch(ctx, env.projectID, apiclient.CreateBranchRequest{Name: "preview", ParentID: prod.BranchID})
		if err != nil {
			t.Fatal(err)
		}
		s := prod
		s.BranchID = b.ID
		return s
	}

	t.Run("the parent has Neon Auth", func(t *testing.T) {
		env := newTestEnv(t, nil)
		prod := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
		env.enable(prod)
		preview := child(env, prod)
		svc := env.service(apiclient.FamilyBranch, time.Hour)
		env.emu.SetFaults(lostPosts)
		creds, err := svc.CreateIntegration(ctx, preview, "", "")
		var lost *LostOnInheritedError
		if !errors.Is(err, apiclient.ErrConflict) || !errors.As(err, &lost) || lost.ParentID != prod.BranchID {
			t.Fatalf("CreateIntegration = %+v, %v; want a LostOnInheritedError from parent %s, a conflict", creds, err, prod.BranchID)
		}
		if to := svc.MayTakeOver(ctx, preview, Object{Kind: KindSettings}); !to.Allowed() {
			t.Errorf("after the lost create, the branch's settings are refused (%+v), want them taken over as inherited", to)
		}
	})

	t.Run("the parent has none", func(t *testing.T) {
		env := newTestEnv(t, nil)
		prod := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
		preview := child(env, prod)
		svc := env.service(apiclient.FamilyBranch, time.Hour)
		env.emu.SetFaults(lostPosts)
		creds, err := svc.CreateIntegration(ctx, preview, "", "")
		if err != nil || !creds.Recovered {
			t.Fatalf("CreateIntegration = %+v, %v; want the integration recovered", creds, err)
		}
		if to := svc.MayTakeOver(ctx, preview, Object{Kind: KindSettings}); to.Refused != RefusedEnabledHere {
			t.Errorf("after the recovered create, the branch's settings decide %+v, want refused as enabled here", to)
		}
	})
}
