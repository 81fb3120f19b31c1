package acctest

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
)

// The API the acceptance tests run against. By default each test starts an
// emulator in this process. With NEON_TEST_REMOTE=1 (make test-live) they run
// against any server that follows Neon's reference, reached over the network
// only: Neon itself with a key, or neon-emulator started elsewhere (make
// test-remote). Either way a test sets up, changes and checks state through
// the public API; what only the in-process emulator can do (inject faults,
// lose answers, count requests) skips remotely, saying why.
//
// Remotely, every name the suite gives carries RunPrefix and a run id, so
// that runs on one account never collide and `make sweep` finds what a
// crashed run left behind. Each test works in a branch it creates (in
// NEON_TEST_PROJECT_ID, or in a project the run creates) or, when it needs a
// production branch of its own, in a project it creates; it deletes them
// after itself, also when it fails.

// The variables of the remote target.
const (
	envAPIKey        = "NEON_API_KEY"
	envBaseURL       = "NEON_API_BASE_URL"
	envTestRemote    = "NEON_TEST_REMOTE"
	EnvTestProjectID = "NEON_TEST_PROJECT_ID"
	EnvTestOrgID     = "NEON_TEST_ORG_ID"
	// envTestEmulator says that the remote server is this repository's
	// neon-emulator (make test-remote sets it): an answer that breaks the
	// API reference then fails the test, as in-process. Against any other
	// server such an answer is a deviation, recorded (deviations.go).
	envTestEmulator = "NEON_TEST_EMULATOR"
)

// RunPrefix starts the name of every project and branch the suite creates
// remotely (and is what the sweepers look for).
const RunPrefix = "tfacc-"

// remoteTarget is the remote API of this test run.
type remoteTarget struct {
	baseURL, key, orgID string
	// runID is RunPrefix and a random suffix, the same for every name of
	// this run.
	runID string
	// ownEmulator: the server is this repository's neon-emulator
	// (envTestEmulator), whose answers must follow the reference.
	ownEmulator bool
	seq         atomic.Int64

	// The suite's project: NEON_TEST_PROJECT_ID, or one created at the
	// first need and deleted when the run ends.
	project     sync.Once
	projectID   string
	projectErr  error
	madeProject bool
}

