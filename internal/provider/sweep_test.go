package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Sweepers: `make sweep` deletes what test runs that crashed left on a
// remote API — the projects named runPrefix…, the branches so named in
// NEON_TEST_PROJECT_ID with the JWKS trusted for them alone, and the API
// keys so named (revoked) — once they are older than NEON_SWEEP_MIN_AGE
// (default 1h, so that a run still going keeps its own). Nothing without the
// prefix is ever touched.

// envSweepMinAge is how old a leftover must be before make sweep deletes it.
const envSweepMinAge = "NEON_SWEEP_MIN_AGE"

// What a sweeper deletes.
type sweepKind int

const (
	sweepBranches sweepKind = iota // of NEON_TEST_PROJECT_ID
	sweepProjects
	sweepKeys // API keys: personal, or NEON_TEST_ORG_ID's
)

// sweeper deletes the suite's leftovers of one kind, with the key and API
// the remote tests use. The region terraform-plugin-testing passes means
// nothing to Neon's API.
func sweeper(kind sweepKind) func(string) error {
	return func(string) error {
		key := os.Getenv(envAPIKey)
		if key == "" {
			return fmt.Errorf("make sweep needs %s (and %s for another server than Neon's)", envAPIKey, envBaseURL)
		}
		age := time.Hour
		if s := os.Getenv(envSweepMinAge); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 {
				return fmt.Errorf("%s=%q: want a duration such as 1h or 30m", envSweepMinAge, s)
			}
			age = d
		}
		c, err := apiclient.New(apiclient.Options{BaseURL: cmp.Or(os.Getenv(envBaseURL), apiclient.DefaultBaseURL), APIKey: key,
			RateLimit: apiclient.RateLimit{Shared: true}})
		if err != nil {
			return err
		}
		sw := leftovers{client: c, prefix: acctest.RunPrefix, cutoff: time.Now().Add(-age), orgID: os.Getenv(acctest.EnvTestOrgID),
			report: func(s string) { log.Print(s) }}
		ctx := context.Background()
		switch kind {
		case sweepProjects:
			_, err = sw.sweep(ctx, "")
			return err
		case sweepKeys:
			_, err = sw.sweepKeys(ctx)
			return err
		}
		if id := os.Getenv(acctest.EnvTestProjectID); id != "" {
			_, err = sw.sweep(ctx, id)
			return err
		}
		log.Printf("%s is not set: no branches to sweep (the suite's own projects go whole)", acctest.EnvTestProjectID)
		return nil
	}
}

// leftovers finds and deletes what carries prefix and was created before
// cutoff.
type leftovers struct {
	client *apiclient.Client
	prefix string
	cutoff time.Time
	orgID  string
	report func(string)
}

// sweep deletes the leftover projects (projectID "") or the leftover
// branches of project projectID, and returns their names. A production
// branch is never one of them.
func (l leftovers) sweep(ctx context.Context, projectID string) ([]string, error) {
	type object struct {
		what, name string // "project …", "branch … of project …"
		created    time.Time
		delete     func() error
	}
	var found []object
	if projectID == "" {
		list, err := l.client.ListProjects(ctx, apiclient.ListProjectsOptions{Search: l.prefix, OrgID: l.orgID})
		if err != nil {
			return nil, fmt.Errorf("listing projects: %w", err)
		}
		for _, p := range list.Projects {
			found = append(found, object{"project " + p.ID, p.Name, p.CreatedAt, func() error { return l.client.DeleteProject(ctx, p.ID) }})
		}
	} else {
		list, err := l.client.ListBranches(ctx, projectID)
		if err != nil {
			return nil, fmt.Errorf("listing the branches of project %s: %w", projectID, err)
		}
		// Children first: Neon refuses to delete a branch that has children.
		slices.SortFunc(list, func(a, b apiclient.Branch) int { return b.CreatedAt.Compare(a.CreatedAt) })
		for _, b := range list {
			if !b.Default {
				found = append(found, object{fmt.Sprintf("branch %s of project %s", b.ID, projectID), b.Name, b.CreatedAt,
					func() error { return l.deleteBranch(ctx, projectID, b.ID) }})
			}
		}
	}
	var deleted []string
	var errs []error
	for _, o := range found {
		if !strings.HasPrefix(o.name, l.prefix) || !o.created.Before(l.cutoff) {
			continue
		}
		if err := o.delete(); err != nil && !errors.Is(err, apiclient.ErrNotFound) {
			errs = append(errs, fmt.Errorf("deleting %s (%s): %w", o.what, o.name, err))
			continue
		}
		l.report(fmt.Sprintf("deleted %s (%s, created %s)", o.what, o.name, o.created.Format(time.RFC3339)))
		deleted = append(deleted, o.name)
	}
	if len(deleted) == 0 && len(errs) == 0 {
		where := "no project"
		if projectID != "" {
			where = "no branch of project " + projectID
		}
		l.report(fmt.Sprintf("%s named %s… created before %s", where, l.prefix, l.cutoff.Format(time.RFC3339)))
	}
	return deleted, errors.Join(errs...)
}

