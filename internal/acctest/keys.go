package acctest

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// API keys a test makes for itself through the public API, on any target:
// a key of its own that it may revoke (POST /api_keys, or an organization
// key with NEON_TEST_ORG_ID), and a key that may access one project only
// (an organization key scoped to it). Each is revoked when the test ends.
// A key that may not make keys skips the test, saying so.

// NewAPIKey makes a key with the run's access for the test alone.
func (e *Env) NewAPIKey() apiclient.APIKey {
	e.t.Helper()
	c, name := e.Client(), e.keyName()
	var k *apiclient.APIKey
	var err error
	if e.remote != nil && e.remote.orgID != "" {
		k, err = c.CreateOrgAPIKey(context.Background(), e.remote.orgID, name, "")
	} else {
		k, err = c.CreateAPIKey(context.Background(), name)
	}
	return e.keepKey(k, err, "an API key of its own")
}

// NewProjectKey makes a key that may access projectID only: a key of the
// project's organization scoped to it.
func (e *Env) NewProjectKey(projectID string) apiclient.APIKey {
	e.t.Helper()
	c := e.Client()
	orgID := ""
	if e.remote != nil {
		orgID = e.remote.orgID
	}
	if orgID == "" {
		p, err := c.GetProject(context.Background(), projectID)
		if err != nil {
			e.t.Fatalf("reading project %s for its organization: %v", projectID, err)
		}
		if orgID = apiclient.Deref(p.OrgID); orgID == "" {
			e.t.Skipf("this test needs a key scoped to project %s, which its organization makes, and the project belongs to none", projectID)
		}
	}
	k, err := c.CreateOrgAPIKey(context.Background(), orgID, e.keyName(), projectID)
	return e.keepKey(k, err, "a key scoped to project "+projectID)
}

// keyName names a key the test makes: as everything the run makes
// remotely (RunPrefix and the run's id), or after the test in-process.
func (e *Env) keyName() string {
	if e.remote != nil {
		return e.remote.name(e.t)
	}
	name := "test-" + strings.Trim(nonName.ReplaceAllString(strings.ToLower(e.t.Name()), "-"), "-")
	return name[:min(len(name), 64)]
}

// keepKey returns the key made, revoked when the test ends, or skips the
// test when the API refused to make it (the run's key may not).
func (e *Env) keepKey(k *apiclient.APIKey, err error, what string) apiclient.APIKey {
	e.t.Helper()
	var apiErr *apiclient.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 && apiErr.StatusCode != http.StatusTooManyRequests {
		e.t.Skipf("this test needs %s, and the API refused to make one with the run's key: %v", what, err)
	}
	if err != nil {
		e.t.Fatalf("making %s: %v", what, err)
	}
	e.t.Cleanup(func() { e.RevokeKey(*k) })
	return *k
}

// RevokeKey revokes a key the test made; one revoked already is done.
func (e *Env) RevokeKey(k apiclient.APIKey) {
	e.t.Helper()
	if err := e.Client().RevokeAPIKey(context.Background(), k); err != nil && !errors.Is(err, apiclient.ErrNotFound) {
		e.t.Errorf("revoking the test's key %s: %v", k, err)
	}
}

// AnotherProject is a project other than the test's: the emulator's second
// project in-process, one made for the test remotely (which skips when the
// run's key may not make projects).
func (e *Env) AnotherProject() string {
	e.t.Helper()
	if e.remote == nil {
		return e.Emu.ProjectIDs()[1]
	}
	id, _ := e.remote.newProject(e.t, e.Client())
	return id
}
