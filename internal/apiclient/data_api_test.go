package apiclient_test

import (
	"context"
	"errors"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The Data API of a database and the JWKS of a project, through the client:
// every call with the reference's shapes, and the writes whose answers are
// lost resolved by reading back.

func TestClientDataAPILifecycle(t *testing.T) {
	opts := unlimited()
	opts.DataAPIBootTime = -1
	f := newValidatedFixture(t, opts)
	ctx, c := context.Background(), f.client(t, f.emu.BootstrapKey())
	projectID := f.emu.ProjectIDs()[0]
	branchID, _ := f.emu.DefaultBranchID(projectID)
	ref := apiclient.DataAPIRef{ProjectID: projectID, BranchID: branchID, DatabaseName: "neondb"}

	if _, err := c.GetDataAPI(ctx, ref); !errors.Is(err, apiclient.ErrNotFound) {
		t.Fatalf("GetDataAPI before the create: %v, want ErrNotFound", err)
	}
	created, err := c.CreateDataAPI(ctx, ref, apiclient.CreateDataAPIRequest{
		AuthProvider: apiclient.DataAPIAuthProvider(apiclient.DataAPIAuthExternal),
		JWKSURL:      apiclient.Ptr("https://www.googleapis.com/oauth2/v3/certs"), ProviderName: apiclient.Ptr("Google"),
		Settings: &apiclient.DataAPISettings{DBMaxRows: apiclient.Ptr(100)},
	})
	if err != nil || created.URL == "" || created.Recovered {
		t.Fatalf("CreateDataAPI = %+v, %v", created, err)
	}
	if _, err := c.CreateDataAPI(ctx, ref, apiclient.CreateDataAPIRequest{}); !errors.Is(err, apiclient.ErrConflict) {
		t.Errorf("a second create: %v, want ErrConflict", err)
	}
	if err := c.UpdateDataAPI(ctx, ref, apiclient.DataAPISettings{DBSchemas: &[]string{"public", "api"}}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetDataAPI(ctx, ref)
	switch {
	case err != nil:
		t.Fatal(err)
	case got.URL != created.URL || got.Status != "active" || got.Settings == nil:
		t.Errorf("GetDataAPI = %+v, want the created URL, active, with settings", got)
	case got.Settings.DBMaxRows != nil || len(*got.Settings.DBSchemas) != 2:
		t.Errorf("settings after the update %+v: the update replaces them all", *got.Settings)
	}
	if err := c.DeleteDataAPI(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteDataAPI(ctx, ref); !errors.Is(err, apiclient.ErrNotFound) {
		t.Errorf("a second delete: %v, want ErrNotFound", err)
	}
	dbs, err := c.ListDatabases(ctx, projectID, branchID)
	if err != nil || len(dbs) != 1 || dbs[0].Name != "neondb" {
		t.Errorf("ListDatabases = %+v, %v", dbs, err)
	}
}

// A create and a delete whose answers are lost are found applied by the
// read-back, and not sent blindly again.
func TestClientDataAPILostAnswersAreReadBack(t *testing.T) {
	opts := unlimited()
	opts.DataAPIBootTime = -1
	f := newFixture(t, opts)
	ctx, c := context.Background(), f.client(t, f.emu.BootstrapKey())
	projectID := f.emu.ProjectIDs()[0]
	branchID, _ := f.emu.DefaultBranchID(projectID)
	ref := apiclient.DataAPIRef{ProjectID: projectID, BranchID: branchID, DatabaseName: "neondb"}
	const create, del = "POST /projects/{project_id}/branches/{branch_id}/data-api/{database_name}",
		"DELETE /projects/{project_id}/branches/{branch_id}/data-api/{database_name}"
	f.emu.SetFaults(emulator.Faults{LostResponseRate: 1, Routes: []string{create, del}})
	created, err := c.CreateDataAPI(ctx, ref, apiclient.CreateDataAPIRequest{})
	if err != nil || !created.Recovered || created.URL == "" {
		t.Fatalf("CreateDataAPI with its answer lost = %+v, %v; want recovered with the URL read back", created, err)
	}
	if err := c.DeleteDataAPI(ctx, ref); err != nil {
		t.Fatalf("DeleteDataAPI with its answer lost: %v", err)
	}
	st := f.emu.Stats()
	if creates, deletes := sum(st.Requests[create]), sum(st.Requests[del]); creates != 1 || deletes != 1 || st.Lost != 2 {
		t.Errorf("%d creates and %d deletes sent, %d answers lost; want one of each, both lost", creates, deletes, st.Lost)
	}
}

func TestClientJWKS(t *testing.T) {
	f := newValidatedFixture(t, unlimited())
	ctx, c := context.Background(), f.client(t, f.emu.BootstrapKey())
	projectID := f.emu.ProjectIDs()[0]
	req := apiclient.AddJWKSRequest{JWKSURL: "https://www.googleapis.com/oauth2/v3/certs", ProviderName: "Google", JwtAudience: apiclient.Ptr("app")}
	added, err := c.AddJWKS(ctx, projectID, req)
	if err != nil || added.ID == "" || added.Recovered || !apiclient.SameJWKS(added.JWKS, req) {
		t.Fatalf("AddJWKS = %+v, %v", added, err)
	}
	if _, err := c.AddJWKS(ctx, projectID, req); !errors.Is(err, apiclient.ErrConflict) {
		t.Errorf("the same JWKS again: %v, want ErrConflict", err)
	}
	list, err := c.ListJWKS(ctx, projectID)
	if err != nil || len(list) != 1 || list[0].ID != added.ID {
		t.Fatalf("ListJWKS = %+v, %v", list, err)
	}
	if err := c.DeleteJWKS(ctx, projectID, added.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteJWKS(ctx, projectID, added.ID); !errors.Is(err, apiclient.ErrNotFound) {
		t.Errorf("a second delete: %v, want ErrNotFound", err)
	}

	// Lost answers: the add is found in a fresh list, the delete found gone.
	const add, del = "POST /projects/{project_id}/jwks", "DELETE /projects/{project_id}/jwks/{jwks_id}"
	f.emu.SetFaults(emulator.Faults{LostResponseRate: 1, Routes: []string{add, del}})
	again, err := c.AddJWKS(ctx, projectID, req)
	if err != nil || !again.Recovered || again.ID == "" {
		t.Fatalf("AddJWKS with its answer lost = %+v, %v; want recovered with the listed JWKS", again, err)
	}
	if err := c.DeleteJWKS(ctx, projectID, again.ID); err != nil {
		t.Fatalf("DeleteJWKS with its answer lost: %v", err)
	}
}

// sum is the count of requests of a route, whatever their status.
func sum(byStatus map[int]int) int {
	n := 0
	for _, c := range byStatus {
		n += c
	}
	return n
}