// sweepKeys revokes the leftover API keys — the personal keys of the key's
// user, or the organization's with orgID — and returns their names.
func (l leftovers) sweepKeys(ctx context.Context) ([]string, error) {
	list, err := l.client.ListAPIKeys(ctx)
	if l.orgID != "" {
		list, err = l.client.ListOrgAPIKeys(ctx, l.orgID)
	}
	if err != nil {
		return nil, fmt.Errorf("listing API keys: %w", err)
	}
	var revoked []string
	var errs []error
	for _, k := range list {
		if !strings.HasPrefix(k.Name, l.prefix) || !k.CreatedAt.Before(l.cutoff) {
			continue
		}
		if err := l.client.RevokeAPIKey(ctx, apiclient.APIKey{ID: k.ID, Name: k.Name, OrgID: l.orgID}); err != nil &&
			!errors.Is(err, apiclient.ErrNotFound) {
			errs = append(errs, fmt.Errorf("revoking API key %d (%s): %w", k.ID, k.Name, err))
			continue
		}
		l.report(fmt.Sprintf("revoked API key %d (%s, created %s)", k.ID, k.Name, k.CreatedAt.Format(time.RFC3339)))
		revoked = append(revoked, k.Name)
	}
	if len(revoked) == 0 && len(errs) == 0 {
		l.report(fmt.Sprintf("no API key named %s… created before %s", l.prefix, l.cutoff.Format(time.RFC3339)))
	}
	return revoked, errors.Join(errs...)
}

// deleteBranch deletes a leftover branch and, first, the JWKS the project
// trusts for it alone (a test's, which the project would otherwise keep).
func (l leftovers) deleteBranch(ctx context.Context, projectID, branchID string) error {
	jwks, err := l.client.ListJWKS(ctx, projectID)
	if err != nil {
		return fmt.Errorf("listing the JWKS of project %s: %w", projectID, err)
	}
	for _, j := range jwks {
		if apiclient.Deref(j.BranchID) != branchID {
			continue
		}
		if err := l.client.DeleteJWKS(ctx, projectID, j.ID); err != nil && !errors.Is(err, apiclient.ErrNotFound) {
			return fmt.Errorf("deleting the JWKS %s of branch %s: %w", j.ID, branchID, err)
		}
		l.report(fmt.Sprintf("deleted the JWKS %s (%s) of branch %s of project %s", j.ID, j.JWKSURL, branchID, projectID))
	}
	return l.client.DeleteBranch(ctx, projectID, branchID)
}

