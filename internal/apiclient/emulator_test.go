package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// recordingLogger keeps every line the client logs, to prove no secret is in
// any of them.
type recordingLogger struct {
	mu    sync.Mutex
	lines []string
}

func (l *recordingLogger) Debug(_ context.Context, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf("%s %v", msg, fields))
}

func (l *recordingLogger) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

type fixture struct {
	emu     *emulator.Emulator
	baseURL string
	log     *recordingLogger
}

func newFixture(t *testing.T, opts emulator.Options) *fixture {
	t.Helper()
	emu, err := emulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	return &fixture{emu: emu, baseURL: srv.URL + "/api/v2/", log: &recordingLogger{}}
}

// newValidatedFixture is newFixture with every request the client sends and
// every response the emulator gives checked against the OpenAPI document:
// the test fails on any violation.
func newValidatedFixture(t *testing.T, opts emulator.Options) *fixture {
	t.Helper()
	emu, err := emulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	v, err := apispec.NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(v.Middleware(emu))
	t.Cleanup(func() {
		srv.Close()
		for _, violation := range v.Violations() {
			t.Errorf("OpenAPI violation: %s", violation)
		}
	})
	return &fixture{emu: emu, baseURL: srv.URL + "/api/v2/", log: &recordingLogger{}}
}

