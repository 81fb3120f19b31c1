package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// A key made through the API works at once, is listed by name, and after
// its revocation every request with it fails with ErrUnauthorized; a
// second revocation finds it gone. Its token never shows in its String, nor
// in the client's logs.
func TestClientMakesAndRevokesAPIKeys(t *testing.T) {
	f := newValidatedFixture(t, unlimited())
	ctx := context.Background()
	c := f.client(t, f.emu.BootstrapKey())

	k, err := c.CreateAPIKey(ctx, "ci")
	if err != nil || k.Name != "ci" || len(k.Token) != 64 || k.ID == 0 {
		t.Fatalf("CreateAPIKey = %v, %v", k, err)
	}
	for _, s := range []string{k.String(), fmt.Sprintf("%v %+v %#v", k, k, k)} {
		if strings.Contains(s, k.Token) {
			t.Errorf("the key's description holds its token: %s", s)
		}
	}
	own := f.client(t, k.Token)
	if _, err := own.ListProjects(ctx, apiclient.ListProjectsOptions{}); err != nil {
		t.Fatalf("the new key: %v", err)
	}
	listed, err := c.ListAPIKeys(ctx)
	if err != nil || !slices.ContainsFunc(listed, func(l apiclient.ListedAPIKey) bool { return l.ID == k.ID && l.Name == "ci" }) {
		t.Errorf("ListAPIKeys = %v, %v; want ci among them", listed, err)
	}

	if err := c.RevokeAPIKey(ctx, *k); err != nil {
		t.Fatal(err)
	}
	if _, err := own.ListProjects(ctx, apiclient.ListProjectsOptions{}); !errors.Is(err, apiclient.ErrUnauthorized) {
		t.Errorf("the revoked key: %v, want ErrUnauthorized", err)
	}
	if err := c.RevokeAPIKey(ctx, *k); !errors.Is(err, apiclient.ErrNotFound) {
		t.Errorf("revoking it again: %v, want ErrNotFound", err)
	}
	if strings.Contains(f.log.all(), k.Token) {
		t.Error("the client's logs hold the key's token")
	}
}

// A key of the organization scoped to one project sees that project alone.
func TestClientMakesAProjectScopedKey(t *testing.T) {
	f := newValidatedFixture(t, unlimited())
	ctx := context.Background()
	c := f.client(t, f.emu.BootstrapKey())
	own, other := f.emu.ProjectIDs()[0], f.emu.ProjectIDs()[1]
	p, err := c.GetProject(ctx, own)
	if err != nil || p.OrgID == nil {
		t.Fatalf("GetProject = %v, %v; want its organization", p, err)
	}
	k, err := c.CreateOrgAPIKey(ctx, *p.OrgID, "scoped", own)
	if err != nil || k.ProjectID != own || k.OrgID != *p.OrgID {
		t.Fatalf("CreateOrgAPIKey = %v, %v", k, err)
	}
	scoped := f.client(t, k.Token)
	list, err := scoped.ListProjects(ctx, apiclient.ListProjectsOptions{})
	if err != nil || len(list.Projects) != 1 || list.Projects[0].ID != own {
		t.Errorf("the scoped key lists %v, %v; want its project alone", list, err)
	}
	if _, err := scoped.GetProject(ctx, other); !errors.Is(err, apiclient.ErrNotFound) {
		t.Errorf("the scoped key reading another project: %v, want ErrNotFound", err)
	}
	if keys, err := c.ListOrgAPIKeys(ctx, *p.OrgID); err != nil || len(keys) != 1 || keys[0].ID != k.ID {
		t.Errorf("ListOrgAPIKeys = %v, %v", keys, err)
	}
	if err := c.RevokeAPIKey(ctx, *k); err != nil {
		t.Fatal(err)
	}
	if _, err := scoped.GetProject(ctx, own); !errors.Is(err, apiclient.ErrUnauthorized) {
		t.Errorf("the revoked scoped key: %v, want ErrUnauthorized", err)
	}
}
