package neonauth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The rules of the Data API and the JWKS: one shared read each, forgotten by
// every write; a 404 of the Data API is gone only once its parents are read;
// a branch's copy of its parent's Data API is taken over.

const (
	dataAPIRoute = "GET /projects/{project_id}/branches/{branch_id}/data-api/{database_name}"
	jwksRoute    = "GET /projects/{project_id}/jwks"
)

func TestDataAPIAndJWKS_eachWriteForgetsItsRead(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	svc := env.service(apiclient.FamilyBranch, time.Hour)
	prod := env.production(apiclient.FamilyBranch, "")
	ref := apiclient.DataAPIRef{ProjectID: env.projectID, BranchID: prod.BranchID, DatabaseName: "neondb"}
	reads := func(route string, want int) {
		t.Helper()
		if n := env.routeCount(route); n != want {
			t.Errorf("%s read %d times, want %d", route, n, want)
		}
	}
	// Each read is shared until a write forgets it: the reads after a
	// write cost one request, those before it none (the last read holds).
	_, _ = svc.DataAPI(ctx, ref)
	_, _ = svc.DataAPI(ctx, ref)
	reads(dataAPIRoute, 1) // the 404 of a database without a Data API is shared too
	for _, write := range []func() error{
		func() error { _, err := svc.CreateDataAPI(ctx, ref, apiclient.CreateDataAPIRequest{}); return err },
		func() error {
			return svc.UpdateDataAPI(ctx, ref, apiclient.DataAPISettings{DBMaxRows: apiclient.Ptr(10)})
		},
		func() error { return svc.DeleteDataAPI(ctx, ref) },
	} {
		env.emu.ResetStats()
		_, _ = svc.DataAPI(ctx, ref)
		if err := write(); err != nil {
			t.Fatal(err)
		}
		_, _ = svc.DataAPI(ctx, ref)
		_, _ = svc.DataAPI(ctx, ref)
		reads(dataAPIRoute, 1)
	}
	req := apiclient.AddJWKSRequest{JWKSURL: "https://www.googleapis.com/oauth2/v3/certs", ProviderName: "Google"}
	var id string
	_, _ = svc.JWKS(ctx, env.projectID)
	env.emu.ResetStats()
	for _, write := range []func() error{
		func() error { added, err := svc.AddJWKS(ctx, env.projectID, req); id = added.ID; return err },
		func() error { return svc.DeleteJWKS(ctx, env.projectID, id) },
	} {
		env.emu.ResetStats()
		_, _ = svc.JWKS(ctx, env.projectID)
		if err := write(); err != nil {
			t.Fatal(err)
		}
		_, _ = svc.JWKS(ctx, env.projectID)
		_, _ = svc.JWKS(ctx, env.projectID)
		reads(jwksRoute, 1)
	}
}

// A Data API's 404 is gone when its database or its branch went (or it was
// deleted); for a key that cannot see the project, nothing is known.
func TestDataAPIAbsence_readsTheParentsOfThePath(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	svc := env.service(apiclient.FamilyBranch, 0)
	prod := env.production(apiclient.FamilyBranch, "")
	ref := apiclient.DataAPIRef{ProjectID: env.projectID, BranchID: prod.BranchID, DatabaseName: "neondb"}
	if p, err := svc.DataAPIAbsence(ctx, ref); p != Gone || err != nil {
		t.Errorf("a database without a Data API: %v, %v; want Gone", p, err)
	}
	noDB := ref
	noDB.DatabaseName = "dropped"
	if p, err := svc.DataAPIAbsence(ctx, noDB); p != Gone || err != nil {
		t.Errorf("a database that does not exist: %v, %v; want Gone", p, err)
	}
	noBranch := ref
	noBranch.BranchID = "br-deleted-12345678"
	if p, err := svc.DataAPIAbsence(ctx, noBranch); p != Gone || !errors.Is(err, ErrBranchGone) {
		t.Errorf("a branch that does not exist: %v, %v; want Gone with its branch", p, err)
	}
	other, err := env.emu.CreateProject("other")
	if err != nil {
		t.Fatal(err)
	}
	key, err := env.emu.CreateKey(emulator.KeyProject, other.ID)
	if err != nil {
		t.Fatal(err)
	}
	scoped := New(env.clientWithKey(key), Options{Family: apiclient.FamilyBranch})
	if p, err := scoped.DataAPIAbsence(ctx, ref); p != NotVisible || !errors.Is(err, apiclient.ErrNotFound) {
		t.Errorf("a project the key cannot see: %v, %v; want NotVisible", p, err)
	}
}

// A preview's copy of production's Data API is taken over, also where this
// process enabled the preview's Neon Auth itself: the Data API branches with
// the database, not with Neon Auth. A database whose Data API the parent
// lacks is refused.
func TestTakeOver_dataAPIFollowsTheDatabase(t *testing.T) {
	env := newTestEnv(t, nil)
	ctx := context.Background()
	svc := env.service(apiclient.FamilyBranch, time.Hour)
	prod := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	if _, err := env.client.CreateDataAPI(ctx, apiclient.DataAPIRef{ProjectID: env.projectID, BranchID: prod.BranchID, DatabaseName: "neondb"},
		apiclient.CreateDataAPIRequest{}); err != nil {
		t.Fatal(err)
	}
	child, err := env.client.CreateBranch(ctx, env.projectID, apiclient.CreateBranchRequest{Name: "preview", ParentID: prod.BranchID})
	if err != nil {
		t.Fatal(err)
	}
	onChild := prod
	onChild.BranchID = child.ID
	if _, err := svc.CreateIntegration(ctx, onChild, "", ""); err != nil {
		t.Fatal(err)
	}
	if to := svc.MayTakeOver(ctx, onChild, Object{Kind: KindDataAPI, Key: "neondb"}); !to.Allowed() || to.Parent != prod.BranchID {
		t.Errorf("the preview's copy of neondb's Data API: %+v, want taken over from %s", to, prod.BranchID)
	}
	if to := svc.MayTakeOver(ctx, onChild, Object{Kind: KindDataAPI, Key: "shop"}); to.Refused != RefusedParentLacks {
		t.Errorf("a database whose Data API the parent lacks: %+v, want RefusedParentLacks", to)
	}
}