// remoteRun is the remote target, or nil when the tests run in-process.
var remoteRun = func() *remoteTarget {
	if os.Getenv(envTestRemote) == "" {
		return nil
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	return &remoteTarget{
		baseURL:     cmp.Or(os.Getenv(envBaseURL), apiclient.DefaultBaseURL),
		key:         os.Getenv(envAPIKey),
		orgID:       os.Getenv(EnvTestOrgID),
		runID:       fmt.Sprintf("%s%x", RunPrefix, suffix),
		ownEmulator: os.Getenv(envTestEmulator) != "",
	}
}()

// Remote reports whether the tests run against a remote API
// (NEON_TEST_REMOTE) rather than an emulator in this process.
func Remote() bool { return remoteRun != nil }

// OrgID is the organization a remote run creates projects and keys in
// (NEON_TEST_ORG_ID); empty in-process or without one.
func (e *Env) OrgID() string {
	if e.remote == nil {
		return ""
	}
	return e.remote.orgID
}

// RemoteName is a name for something the test creates on the remote
// target: the run id (which make sweep looks for), a sequence number and
// the test's name; empty in-process.
func (e *Env) RemoteName() string {
	if e.remote == nil {
		return ""
	}
	return e.remote.name(e.t)
}

// NewProject creates a project of the test's own on the remote target,
// deleted when the test ends; a key that may not create projects skips the
// test. In-process the emulator's projects are at hand instead.
func (e *Env) NewProject() (projectID, productionBranch string) {
	e.t.Helper()
	if e.remote == nil {
		e.t.Fatal("NewProject makes a project on a remote target; in-process, use the emulator's projects")
	}
	return e.remote.newProject(e.t, e.Client())
}

// newProvider makes the provider under test over an HTTP client (nil: the
// provider's own); RunTests sets it. This package cannot import the
// provider's: the provider's own tests import this one.
var newProvider func(httpClient *http.Client) provider.Provider

// RunTests runs the tests of a package (its TestMain calls it) on the
// provider newProvider makes, and ends the run on the remote target: it
// reports the deviations the tests met and deletes the project it created
// for them. It answers the exit code.
func RunTests(m *testing.M, newProviderOver func(httpClient *http.Client) provider.Provider) int {
	newProvider = newProviderOver
	code := m.Run()
	if r := remoteRun; r != nil {
		if err := reportDeviations(); err != nil {
			fmt.Fprintf(os.Stderr, "writing the summary of deviations: %v\n", err)
			code = max(code, 1)
		}
	}
	if r := remoteRun; r != nil && r.madeProject {
		if err := r.client(nil).DeleteProject(context.Background(), r.projectID); err != nil && !errors.Is(err, apiclient.ErrNotFound) {
			fmt.Fprintf(os.Stderr, "deleting the suite's project %s: %v (make sweep deletes it later)\n", r.projectID, err)
			code = max(code, 1)
		}
	}
	return code
}

// client is an API client on the remote target, paced with every other run
// on this machine (shared_rate_limit), whose traffic v checks when not nil.
func (r *remoteTarget) client(v *apispec.Validator) *apiclient.Client {
	opts := apiclient.Options{BaseURL: r.baseURL, APIKey: r.key, RateLimit: apiclient.RateLimit{Shared: true}}
	if v != nil {
		opts.HTTPClient = &http.Client{Transport: v.Transport(nil)}
	}
	c, err := apiclient.New(opts)
	if err != nil {
		panic(fmt.Sprintf("the remote target's client: %v", err)) // the base URL was checked by newTargetEnv
	}
	return c
}

// name is a name for something a test creates: the run id, a sequence
// number, and the test's name as far as the API allows.
func (r *remoteTarget) name(t *testing.T) string {
	slug := strings.Trim(nonName.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	n := fmt.Sprintf("%s-%d-%s", r.runID, r.seq.Add(1), slug)
	return n[:min(len(n), 63)]
}

// suiteProject is the project the run's branches are made in: the one
// NEON_TEST_PROJECT_ID names, or one created for the run. Its production
// branch must have no Neon Auth and no Data API on neondb, or every branch
// made from it would start with a copy.
func (r *remoteTarget) suiteProject(t *testing.T) string {
	t.Helper()
	r.project.Do(func() {
		ctx, c := context.Background(), r.client(nil)
		r.projectID = os.Getenv(EnvTestProjectID)
		if r.projectID == "" {
			p, err := c.CreateProject(ctx, apiclient.CreateProjectRequest{Name: r.runID, OrgID: r.orgID})
			if err != nil {
				r.projectErr = fmt.Errorf("creating the suite's project %s (set %s to a project for the suite instead, or %s for an "+
					"organization key): %w", r.runID, EnvTestProjectID, EnvTestOrgID, err)
				return
			}
			r.projectID, r.madeProject = p.Project.ID, true
			return
		}
		prod, err := c.DefaultBranch(ctx, r.projectID)
		if err != nil {
			r.projectErr = fmt.Errorf("%s=%s: %w", EnvTestProjectID, r.projectID, err)
			return
		}
		s := apiclient.Scope{ProjectID: r.projectID, BranchID: prod.ID, Family: apiclient.FamilyBranch}
		switch _, err := c.ListIntegrations(ctx, s); {
		case err == nil:
			r.projectErr = fmt.Errorf("%s=%s: its production branch %s has Neon Auth, so every branch the suite makes from it would "+
				"start with a copy; use a project whose production branch has none", EnvTestProjectID, r.projectID, prod.ID)
		case !errors.Is(err, apiclient.ErrNotFound):
			r.projectErr = fmt.Errorf("%s=%s: reading the Neon Auth of its production branch: %w", EnvTestProjectID, r.projectID, err)
		}
		if r.projectErr != nil {
			return
		}
		switch _, err := c.GetDataAPI(ctx, apiclient.DataAPIRef{ProjectID: r.projectID, BranchID: prod.ID, DatabaseName: "neondb"}); {
		case err == nil:
			r.projectErr = fmt.Errorf("%s=%s: its production branch %s has the Data API of neondb, so every branch the suite makes from "+
				"it would start with a copy; use a project whose production branch has none", EnvTestProjectID, r.projectID, prod.ID)
		case !errors.Is(err, apiclient.ErrNotFound):
			r.projectErr = fmt.Errorf("%s=%s: reading the Data API of its production branch: %w", EnvTestProjectID, r.projectID, err)
		}
	})
	if r.projectErr != nil {
		t.Fatal(r.projectErr)
	}
	return r.projectID
}

// NewBranch creates a branch of its own for t, from parentID (the
// production branch when empty), with a read-write compute endpoint as an
// application's branch has, and deletes it when t ends.
func NewBranch(t *testing.T, c *apiclient.Client, projectID, parentID, name string) string {
	t.Helper()
	b, err := c.CreateBranch(context.Background(), projectID, apiclient.CreateBranchRequest{Name: name, ParentID: parentID, ReadWriteEndpoint: true})
	if err != nil {
		t.Fatalf("creating branch %s in project %s: %v", name, projectID, err)
	}
	t.Cleanup(func() {
		if err := c.DeleteBranch(context.Background(), projectID, b.ID); err != nil && !errors.Is(err, apiclient.ErrNotFound) {
			t.Errorf("deleting branch %s (%s) of project %s: %v", b.ID, name, projectID, err)
		}
	})
	return b.ID
}

// newProject creates a project of its own for t and deletes it when t ends.
// A key that may not create projects skips the test, saying so.
func (r *remoteTarget) newProject(t *testing.T, c *apiclient.Client) (projectID, productionBranch string) {
	t.Helper()
	name := r.name(t)
	p, err := c.CreateProject(context.Background(), apiclient.CreateProjectRequest{Name: name, OrgID: r.orgID})
	var apiErr *apiclient.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 && apiErr.StatusCode != http.StatusTooManyRequests {
		t.Skipf("this test needs a project of its own (a production branch whose Neon Auth is free), and the API refused to "+
			"create one: %v", err)
	}
	if err != nil {
		t.Fatalf("creating project %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := c.DeleteProject(context.Background(), p.Project.ID); err != nil && !errors.Is(err, apiclient.ErrNotFound) {
			t.Errorf("deleting project %s (%s): %v", p.Project.ID, name, err)
		}
	})
	return p.Project.ID, p.Branch.ID
}