func (f *fixture) client(t *testing.T, key string) *apiclient.Client {
	t.Helper()
	c, err := apiclient.New(apiclient.Options{
		BaseURL: f.baseURL, APIKey: key, Logger: f.log,
		Retry:     apiclient.RetryPolicy{WaitMin: 10 * time.Millisecond, WaitMax: 50 * time.Millisecond},
		RateLimit: apiclient.RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func unlimited() emulator.Options {
	return emulator.Options{SeedProjects: 2, AccountRequestsPerMinute: -1, RouteRequestsPerSecond: -1}
}

// Every project-level endpoint, in the order a user meets them, with the
// shapes the spec gives. At the end, the client's logs hold no secret.
func TestClientDrivesEveryEndpoint(t *testing.T) {
	f := newValidatedFixture(t, unlimited())
	ctx := context.Background()
	c := f.client(t, f.emu.BootstrapKey())
	projectID := f.emu.ProjectIDs()[0]
	var secrets []string

	// GET /projects; the branches.
	list, err := c.ListProjects(ctx, apiclient.ListProjectsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	projects := list.Projects
	if len(projects) != 2 || projects[0].ID != projectID || projects[0].CreatedAt.IsZero() || projects[0].PgVersion == 0 {
		t.Fatalf("ListProjects = %+v, %v", projects, err)
	}
	branch, err := c.DefaultBranch(ctx, projectID)
	if err != nil || !branch.Default || branch.ID == "" {
		t.Fatalf("DefaultBranch = %+v, %v", branch, err)
	}
	ps := apiclient.Scope{ProjectID: projectID, BranchID: branch.ID, Family: apiclient.FamilyProject}

	// POST /projects/auth/create.
	creds, err := c.CreateIntegration(ctx, ps, apiclient.CreateIntegrationRequest{
		AuthProvider: "stack", DatabaseName: "neondb", RoleName: "neondb_owner"})
	if err != nil {
		t.Fatal(err)
	}
	if creds.AuthProvider != "stack" || creds.AuthProviderProjectID == "" || creds.PubClientKey == "" ||
		creds.SecretServerKey == "" || creds.JWKSURL == "" || creds.SchemaName == "" || creds.TableName != "users_sync" {
		t.Fatalf("credentials incomplete: %v", creds)
	}
	secrets = append(secrets, creds.PubClientKey, creds.SecretServerKey)

	// GET /projects/{project_id}/auth/integrations.
	its, err := c.ListIntegrations(ctx, ps)
	if err != nil || len(its) != 1 {
		t.Fatalf("ListIntegrations = %v, %v", its, err)
	}
	if it := its[0]; it.AuthProvider != "stack" || it.BranchID != branch.ID || it.DBName != "neondb" ||
		it.AuthProviderProjectID != creds.AuthProviderProjectID || it.OwnedBy == "" || it.CreatedAt.IsZero() || it.JWKSURL != creds.JWKSURL {
		t.Fatalf("listed integration = %+v", it)
	}

	// POST /projects/auth/keys: a new key pair each call.
	keys, err := c.CreateSDKKeys(ctx, ps, "stack")
	if err != nil || keys.SecretServerKey == "" || keys.SecretServerKey == creds.SecretServerKey || keys.PubClientKey == creds.PubClientKey {
		t.Fatalf("CreateSDKKeys must mint a new pair: err=%v", err)
	}
	secrets = append(secrets, keys.PubClientKey, keys.SecretServerKey)

	// POST /projects/auth/user, DELETE /projects/{project_id}/auth/users/{auth_user_id}.
	user, err := c.CreateUser(ctx, ps, apiclient.CreateUserRequest{AuthProvider: "stack", Email: "seed@example.com", Name: "Seed"})
	if err != nil || user.ID == "" {
		t.Fatalf("CreateUser = %v, %v", user, err)
	}
	if rows := f.emu.UsersSync(projectID); len(rows) != 1 || rows[0].ID != user.ID || rows[0].Email != "seed@example.com" {
		t.Fatalf("users_sync = %+v", rows)
	}
	if err := c.DeleteUser(ctx, ps, user.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteUser(ctx, ps, user.ID); !errors.Is(err, apiclient.ErrNotFound) {
		t.Fatalf("deleting a deleted user: %v, want ErrNotFound", err)
	}

	// POST /projects/auth/transfer_ownership.
	tr, err := c.TransferOwnership(ctx, ps, "stack")
	if err != nil || !strings.HasPrefix(tr.URL, "https://") {
		t.Fatalf("TransferOwnership = %v, %v", tr, err)
	}
	secrets = append(secrets, tr.URL)

	// GET, POST, PATCH and DELETE of …/auth/oauth_providers.
	shared, err := c.AddOAuthProvider(ctx, ps, apiclient.AddOAuthProviderRequest{ID: "google"})
	if err != nil || shared.Type != "shared" {
		t.Fatalf("AddOAuthProvider(shared) = %v, %v", shared, err)
	}
	std, err := c.UpdateOAuthProvider(ctx, ps, "google", apiclient.UpdateOAuthProviderRequest{ClientID: apiclient.Ptr("cid"), ClientSecret: apiclient.Ptr("oauth-secret-1")})
	if err != nil || std.Type != "standard" || apiclient.Deref(std.ClientID) != "cid" {
		t.Fatalf("UpdateOAuthProvider = %v, %v", std, err)
	}
	secrets = append(secrets, "oauth-secret-1")
	gh, err := c.AddOAuthProvider(ctx, ps, apiclient.AddOAuthProviderRequest{ID: "github", ClientID: apiclient.Ptr("gh"), ClientSecret: apiclient.Ptr("oauth-secret-2")})
	if err != nil || gh.Type != "standard" {
		t.Fatalf("AddOAuthProvider(standard) = %v, %v", gh, err)
	}
	secrets = append(secrets, "oauth-secret-2")
	providers, err := c.ListOAuthProviders(ctx, ps)
	if err != nil || len(providers) != 2 {
		t.Fatalf("ListOAuthProviders = %v, %v", providers, err)
	}
	for _, p := range providers {
		if apiclient.Deref(p.ClientSecret) != "" {
			t.Errorf("the list must not return credentials, got one for %s", p.ID)
		}
	}
	if err := c.DeleteOAuthProvider(ctx, ps, "github"); err != nil {
		t.Fatal(err)
	}
	if providers, _ = c.ListOAuthProviders(ctx, ps); len(providers) != 1 {
		t.Fatalf("after delete %d providers are listed, want 1", len(providers))
	}

	// GET, POST and DELETE of …/auth/domains.
	if _, err := c.AddDomain(ctx, ps, apiclient.AddDomainRequest{Domain: "https://App.Example.com", AuthProvider: "stack"}); err != nil {
		t.Fatal(err)
	}
	domains, err := c.ListDomains(ctx, ps)
	if err != nil || len(domains) != 1 || domains[0].Domain != "https://app.example.com" || domains[0].AuthProvider != "stack" {
		t.Fatalf("ListDomains = %v, %v", domains, err)
	}
	if err := c.DeleteDomains(ctx, ps, "stack", []string{"https://app.example.com"}); err != nil {
		t.Fatal(err)
	}
	if domains, _ = c.ListDomains(ctx, ps); len(domains) != 0 {
		t.Fatalf("after delete: %v", domains)
	}

	// GET and PATCH of …/auth/email_server.
	es, err := c.GetEmailServer(ctx, ps)
	if err != nil || es.Type != "shared" || es.Host != nil {
		t.Fatalf("GetEmailServer (new integration) = %v, %v", es, err)
	}
	custom := smtpServer("smtp-secret-1")
	secrets = append(secrets, "smtp-secret-1")
	echo, err := c.UpdateEmailServer(ctx, ps, custom)
	if err != nil || apiclient.Deref(echo.Host) != "smtp.example.com" || apiclient.Deref(echo.Port) != 587 {
		t.Fatalf("UpdateEmailServer = %v, %v", echo, err)
	}
	if es, _ = c.GetEmailServer(ctx, ps); es.Type != "standard" || apiclient.Deref(es.Host) != "smtp.example.com" || apiclient.Deref(es.SenderName) != "Acme" {
		t.Fatalf("GetEmailServer after update = %v", es)
	}

	// DELETE /projects/{project_id}/auth/integration/{auth_provider}; a second delete is a 404.
	if err := c.DeleteIntegration(ctx, ps, "stack", false); err != nil {
		t.Fatal(err)
	}
	if its, _ = c.ListIntegrations(ctx, ps); len(its) != 0 {
		t.Fatalf("after delete: %v", its)
	}
	if err := c.DeleteIntegration(ctx, ps, "stack", true); !errors.Is(err, apiclient.ErrNotFound) {
		t.Fatalf("second delete: %v, want ErrNotFound", err)
	}

	logs := f.log.all()
	if logs == "" {
		t.Fatal("the client logged nothing; the check below would prove nothing")
	}
	for _, s := range append(secrets, f.emu.BootstrapKey()) {
		if strings.Contains(logs, s) {
			t.Errorf("a secret (%d chars) appears in the client's logs", len(s))
		}
	}
}

func TestClientAuthenticationFailures(t *testing.T) {
	f := newFixture(t, unlimited())
	ctx := context.Background()
	projectID := f.emu.ProjectIDs()[0]

	// No key at all: the client refuses to be built, so send one request by hand.
	resp, err := http.Get(f.baseURL + "projects")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("request without Authorization: %d, want 401", resp.StatusCode)
	}

	ps := apiclient.Scope{ProjectID: projectID}
	if _, err := f.client(t, "napi_unknown").ListIntegrations(ctx, ps); !errors.Is(err, apiclient.ErrUnauthorized) {
		t.Errorf("unknown key: %v, want ErrUnauthorized", err)
	}

	key, err := f.emu.CreateKey(emulator.KeyOrganization, "")
	if err != nil {
		t.Fatal(err)
	}
	c := f.client(t, key)
	if _, err := c.ListIntegrations(ctx, ps); err != nil {
		t.Fatalf("fresh key: %v", err)
	}
	if err := f.emu.RevokeKey(key); err != nil {
		t.Fatal(err)
	}
	_, err = c.ListIntegrations(ctx, ps)
	var apiErr *apiclient.Error
	if !errors.Is(err, apiclient.ErrUnauthorized) || !errors.As(err, &apiErr) || apiErr.RequestID == "" {
		t.Errorf("revoked key on the very next request: %v, want a 401 *Error with a request id", err)
	}
}

func TestClientProjectScopedKeySeesOnlyItsProject(t *testing.T) {
	f := newFixture(t, unlimited())
	ctx := context.Background()
	ids := f.emu.ProjectIDs()
	key, err := f.emu.CreateKey(emulator.KeyProject, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	c := f.client(t, key)
	list, err := c.ListProjects(ctx, apiclient.ListProjectsOptions{})
	if err != nil || len(list.Projects) != 1 || list.Projects[0].ID != ids[0] {
		t.Fatalf("scoped ListProjects = %v, %v", list, err)
	}
	if _, err := c.ListIntegrations(ctx, apiclient.Scope{ProjectID: ids[0]}); err != nil {
		t.Fatalf("own project: %v", err)
	}
	other := apiclient.Scope{ProjectID: ids[1], BranchID: "br-x"}
	if _, err := c.ListIntegrations(ctx, other); !errors.Is(err, apiclient.ErrNotFound) {
		t.Errorf("other project: %v, want ErrNotFound (the API does not reveal it exists)", err)
	}
	_, err = c.CreateIntegration(ctx, other, apiclient.CreateIntegrationRequest{AuthProvider: "stack", DatabaseName: "neondb", RoleName: "neondb_owner"})
	if !errors.Is(err, apiclient.ErrNotFound) {
		t.Errorf("create on other project: %v, want ErrNotFound", err)
	}
}

func TestClientValidationConflictAndNotFound(t *testing.T) {
	f := newFixture(t, unlimited())
	ctx := context.Background()
	c := f.client(t, f.emu.BootstrapKey())
	projectID := f.emu.ProjectIDs()[0]
	branch, err := c.DefaultBranch(ctx, projectID)
	if err != nil {
		t.Fatal(err)
	}
	ps := apiclient.Scope{ProjectID: projectID, BranchID: branch.ID}
	req := apiclient.CreateIntegrationRequest{AuthProvider: "auth0", DatabaseName: "neondb", RoleName: "neondb_owner"}
	_, err = c.CreateIntegration(ctx, ps, req)
	var apiErr *apiclient.Error
	if !errors.Is(err, apiclient.ErrBadRequest) || !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, "auth_provider") {
		t.Fatalf("bad auth_provider: %v, want a 400 naming auth_provider", err)
	}
	req.AuthProvider = "stack"
	if _, err := c.CreateIntegration(ctx, ps, req); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateIntegration(ctx, ps, req); !errors.Is(err, apiclient.ErrConflict) {
		t.Fatalf("second integration: %v, want ErrConflict", err)
	}
	if _, err := c.ListIntegrations(ctx, apiclient.Scope{ProjectID: "no-such-project"}); !errors.Is(err, apiclient.ErrNotFound) {
		t.Fatalf("unknown project: %v, want ErrNotFound", err)
	}
	if err := c.DeleteOAuthProvider(ctx, ps, "github"); !errors.Is(err, apiclient.ErrNotFound) {
		t.Fatalf("unknown OAuth provider: %v, want ErrNotFound", err)
	}
	if _, err := c.AddDomain(ctx, ps, apiclient.AddDomainRequest{Domain: "app.example.com", AuthProvider: "stack"}); !errors.Is(err, apiclient.ErrBadRequest) {
		t.Fatalf("domain without scheme: %v, want ErrBadRequest", err)
	}
	incomplete := apiclient.EmailServer{}
	incomplete.Type, incomplete.Host = "standard", apiclient.Ptr("smtp.example.com")
	_, err = c.UpdateEmailServer(ctx, ps, incomplete)
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		t.Fatalf("incomplete standard email server: %v, want 400", err)
	}
}

func TestClientPaginationAcrossPages(t *testing.T) {
	opts := unlimited()
	opts.SeedProjects = 25
	f := newFixture(t, opts)
	c := f.client(t, f.emu.BootstrapKey())
	for _, size := range []int{1, 10, 24, 25, 400} {
		f.emu.ResetStats()
		list, err := c.ListProjects(context.Background(), apiclient.ListProjectsOptions{PageSize: size})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, 0, len(list.Projects))
		for _, p := range list.Projects {
			got = append(got, p.ID)
		}
		if !slices.Equal(got, f.emu.ProjectIDs()) {
			t.Fatalf("page size %d: got %d projects, want all 25 once, in order", size, len(got))
		}
		wantPages := (25 + size - 1) / size
		if n := f.emu.Stats().Total; n < wantPages || n > wantPages+1 {
			t.Errorf("page size %d: %d requests, want %d or %d", size, n, wantPages, wantPages+1)
		}
	}
	search, err := c.ListProjects(context.Background(), apiclient.ListProjectsOptions{Search: f.emu.ProjectIDs()[7]})
	if err != nil || len(search.Projects) != 1 {
		t.Fatalf("search: %v, %v", search, err)
	}
}

// The client-side limiter keeps 200 concurrent calls on one route at the
// documented 40 per second, so the emulator, which enforces the same limit
// with its own token bucket (the stricter of its readings), never answers
// 429 and every call reaches it exactly once. (The pace itself is measured against an injected clock in
// the limiter's unit tests; wall-clock windows here would measure the
// machine's load, not the limiter.)
func TestClientLimiterKeepsABurstUnderTheRouteLimit(t *testing.T) {
	f := newFixture(t, emulator.Options{SeedProjects: 1, AccountRequestsPerMinute: -1, RouteRequestsPerSecond: 40,
		RateLimitReading: emulator.ReadingBuckets})
	c, err := apiclient.New(apiclient.Options{BaseURL: f.baseURL, APIKey: f.emu.BootstrapKey(),
		RateLimit: apiclient.RateLimit{RequestsPerMinute: -1}}) // route limit: the default, 40/s
	if err != nil {
		t.Fatal(err)
	}
	ps := apiclient.Scope{ProjectID: f.emu.ProjectIDs()[0]}
	const calls, workers = 200, 25
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	jobs := make(chan struct{}, calls)
	for range calls {
		jobs <- struct{}{}
	}
	close(jobs)
	before := f.emu.Stats()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				if _, err := c.ListIntegrations(context.Background(), ps); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := f.emu.Stats()
	if st.RateLimited != 0 {
		t.Errorf("the emulator answered %d × 429", st.RateLimited)
	}
	if n := st.Total - before.Total; n != calls {
		t.Errorf("%d requests reached the emulator, want %d (no retries needed)", n, calls)
	}
}
