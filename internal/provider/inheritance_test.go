package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// Neon Auth branches with the database: what a configuration finds on a
// branch created from a parent, and what it does with it.

// productionGoogleClientID is the client id of production's Google app, in
// configureProduction and the configurations that take its copy over.
const productionGoogleClientID = "acme-google-client"

// configureProduction gives the production branch the Neon Auth that
// examples/branch-preview/production describes, through the API, as any
// other client would: Better Auth named Acme, https://app.example.com
// trusted, Google sign-in with its own app, verified email required, and
// webhooks to production's endpoint.
func configureProduction(t *testing.T, env *accEnv) {
	t.Helper()
	ctx, c := context.Background(), env.client()
	s := apiclient.Scope{ProjectID: env.ProjectID, BranchID: env.branch(), Family: apiclient.FamilyBranch}
	yes := true
	steps := []func() error{
		func() error {
			_, err := c.CreateIntegration(ctx, s, apiclient.CreateIntegrationRequest{AuthProvider: apiclient.AuthProviderBetterAuth})
			return err
		},
		func() error { _, err := c.SetIntegrationName(ctx, s, "Acme"); return err },
		func() error {
			_, err := c.AddDomain(ctx, s, apiclient.AddDomainRequest{Domain: "https://app.example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider(apiclient.AuthProviderBetterAuth)})
			return err
		},
		func() error {
			_, err := c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "google", ClientID: apiclient.Ptr(productionGoogleClientID), ClientSecret: apiclient.Ptr("acme-google-secret")})
			return err
		},
		func() error {
			_, err := apiclient.WriteSetting[neonapi.NeonAuthEmailAndPasswordConfig](ctx, c, s, betterauth.EmailAndPassword,
				neonapi.NeonAuthEmailAndPasswordConfigUpdate{RequireEmailVerification: apiclient.Ptr(yes)})
			return err
		},
		func() error {
			_, err := apiclient.WriteSetting[neonapi.NeonAuthWebhookConfig](ctx, c, s, betterauth.Webhooks, neonapi.NeonAuthWebhookConfig{
				Enabled: true, WebhookURL: apiclient.Ptr("https://app.example.com/api/auth-events"),
				EnabledEvents: &[]neonapi.NeonAuthWebhookConfigEnabledEvents{"user.created"}})
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("configuring production (step %d): %v", i+1, err)
		}
	}
}

