package apiclient_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// Every branch-scoped call, on a branch created through the API: enabling
// Better Auth (no SDK keys), its settings, providers, domains, email
// provider, users with roles, disabling, and deleting the branch. Calls only
// the branch family offers are refused for the project family without a
// request. The client's logs hold no secret.
func TestClientDrivesTheBranchFamily(t *testing.T) {
	f := newValidatedFixture(t, unlimited())
	ctx := context.Background()
	c := f.client(t, f.emu.BootstrapKey())
	projectID := f.emu.ProjectIDs()[0]

	branch, err := c.CreateBranch(ctx, projectID, apiclient.CreateBranchRequest{Name: "preview-42"})
	if err != nil || branch.ID == "" || branch.Default {
		t.Fatalf("CreateBranch = %+v, %v", branch, err)
	}
	s := apiclient.Scope{ProjectID: projectID, BranchID: branch.ID, Family: apiclient.FamilyBranch}
	if _, err := c.ListIntegrations(ctx, s); !errors.Is(err, apiclient.ErrNotFound) {
		t.Fatalf("a new branch has Neon Auth: %v", err)
	}

	creds, err := c.CreateIntegration(ctx, s, apiclient.CreateIntegrationRequest{AuthProvider: "better_auth"})
	if err != nil || creds.PubClientKey != "" || creds.SecretServerKey != "" || apiclient.Deref(creds.BaseURL) == "" || creds.JWKSURL == "" {
		t.Fatalf("CreateIntegration(better_auth) = %v, %v; want no SDK keys and a base URL", creds, err)
	}
	its, err := c.ListIntegrations(ctx, s)
	if err != nil || len(its) != 1 || its[0].BranchID != branch.ID || its[0].AuthProvider != "better_auth" || apiclient.Deref(its[0].Name) == "" {
		t.Fatalf("ListIntegrations = %+v, %v", its, err)
	}
	if name, err := c.SetIntegrationName(ctx, s, "Acme preview"); err != nil || name != "Acme preview" {
		t.Fatalf("SetIntegrationName = %q, %v", name, err)
	}
	if allow, err := c.SetAllowLocalhost(ctx, s, false); err != nil || allow {
		t.Fatalf("SetAllowLocalhost = %v, %v", allow, err)
	}
	if allow, err := c.GetAllowLocalhost(ctx, s); err != nil || allow {
		t.Fatalf("GetAllowLocalhost = %v, %v", allow, err)
	}

	// OAuth providers: vercel shared, microsoft with a tenant.
	if p, err := c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "vercel"}); err != nil || p.Type != "shared" {
		t.Fatalf("AddOAuthProvider(vercel) = %v, %v", p, err)
	}
	ms := apiclient.AddOAuthProviderRequest{ID: "microsoft", ClientID: apiclient.Ptr("ms"), ClientSecret: apiclient.Ptr("branch-oauth-secret"),
		MicrosoftTenantID: apiclient.Ptr("tenant-1")}
	if p, err := c.AddOAuthProvider(ctx, s, ms); err != nil || p.Type != "standard" {
		t.Fatalf("AddOAuthProvider(microsoft) = %v, %v", p, err)
	}
	if err := c.DeleteOAuthProvider(ctx, s, "vercel"); err != nil {
		t.Fatal(err)
	}
	if ps, err := c.ListOAuthProviders(ctx, s); err != nil || len(ps) != 1 || ps[0].ID != "microsoft" {
		t.Fatalf("ListOAuthProviders = %v, %v", ps, err)
	}

	// Domains, removed in one batch.
	for _, d := range []string{"https://a.example.com", "https://b.example.com", "https://c.example.com"} {
		if _, err := c.AddDomain(ctx, s, apiclient.AddDomainRequest{Domain: d, AuthProvider: "better_auth"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.DeleteDomains(ctx, s, "better_auth", []string{"https://a.example.com", "https://c.example.com"}); err != nil {
		t.Fatal(err)
	}
	if ds, err := c.ListDomains(ctx, s); err != nil || len(ds) != 1 || ds[0].Domain != "https://b.example.com" {
		t.Fatalf("ListDomains = %v, %v", ds, err)
	}

	// The email provider: the password comes back blank; none is a 404.
	smtp := smtpServer("branch-smtp-secret")
	if _, err := c.UpdateEmailServer(ctx, s, smtp); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetEmailServer(ctx, s); err != nil || apiclient.Deref(got.Host) != "smtp.example.com" || apiclient.Deref(got.Password) != "" {
		t.Fatalf("GetEmailServer = %v, %v; want the host, and the password blank", got, err)
	}
	if err := f.emu.RemoveEmailProvider(projectID, branch.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetEmailServer(ctx, s); !errors.Is(err, apiclient.ErrNotFound) {
		t.Fatalf("GetEmailServer without a provider: %v, want ErrNotFound", err)
	}

	// Users and their roles.
	user, err := c.CreateUser(ctx, s, apiclient.CreateUserRequest{Email: "tester@example.com", Name: "Tester"})
	if err != nil || user.ID == "" {
		t.Fatalf("CreateUser = %v, %v", user, err)
	}
	if err := c.SetUserRoles(ctx, s, user.ID, []string{"admin", "billing"}); err != nil {
		t.Fatal(err)
	}
	a, _ := f.emu.BranchAuth(projectID, branch.ID)
	if len(a.Users) != 1 || !slices.Equal(a.Users[0].Roles, []string{"admin", "billing"}) {
		t.Fatalf("users on the emulator = %+v", a.Users)
	}
	if err := c.DeleteUser(ctx, s, user.ID); err != nil {
		t.Fatal(err)
	}

	// The Better Auth settings, each switched off (which no setting refuses)
	// and read back where it is read: its own path, or the bundle. A PATCH
	// keeps the fields it does not name; a PUT replaces the whole value
	// (what it omits takes the API's defaults).
	for _, set := range betterauth.Settings {
		var kept map[string]any
		if set.Write == http.MethodPatch {
			kept = readBack(ctx, t, c, s, set)
			kept["enabled"] = false
		}
		got, err := apiclient.WriteSetting[map[string]any](ctx, c, s, set, map[string]any{"enabled": false})
		if err != nil || got["enabled"] != false || (kept != nil && !reflect.DeepEqual(got, kept)) {
			t.Fatalf("WriteSetting(%s, enabled false) = %v, %v; want enabled false and the other fields %v", set.Name, got, err, kept)
		}
		if after := readBack(ctx, t, c, s, set); !reflect.DeepEqual(after, got) {
			t.Errorf("%s read back as %v, written as %v", set.Name, after, got)
		}
	}

	// The project family has none of these: refused before any request.
	ps := apiclient.Scope{ProjectID: projectID, BranchID: branch.ID}
	before := f.emu.Stats().Total
	calls := map[string]func() error{
		"roles":     func() error { return c.SetUserRoles(ctx, ps, "u", []string{"admin"}) },
		"name":      func() error { _, err := c.SetIntegrationName(ctx, ps, "x"); return err },
		"plugins":   func() error { _, err := c.GetPlugins(ctx, ps); return err },
		"localhost": func() error { _, err := c.GetAllowLocalhost(ctx, ps); return err },
	}
	for _, set := range betterauth.Settings {
		calls[set.Name] = func() error {
			_, err := apiclient.WriteSetting[map[string]any](ctx, c, ps, set, map[string]any{"enabled": true})
			return err
		}
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, apiclient.ErrNotInFamily) {
			t.Errorf("%s through the project family: %v, want ErrNotInFamily", name, err)
		}
	}
	if n := f.emu.Stats().Total - before; n != 0 {
		t.Errorf("%d requests were sent for calls the family does not offer", n)
	}

	// Disabling Neon Auth, then deleting the branch.
	if err := c.DeleteIntegration(ctx, s, "better_auth", true); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteBranch(ctx, projectID, branch.ID); err != nil {
		t.Fatal(err)
	}
	branches, err := c.ListBranches(ctx, projectID)
	if err != nil || slices.ContainsFunc(branches, func(b apiclient.Branch) bool { return b.ID == branch.ID }) {
		t.Fatalf("after deleting it the branch is still listed: %+v, %v", branches, err)
	}

	logs := f.log.all()
	for _, secret := range []string{"branch-oauth-secret", "branch-smtp-secret", f.emu.BootstrapKey()} {
		if strings.Contains(logs, secret) {
			t.Errorf("a secret (%d chars) appears in the client's logs", len(secret))
		}
	}
}

// The two test email endpoints: the saved provider's (Better Auth, standard
// only) and the deprecated one with a whole configuration (any provider).
func TestClientSendsTestEmails(t *testing.T) {
	f := newValidatedFixture(t, unlimited())
	ctx := context.Background()
	c := f.client(t, f.emu.BootstrapKey())
	projectID := f.emu.ProjectIDs()[0]
	branch, err := c.CreateBranch(ctx, projectID, apiclient.CreateBranchRequest{Name: "mail"})
	if err != nil {
		t.Fatal(err)
	}
	s := apiclient.Scope{ProjectID: projectID, BranchID: branch.ID, Family: apiclient.FamilyBranch}
	if _, err := c.CreateIntegration(ctx, s, apiclient.CreateIntegrationRequest{AuthProvider: "better_auth"}); err != nil {
		t.Fatal(err)
	}
	var apiErr *apiclient.Error
	if _, err := c.SendTestEmail(ctx, s, "ops@example.com"); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		t.Fatalf("SendTestEmail with nothing configured: %v, want a 400", err)
	}
	smtp := smtpServer("test-smtp-secret")
	if _, err := c.UpdateEmailServer(ctx, s, smtp); err != nil {
		t.Fatal(err)
	}
	if res, err := c.SendTestEmail(ctx, s, "ops@example.com"); err != nil || !res.Success {
		t.Fatalf("SendTestEmail = %+v, %v", res, err)
	}
	other := smtp
	other.Host = apiclient.Ptr("smtp.unsaved.example")
	if res, err := c.SendTestEmailWith(ctx, s, other, "dev@example.com"); err != nil || !res.Success {
		t.Fatalf("SendTestEmailWith = %+v, %v", res, err)
	}
	a, _ := f.emu.BranchAuth(projectID, branch.ID)
	if len(a.TestEmails) != 2 || a.TestEmails[0].Host != "smtp.example.com" || a.TestEmails[0].Recipient != "ops@example.com" ||
		a.TestEmails[1].Host != "smtp.unsaved.example" || a.TestEmails[1].Recipient != "dev@example.com" {
		t.Fatalf("test emails on the emulator = %+v", a.TestEmails)
	}
	ps := apiclient.Scope{ProjectID: projectID, BranchID: branch.ID}
	before := f.emu.Stats().Total
	if _, err := c.SendTestEmail(ctx, ps, "ops@example.com"); !errors.Is(err, apiclient.ErrNotInFamily) {
		t.Errorf("SendTestEmail through the project family: %v, want ErrNotInFamily", err)
	}
	if _, err := c.SendTestEmailWith(ctx, ps, smtp, "ops@example.com"); !errors.Is(err, apiclient.ErrNotInFamily) {
		t.Errorf("SendTestEmailWith through the project family: %v, want ErrNotInFamily", err)
	}
	if n := f.emu.Stats().Total - before; n != 0 {
		t.Errorf("%d requests were sent for calls the family does not offer", n)
	}
	if strings.Contains(f.log.all(), "test-smtp-secret") {
		t.Error("the SMTP password appears in the client's logs")
	}
}

// smtpServer is a whole standard email server with the given password.
func smtpServer(password string) apiclient.EmailServer {
	var e apiclient.EmailServer
	e.Type, e.Host, e.Port, e.Username = "standard", apiclient.Ptr("smtp.example.com"), apiclient.Ptr(587), apiclient.Ptr("mailer")
	e.Password, e.SenderEmail, e.SenderName = apiclient.Ptr(password), apiclient.Ptr("noreply@example.com"), apiclient.Ptr("Acme")
	return e
}

// readBack reads a setting where the API answers it: at its own path, or in
// GET …/auth/plugins.
func readBack(ctx context.Context, t *testing.T, c *apiclient.Client, s apiclient.Scope, set betterauth.Setting) map[string]any {
	t.Helper()
	var v map[string]any
	var err error
	if set.Read {
		v, err = apiclient.ReadSetting[map[string]any](ctx, c, s, set)
	} else {
		var plugins *apiclient.Plugins
		if plugins, err = c.GetPlugins(ctx, s); err == nil {
			_, err = plugins.Part(set.Name, &v)
		}
	}
	if err != nil {
		t.Fatalf("reading %s: %v", set.Name, err)
	}
	return v
}
