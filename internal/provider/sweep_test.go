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

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Sweepers: `make sweep` deletes what test runs that crashed left on a
// remote API — the projects named runPrefix…, and the branches so named in
// NEON_TEST_PROJECT_ID — once they are older than NEON_SWEEP_MIN_AGE
// (default 1h, so that a run still going keeps its own). Nothing without the
// prefix is ever touched.

// envSweepMinAge is how old a leftover must be before make sweep deletes it.
const envSweepMinAge = "NEON_SWEEP_MIN_AGE"

// sweeper deletes the suite's leftover projects (projects true) or branches
// of NEON_TEST_PROJECT_ID, with the key and API the remote tests use. The
// region terraform-plugin-testing passes means nothing to Neon's API.
func sweeper(projects bool) func(string) error {
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
		sw := leftovers{client: c, prefix: runPrefix, cutoff: time.Now().Add(-age), orgID: os.Getenv(envTestOrgID),
			report: func(s string) { log.Print(s) }}
		ctx := context.Background()
		if projects {
			_, err = sw.projects(ctx)
			return err
		}
		if id := os.Getenv(envTestProjectID); id != "" {
			_, err = sw.branches(ctx, id)
			return err
		}
		log.Printf("%s is not set: no branches to sweep (the suite's own projects go whole)", envTestProjectID)
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

// projects deletes the leftover projects and returns their names.
func (l leftovers) projects(ctx context.Context) ([]string, error) {
	list, err := l.client.ListProjects(ctx, apiclient.ListProjectsOptions{Search: l.prefix, OrgID: l.orgID})
	if err != nil {
		return nil, fmt.Errorf("listing projects: %w", err)
	}
	var deleted []string
	var errs []error
	for _, p := range list.Projects {
		if !strings.HasPrefix(p.Name, l.prefix) || !p.CreatedAt.Before(l.cutoff) {
			continue
		}
		if err := l.client.DeleteProject(ctx, p.ID); err != nil && !errors.Is(err, apiclient.ErrNotFound) {
			errs = append(errs, fmt.Errorf("deleting project %s (%s): %w", p.ID, p.Name, err))
			continue
		}
		l.report(fmt.Sprintf("deleted project %s (%s, created %s)", p.ID, p.Name, p.CreatedAt.Format(time.RFC3339)))
		deleted = append(deleted, p.Name)
	}
	if len(deleted) == 0 && len(errs) == 0 {
		l.report(fmt.Sprintf("no project named %s… created before %s", l.prefix, l.cutoff.Format(time.RFC3339)))
	}
	return deleted, errors.Join(errs...)
}

// branches deletes the leftover branches of a project and returns their
// names. The production branch is never one of them.
func (l leftovers) branches(ctx context.Context, projectID string) ([]string, error) {
	list, err := l.client.ListBranches(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("listing the branches of project %s: %w", projectID, err)
	}
	// Children first: Neon refuses to delete a branch that has children.
	slices.SortFunc(list, func(a, b apiclient.Branch) int { return b.CreatedAt.Compare(a.CreatedAt) })
	var deleted []string
	var errs []error
	for _, b := range list {
		if b.Default || !strings.HasPrefix(b.Name, l.prefix) || !b.CreatedAt.Before(l.cutoff) {
			continue
		}
		if err := l.client.DeleteBranch(ctx, projectID, b.ID); err != nil && !errors.Is(err, apiclient.ErrNotFound) {
			errs = append(errs, fmt.Errorf("deleting branch %s (%s) of project %s: %w", b.ID, b.Name, projectID, err))
			continue
		}
		l.report(fmt.Sprintf("deleted branch %s (%s) of project %s, created %s", b.ID, b.Name, projectID, b.CreatedAt.Format(time.RFC3339)))
		deleted = append(deleted, b.Name)
	}
	if len(deleted) == 0 && len(errs) == 0 {
		l.report(fmt.Sprintf("no branch of project %s named %s… created before %s", projectID, l.prefix, l.cutoff.Format(time.RFC3339)))
	}
	return deleted, errors.Join(errs...)
}

// The sweepers delete the leftovers and nothing else: of what a test plants,
// only the objects whose names carry the prefix go, and only once they are
// older than the age asked for; a second sweep finds nothing. The planted
// prefix is this test's own, so that a run going on beside it keeps its
// objects.
func TestAccSweep_deletesOnlyLeftovers(t *testing.T) {
	env := newBranchEnv(t)
	ctx, c := context.Background(), env.client()
	prefix := fmt.Sprintf("%s-sweep-%d-", runPrefix+"plant", time.Now().UnixNano())
	for _, name := range []string{prefix + "a", prefix + "b", "keep-" + prefix} {
		newBranch(t, c, env.ProjectID, "", name)
	}
	// Projects are planted where the key may create them.
	var projectNames []string
	for _, name := range []string{prefix + "project", "keep-" + prefix + "project"} {
		p, err := c.CreateProject(ctx, apiclient.CreateProjectRequest{Name: name, OrgID: os.Getenv(envTestOrgID)})
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
	var reported []string
	sweep := func(age time.Duration) (branches, projects []string) {
		l := leftovers{client: c, prefix: prefix, cutoff: time.Now().Add(-age), orgID: os.Getenv(envTestOrgID),
			report: func(s string) { reported = append(reported, s) }}
		branches, err := l.branches(ctx, env.ProjectID)
		if err != nil {
			t.Fatal(err)
		}
		if projectNames != nil {
			if projects, err = l.projects(ctx); err != nil {
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
		list, err := c.ListProjects(ctx, apiclient.ListProjectsOptions{Search: "keep-" + prefix, OrgID: os.Getenv(envTestOrgID)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(list.Projects, func(p apiclient.Project) bool { return p.Name == projectNames[1] }) {
			t.Errorf("the sweep deleted project %s, which has no prefix", projectNames[1])
		}
	}
	if !slices.ContainsFunc(reported, func(s string) bool { return strings.HasPrefix(s, "deleted branch ") }) {
		t.Errorf("the sweep did not say what it deleted: %q", reported)
	}
}