// newBranchFromProduction creates a branch from the production branch
// through the API, as a CI job would for a pull request; it starts with a
// copy of production's Neon Auth.
func newBranchFromProduction(t *testing.T, env *accEnv, name string) string {
	t.Helper()
	b, err := env.client().CreateBranch(context.Background(), env.ProjectID, apiclient.CreateBranchRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return b.ID
}

// authSnapshot is a branch's whole Neon Auth as the emulator stores it
// ("none" without one), for byte-for-byte comparisons.
func authSnapshot(t *testing.T, env *accEnv, branchID string) string {
	t.Helper()
	a, ok := env.Emu.BranchAuth(env.ProjectID, branchID)
	if !ok {
		return "none"
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameAuth fails when a branch's Neon Auth is no longer byte for byte what
// it was (want, an authSnapshot); what names the moment, for the error.
func sameAuth(t *testing.T, env *accEnv, branchID, want, what string) error {
	t.Helper()
	if got := authSnapshot(t, env, branchID); got != want {
		return fmt.Errorf("%s, the Neon Auth of branch %s changed:\nwas %s\nnow %s", what, branchID, want, got)
	}
	return nil
}

// domainList is a branch's trusted domains, space-separated, in list order.
func domainList(a emulator.BranchAuth) string {
	var out []string
	for _, d := range a.Domains {
		out = append(out, d.Domain)
	}
	return strings.Join(out, " ")
}

// configureProductionFully is configureProduction and, behind Terraform's
// back, one more of everything a branch inherits: a shared GitHub sign-in, a
// user with a role, an SMTP server and non-default plugins.
func configureProductionFully(t *testing.T, env *accEnv) {
	t.Helper()
	configureProduction(t, env)
	err := env.Emu.MutateBranchAuth(env.ProjectID, "", func(a *emulator.BranchAuth) {
		a.OAuthProviders = append(a.OAuthProviders, emulator.OAuthProvider{ID: "github", Type: "shared"})
		a.Users = append(a.Users, emulator.UserRow{ID: "0d4b7a52-8f4e-4c8a-9d0e-6f1a2b3c4d5e", Email: "ada@example.com", Roles: []string{"admin"}})
		a.EmailProvider = &emulator.EmailServer{Type: "standard", Host: "smtp.example.com", Port: 465, Username: "mailer",
			Password: "smtp-secret", SenderEmail: "auth@example.com", SenderName: "Acme"}
		a.Organization.OrganizationLimit = 3
		a.PhoneNumber.Enabled = true
	})
	if err != nil {
		t.Fatal(err)
	}
}

// everyInheritedType is a configuration of every resource type a branch
// inherits an object of, on branch %[1]q of project %[2]q: each takes over
// the copy (the same Google app and SMTP password as production, so that
// destroy can put back every byte), and a new user is created beside the
// inherited one.
const everyInheritedType = `
resource "neon_auth_integration" "preview" {
  project_id = %[2]q
  branch_id  = %[1]q
  name       = "Acme (preview)"
}

resource "neon_auth_domains" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  domains    = ["https://pr-7.preview.example.com"]
}

resource "neon_auth_oauth_provider" "google" {
  project_id    = neon_auth_integration.preview.project_id
  branch_id     = neon_auth_integration.preview.branch_id
  provider_id   = "google"
  client_id     = "acme-google-client"
  client_secret = "acme-google-secret"
}

resource "neon_auth_oauth_provider" "github" {
  project_id  = neon_auth_integration.preview.project_id
  branch_id   = neon_auth_integration.preview.branch_id
  provider_id = "github"
}

resource "neon_auth_user" "ada" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  email      = "ada@example.com"
}

resource "neon_auth_user" "tester" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  email      = "tester@example.com"
}

resource "neon_auth_email_server" "preview" {
  project_id   = neon_auth_integration.preview.project_id
  branch_id    = neon_auth_integration.preview.branch_id
  type         = "standard"
  host         = "smtp.example.com"
  port         = 465
  username     = "mailer"
  password     = "smtp-secret"
  sender_email = "auth@example.com"
  sender_name  = "Acme (preview)"
}

resource "neon_auth_organization_plugin" "preview" {
  project_id         = neon_auth_integration.preview.project_id
  branch_id          = neon_auth_integration.preview.branch_id
  organization_limit = 5
}

resource "neon_auth_phone_number_plugin" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  enabled    = false
}

resource "neon_auth_webhooks" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  enabled    = false
}
`

// On a branch created from production, every resource type finds its
// object already there, inherited, and takes it over on the first apply:
// no import, no refusal. The configuration is applied to the copies (the
// inherited domain leaves the whitelist, webhooks stop, limits change), a
// re-plan is empty, and destroy puts the branch's Neon Auth back byte for
// byte as the branch started, deleting only the user it created. Production
// never changes.
func TestAccInherited_everyTypeTakesOverAndPutsBack(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	configureProductionFully(t, env)
	production := authSnapshot(t, env, env.branch())
	preview := newBranchFromProduction(t, env, "pr-7")
	inherited := authSnapshot(t, env, preview)
	cfg := env.config(fmt.Sprintf(everyInheritedType, preview, env.ProjectID))
	tc := env.testCase(resource.TestStep{
		Config: cfg,
		ConfigStateChecks: []statecheck.StateCheck{
			expectValue("neon_auth_user.ada", "user_id", knownvalue.Null()),
			expectValue("neon_auth_user.ada", "id", stringExact(env.ProjectID+"/"+preview+"/email:ada@example.com")),
			expectValue("neon_auth_user.tester", "user_id", knownvalue.NotNull()),
			expectValue("neon_auth_oauth_provider.github", "type", stringExact("shared")),
			apiCheck(func() error {
				a, _ := env.Emu.BranchAuth(env.ProjectID, preview)
				switch {
				case domainList(a) != "https://pr-7.preview.example.com":
					return fmt.Errorf("preview domains = %q, want the configured one only", domainList(a))
				case a.Name != "Acme (preview)" || a.Webhooks.Enabled || a.PhoneNumber.Enabled || a.Organization.OrganizationLimit != 5:
					return fmt.Errorf("preview = name %q, settings %+v", a.Name, a.Settings)
				case len(a.Users) != 2 || a.EmailProvider.SenderName != "Acme (preview)":
					return fmt.Errorf("preview users %v, email provider %+v", a.Users, a.EmailProvider)
				}
				return sameAuth(t, env, env.branch(), production, "after the preview's apply")
			}),
		},
	}, resource.TestStep{Config: cfg, ConfigPlanChecks: noChanges()})
	tc.CheckDestroy = func(*terraform.State) error {
		if err := sameAuth(t, env, preview, inherited, "after destroy"); err != nil {
			return err
		}
		return sameAuth(t, env, env.branch(), production, "after the preview's destroy")
	}
	resource.ParallelTest(t, tc)
}

// Each take-over warns, naming what it took over, where it came from, and
// what destroy does with it; the domain list's warning names the inherited
// entries it removed.
func TestAccInherited_eachTakeOverWarns(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	configureProductionFully(t, env)
	preview := newBranchFromProduction(t, env, "pr-8")
	cli := newCLIDir(t)
	cli.write("main.tf", requiredProviders+env.config(fmt.Sprintf(everyInheritedType, preview, env.ProjectID)))
	out := cli.must(0, "apply", "-auto-approve", "-input=false")
	for _, want := range []string{
		"Inherited Neon Auth integration (better_auth) taken over",
		"Inherited trusted domain list taken over",
		"It removed the inherited entries this configuration does not list: https://app.example.com",
		"Inherited google OAuth provider (type standard) taken over",
		"Inherited github OAuth provider (type shared) taken over",
		"Inherited user ada@example.com taken over",
		"Inherited email server setting (the standard email server) taken over",
		"Inherited neon_auth_organization_plugin settings taken over",
		"Inherited neon_auth_webhooks settings taken over",
		"was created from branch " + env.branch(),
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the apply does not warn %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "tester@example.com taken over") {
		t.Errorf("the new user was reported taken over:\n%s", out)
	}
	cli.must(0, "destroy", "-auto-approve", "-input=false")
}

// What cannot be taken over is refused with an error that names both sides
// and the fix, and nothing on the branch changes: inherited objects when
// inherited_auth = "refuse"; an inherited integration of another auth
// provider; an inherited Google app made shared (its secret could not be
// put back); roles of an inherited user (no endpoint tells its id); an
// inherited SMTP server made shared (its password could not be put back).
func TestAccInherited_refusals(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	configureProductionFully(t, env)
	preview := newBranchFromProduction(t, env, "pr-9")
	inherited := authSnapshot(t, env, preview)
	on := func(body string) string { return fmt.Sprintf(body, env.ProjectID, preview) }
	step := func(cfg string, want ...string) resource.TestStep {
		return resource.TestStep{Config: cfg, ExpectError: matchInOrder(want...)}
	}
	refuse := env.providerBlockWithArgs(`
  requests_per_minute = 100000
  inherited_auth      = "refuse"
`)
	tc := env.testCase(
		step(refuse+on(`
resource "neon_auth_integration" "preview" {
  project_id = %q
  branch_id  = %q
}
`), "already has Neon Auth", `inherited_auth is "refuse"`, "terraform import"),
		step(env.config(on(`
resource "neon_auth_integration" "preview" {
  project_id    = %q
  branch_id     = %q
  auth_provider = "mock"
}
`)), `whose auth provider is "better_auth"; this configuration asks for "mock"`, `set auth_provider = "better_auth"`),
		step(env.config(on(`
resource "neon_auth_oauth_provider" "google" {
  project_id  = %q
  branch_id   = %q
  provider_id = "google"
}
`)), "Inherited OAuth provider has its own app", "asks for the shared keys", "/callback/google"),
		step(env.config(on(`
resource "neon_auth_user" "ada" {
  project_id = %q
  branch_id  = %q
  email      = "ada@example.com"
  roles      = ["admin"]
}
`)), "inherited the user ada@example.com, but no endpoint tells a user's id", "Remove roles"),
		step(env.config(on(`
resource "neon_auth_email_server" "preview" {
  project_id = %q
  branch_id  = %q
  type       = "shared"
}
`)), "Inherited email server is standard", "would lose the SMTP password", `type = "standard"`),
	)
	tc.CheckDestroy = func(*terraform.State) error { return sameAuth(t, env, preview, inherited, "after the refusals") }
	resource.ParallelTest(t, tc)
}
