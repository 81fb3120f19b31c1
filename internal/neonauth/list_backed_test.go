package neonauth

import (
	"context"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// whitelistKind is a list-backed kind read by its Fetch, as a new kind is:
// the trusted domains, read and written straight through the client.
var whitelistKind = &ListBacked[apiclient.Domain, struct{}]{
	Kind:  "test_whitelist",
	Fetch: (*apiclient.Client).ListDomains,
	Key:   func(d apiclient.Domain) string { return d.Domain },
	Add: func(svc *Service, ctx context.Context, s Scope, domain string, _ struct{}) (*apiclient.Domain, bool, error) {
		recovered, err := svc.client.AddDomain(ctx, s.Scope, apiclient.AddDomainRequest{Domain: domain,
			AuthProvider: neonapi.NeonAuthSupportedAuthProvider(s.AuthProvider)})
		return &apiclient.Domain{Domain: domain}, recovered, err
	},
	Delete: func(svc *Service, ctx context.Context, s Scope, domain string) error {
		return svc.client.DeleteDomains(ctx, s.Scope, s.AuthProvider, []string{domain})
	},
}

const branchDomainsRoute = "GET /projects/{project_id}/branches/{branch_id}/auth/domains"

// A kind read by its Fetch is read once per scope by all its readers, and
// each of its writes forgets that read, so the next reader sees the write.
func TestListBacked_aKindsOwnReadIsSharedAndItsWritesForgetIt(t *testing.T) {
	ctx := context.Background()
	e := newTestEnv(t, nil)
	s := e.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	e.enable(s)
	svc := e.service(apiclient.FamilyBranch, time.Hour)
	const domain = "https://app.example.com"
	for range 3 {
		if listed, err := whitelistKind.Listed(svc, s, domain, nil)(ctx); err != nil || listed {
			t.Fatalf("listed before the add: %v, %v; want not listed", listed, err)
		}
	}
	if n := e.routeCount(branchDomainsRoute); n != 1 {
		t.Fatalf("three readers sent %d lists; want one, shared", n)
	}
	if _, _, err := whitelistKind.AddTo(svc, ctx, s, domain, struct{}{}); err != nil {
		t.Fatal(err)
	}
	var found *apiclient.Domain
	if listed, err := whitelistKind.Listed(svc, s, domain, &found)(ctx); err != nil || !listed || found.Domain != domain {
		t.Fatalf("after the add: listed %v (%+v), %v; want it listed, read afresh", listed, found, err)
	}
	if err := whitelistKind.DeleteFrom(svc, ctx, s, domain); err != nil {
		t.Fatal(err)
	}
	if listed, err := whitelistKind.Listed(svc, s, domain, nil)(ctx); err != nil || listed {
		t.Fatalf("after the delete: listed %v, %v; want it gone, read afresh", listed, err)
	}
	if n := e.routeCount(branchDomainsRoute); n != 3 {
		t.Fatalf("%d lists in all; want three: the first, and one after each write", n)
	}
}

// A list-backed object found on a branch counts as inherited when the
// parent's list of its kind holds the same key.
func TestListBacked_anObjectIsInheritedWhenTheParentListsIt(t *testing.T) {
	ctx := context.Background()
	e := newTestEnv(t, nil)
	prod := e.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	e.enable(prod)
	svc := e.service(apiclient.FamilyBranch, time.Hour)
	const domain = "https://app.example.com"
	if _, _, err := whitelistKind.AddTo(svc, ctx, prod, domain, struct{}{}); err != nil {
		t.Fatal(err)
	}
	child, err := e.client.CreateBranch(ctx, e.projectID, apiclient.CreateBranchRequest{Name: "preview", ParentID: prod.BranchID})
	if err != nil {
		t.Fatal(err)
	}
	onChild := prod
	onChild.BranchID = child.ID
	if got := svc.MayTakeOver(ctx, onChild, whitelistKind.Object(domain)); !got.Allowed() || got.Parent != prod.BranchID {
		t.Errorf("a domain the parent lists: decision %+v, want taken over from %s", got, prod.BranchID)
	}
	if got := svc.MayTakeOver(ctx, onChild, whitelistKind.Object("https://other.example.com")); got.Refused != RefusedParentLacks {
		t.Errorf("a domain the parent lacks: decision %+v, want RefusedParentLacks", got)
	}
}