// The sweepers delete the leftovers and nothing else: of what a test plants,
// only the objects whose names carry the prefix go, and only once they are
// older than the age asked for; a second sweep finds nothing. The planted
// prefix is this test's own, so that a run going on beside it keeps its
// objects.
func TestAccSweep_deletesOnlyLeftovers(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	ctx, c := context.Background(), env.Client()
	prefix := fmt.Sprintf("%s-sweep-%d-", acctest.RunPrefix+"plant", time.Now().UnixNano())
	planted := map[string]string{} // branch name → id
	for _, name := range []string{prefix + "a", prefix + "b", "keep-" + prefix} {
		planted[name] = acctest.NewBranch(t, c, env.ProjectID, "", name)
	}
	// A JWKS of a leftover branch goes with it; one of the kept branch stays.
	jwksOf := func(name string) string {
		j, err := c.AddJWKS(ctx, env.ProjectID, apiclient.AddJWKSRequest{JWKSURL: googleJWKS, ProviderName: "Google", BranchID: apiclient.Ptr(planted[name])})
		env.Must(err)
		t.Cleanup(func() { _ = c.DeleteJWKS(context.Background(), env.ProjectID, j.ID) })
		return j.ID
	}
	leftoverJWKS, keptJWKS := jwksOf(prefix+"a"), jwksOf("keep-"+prefix)
	// Projects are planted where the key may create them.
	var projectNames []string
	for _, name := range []string{prefix + "project", "keep-" + prefix + "project"} {
		p, err := c.CreateProject(ctx, apiclient.CreateProjectRequest{Name: name, OrgID: os.Getenv(acctest.EnvTestOrgID)})
		var apiErr *apiclient.Error
		if errors.As(err, &apiErr) && apiErr.StatusCode/100 == 4 && len(projectNames) == 0 {
			t.Logf("planting branches only: the API refused to create project %s: %v", name, err)
			break
		}
		if err != nil {
			t.Fatalf("planting project %s: %v", name, err)
		}
		projectNames = append(projectNames, name)
		t.Cleanup(func() {
			if err := c.DeleteProject(context.Background(), p.Project.ID); err != nil && !errors.Is(err, apiclient.ErrNotFound) {
				t.Errorf("deleting project %s: %v", name, err)
			}
		})
	}
	// Keys: personal, or the organization's for an organization key.
	var keyNames []string
	for _, name := range []string{prefix + "key", "keep-" + prefix + "key"} {
		k, err := c.CreateAPIKey(ctx, name)
		if orgID := os.Getenv(acctest.EnvTestOrgID); orgID != "" {
			k, err = c.CreateOrgAPIKey(ctx, orgID, name, "")
		}
		var apiErr *apiclient.Error
		if errors.As(err, &apiErr) && apiErr.StatusCode/100 == 4 && len(keyNames) == 0 {
			t.Logf("planting no key: the API refused to make key %s: %v", name, err)
			break
		}
		if err != nil {
			t.Fatalf("planting key %s: %v", name, err)
		}
		keyNames = append(keyNames, name)
		t.Cleanup(func() { _ = c.RevokeAPIKey(context.Background(), *k) })
	}
	var reported []string
	keysSwept := func(age time.Duration) []string {
		if keyNames == nil {
			return nil
		}
		l := leftovers{client: c, prefix: prefix, cutoff: time.Now().Add(-age), orgID: os.Getenv(acctest.EnvTestOrgID),
			report: func(s string) { reported = append(reported, s) }}
		revoked, err := l.sweepKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return revoked
	}
	if k := keysSwept(time.Hour); len(k) != 0 {
		t.Errorf("a sweep of what is older than an hour revoked the new keys %q", k)
	}
	if k, want := keysSwept(0), keyNames[:min(1, len(keyNames))]; !slices.Equal(k, want) {
		t.Errorf("the sweep revoked keys %q, want %q", k, want)
	}
	if k := keysSwept(0); len(k) != 0 {
		t.Errorf("a second sweep revoked keys %q, want nothing", k)
	}
	sweep := func(age time.Duration) (branches, projects []string) {
		l := leftovers{client: c, prefix: prefix, cutoff: time.Now().Add(-age), orgID: os.Getenv(acctest.EnvTestOrgID),
			report: func(s string) { reported = append(reported, s) }}
		branches, err := l.sweep(ctx, env.ProjectID)
		if err != nil {
			t.Fatal(err)
		}
		if projectNames != nil {
			if projects, err = l.sweep(ctx, ""); err != nil {
				t.Fatal(err)
			}
		}
		return branches, projects
	}

	if b, p := sweep(time.Hour); len(b)+len(p) != 0 {
		t.Errorf("a sweep of what is older than an hour deleted the new branches %q and projects %q", b, p)
	}
	b, p := sweep(0)
	slices.Sort(b)
	if want := []string{prefix + "a", prefix + "b"}; !slices.Equal(b, want) {
		t.Errorf("the sweep deleted branches %q, want %q", b, want)
	}
	if want := projectNames[:min(1, len(projectNames))]; !slices.Equal(p, want) {
		t.Errorf("the sweep deleted projects %q, want %q", p, want)
	}
	if b, p := sweep(0); len(b)+len(p) != 0 {
		t.Errorf("a second sweep deleted branches %q and projects %q, want nothing", b, p)
	}
	branches, err := c.ListBranches(ctx, env.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(branches, func(b apiclient.Branch) bool { return b.Name == "keep-"+prefix }) {
		t.Errorf("the sweep deleted branch keep-%s, which has no prefix", prefix)
	}
	if len(projectNames) == 2 {
		list, err := c.ListProjects(ctx, apiclient.ListProjectsOptions{Search: "keep-" + prefix, OrgID: os.Getenv(acctest.EnvTestOrgID)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(list.Projects, func(p apiclient.Project) bool { return p.Name == projectNames[1] }) {
			t.Errorf("the sweep deleted project %s, which has no prefix", projectNames[1])
		}
	}
	jwks, err := c.ListJWKS(ctx, env.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(jwks, func(j apiclient.JWKS) bool { return j.ID == leftoverJWKS }) ||
		!slices.ContainsFunc(jwks, func(j apiclient.JWKS) bool { return j.ID == keptJWKS }) {
		t.Errorf("after the sweep the project trusts %+v: want the leftover branch's JWKS gone and the kept branch's there", jwks)
	}
	if !slices.ContainsFunc(reported, func(s string) bool { return strings.HasPrefix(s, "deleted branch ") }) {
		t.Errorf("the sweep did not say what it deleted: %q", reported)
	}
}
