package neonauth

import (
	"context"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

const listBranchesRoute = "GET /projects/{project_id}/branches"

// What a create may do with an object it found, branch by branch: refused
// wherever nothing can have been inherited, taken over from the parent on a
// branch created from one.
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
	domain := Object{Kind: KindDomain, Key: "https://app.example.com"}

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
		{name: "branch created from production", svc: branchMode, s: onChild, parent: prod.BranchID},
		{name: "branch not in the project", svc: branchMode, s: missing, want: RefusedBranchMissing, reads: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env.emu.ResetStats()
			got := tc.svc.MayTakeOver(ctx, tc.s, domain)
			if got.Refused != tc.want || got.Parent != tc.parent || got.Allowed() != (tc.parent != "") || got.Err != nil {
				t.Errorf("decision %+v, want refusal %d and parent %q", got, tc.want, tc.parent)
			}
			if n := env.routeCount(listBranchesRoute); n != tc.reads {
				t.Errorf("%d branch lists read, want %d", n, tc.reads)
			}
		})
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
