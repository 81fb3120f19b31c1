package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Adopting a Neon Auth that was set up in the console, the way the import
// guide describes it: import blocks, `plan -generate-config-out`, apply the
// generated configuration as it is, and a plan that is empty. No resource
// block is written by hand. Then the values no endpoint returns (secrets,
// a user's email) are filled in as the docs say, which updates in place and
// replaces nothing.

// generateAndAdopt runs the flow on imports (one `import {}` block each) and
// checks that every one of them was generated, applied, and plans no change,
// and that no secret of the console's objects reached the output or files.
func generateAndAdopt(t *testing.T, env *accEnv, cli *cliDir, imports map[string]string, secrets ...string) string {
	t.Helper()
	var blocks strings.Builder
	for to, id := range imports {
		fmt.Fprintf(&blocks, `
import {
  to = %s
  id = %q
}
`, to, id)
	}
	cli.write("main.tf", requiredProviders+env.providerBlock()+blocks.String())
	cli.must(0, "init")
	var outputs strings.Builder
	outputs.WriteString(cli.must(0, "plan", "-generate-config-out=generated.tf", "-out=import.tfplan"))
	generated := cli.read("generated.tf")
	want := fmt.Sprintf("%d to import, 0 to add, 0 to change, 0 to destroy", len(imports))
	if !strings.Contains(outputs.String(), want) {
		t.Fatalf("the import plan is not %q:\n%s\ngenerated.tf:\n%s", want, outputs.String(), generated)
	}
	for to := range imports {
		typ, name, _ := strings.Cut(to, ".")
		if !strings.Contains(generated, fmt.Sprintf("resource %q %q {", typ, name)) {
			t.Errorf("generated.tf has no block for %s:\n%s", to, generated)
		}
	}
	outputs.WriteString(cli.must(0, "apply", "import.tfplan"))
	if code, out := cli.run("plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after applying the generated configuration exited %d, want 0 (no changes):\n%s\ngenerated.tf:\n%s", code, out, generated)
	}
	for _, s := range secrets {
		if strings.Contains(outputs.String(), s) || strings.Contains(generated, s) {
			t.Errorf("a secret of the console's objects appears in the output or in generated.tf")
		}
	}
	return generated
}

// fillIn sets one attribute of one generated block, as a user does by hand:
// the line `attr = null` of that block becomes `attr = value`.
func fillIn(t *testing.T, generated, block, attr, value string) string {
	t.Helper()
	start := strings.Index(generated, block+" {")
	if start < 0 {
		t.Fatalf("no block %s in generated.tf", block)
	}
	end := start + strings.Index(generated[start:], "\n}")
	line := regexp.MustCompile(`(?m)^(\s*)` + regexp.QuoteMeta(attr) + `(\s*)= null.*$`)
	loc := line.FindStringSubmatchIndex(generated[start:end])
	if loc == nil {
		t.Fatalf("no line `%s = null` in block %s:\n%s", attr, block, generated[start:end])
	}
	indent := generated[start+loc[2] : start+loc[3]]
	pad := generated[start+loc[4] : start+loc[5]]
	return generated[:start+loc[0]] + indent + attr + pad + "= " + value + generated[start+loc[1]:]
}

// planSummary runs a plan and returns its summary line ("Plan: …" or "No
// changes.").
func planSummary(t *testing.T, cli *cliDir) string {
	t.Helper()
	_, out := cli.run("plan", "-input=false")
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Plan:") || strings.HasPrefix(l, "No changes.") {
			return strings.TrimSpace(l)
		}
	}
	t.Fatalf("no plan summary in:\n%s", out)
	return ""
}

// Project mode (Stack Auth): the integration, OAuth providers with the shared
// keys and with the team's own app, a redirect domain, a standard email
// server and a user.
func TestAccGenerateConfig_projectMode(t *testing.T) {
	env := newAccEnv(t)
	cli := newCLIDir(t)
	// The generated configuration gives the secrets as write-only arguments.
	skipUnless(t, cli, writeOnlyArguments)
	ctx := context.Background()
	c, s := env.client(), env.scope()
	const ghSecret, smtpPassword = "gh-console-secret-7f3a", "console-smtp-password-91c2"
	withIntegration(t, env)
	mustDo(t, func() error {
		_, err := c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "google"})
		return err
	})
	mustDo(t, func() error {
		_, err := c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "github", ClientID: apiclient.Ptr("gh-client"), ClientSecret: apiclient.Ptr(ghSecret)})
		return err
	})
	mustDo(t, func() error {
		_, err := c.AddDomain(ctx, s, apiclient.AddDomainRequest{Domain: "https://App.Example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider(apiclient.AuthProviderStack)})
		return err
	})
	mustDo(t, func() error {
		_, err := c.UpdateEmailServer(ctx, s, apiclient.StandardEmailServer(apiclient.SMTP{Host: "smtp.example.com", Port: 587,
			Username: "mailer", Password: smtpPassword, SenderEmail: "no-reply@example.com", SenderName: "Example"}))
		return err
	})
	var userID string
	mustDo(t, func() error {
		u, err := c.CreateUser(ctx, s, apiclient.CreateUserRequest{AuthProvider: apiclient.AuthProviderStack, Email: "bot@example.com", Name: "Bot"})
		if u != nil {
			userID = u.ID
		}
		return err
	})
	p := env.ProjectID
	generated := generateAndAdopt(t, env, cli, map[string]string{
		"neon_auth_integration.this":      p,
		"neon_auth_oauth_provider.google": p + "/google",
		"neon_auth_oauth_provider.github": p + "/github",
		"neon_auth_domain.app":            p + "/https://app.example.com",
		"neon_auth_email_server.smtp":     p,
		"neon_auth_user.bot":              p + "/" + userID,
	}, ghSecret, smtpPassword)

	// Writing to what was adopted needs what no endpoint returns, and only
	// what this API generation can write may change: both refused at plan.
	for _, refused := range []struct{ attr, from, to, want string }{
		{"host", `"smtp.example.com"`, `"smtp2.example.com"`, "After an import, supply it before changing anything else"},
		{"name", `"seed-project-1"`, `"renamed"`, "`name` is only offered by Neon's branch-scoped endpoints"},
	} {
		line := regexp.MustCompile(`(?m)^(\s*` + refused.attr + `\s*=\s*)` + regexp.QuoteMeta(refused.from) + `$`)
		if !line.MatchString(generated) {
			t.Fatalf("generated.tf has no line %s = %s:\n%s", refused.attr, refused.from, generated)
		}
		cli.write("generated.tf", line.ReplaceAllString(generated, "${1}"+refused.to))
		if code, out := cli.run("plan", "-input=false"); code != 1 || !strings.Contains(strings.Join(strings.Fields(out), " "), refused.want) {
			t.Errorf("plan with %s = %s exited %d, want 1 with %q:\n%s", refused.attr, refused.to, code, refused.want, out)
		}
	}

	// What the docs say to fill in: the OAuth app's client id and secret,
	// the SMTP password, the user's email and name. Each updates in place.
	for _, f := range []struct{ block, attr, value string }{
		{`resource "neon_auth_oauth_provider" "github"`, "client_id", `"gh-client"`},
		{`resource "neon_auth_oauth_provider" "github"`, "client_secret_wo", `"gh-rotated-secret"`},
		{`resource "neon_auth_oauth_provider" "github"`, "client_secret_wo_version", "1"},
		{`resource "neon_auth_email_server" "smtp"`, "password_wo", `"rotated-smtp-password"`},
		{`resource "neon_auth_email_server" "smtp"`, "password_wo_version", "1"},
		{`resource "neon_auth_user" "bot"`, "email", `"bot@example.com"`},
		{`resource "neon_auth_user" "bot"`, "name", `"Bot"`},
	} {
		generated = fillIn(t, generated, f.block, f.attr, f.value)
	}
	cli.write("generated.tf", generated)
	if got, want := planSummary(t, cli), "Plan: 0 to add, 3 to change, 0 to destroy."; got != want {
		t.Fatalf("after filling in the secrets: %q, want %q (in place, nothing replaced)", got, want)
	}
	cli.must(0, "apply", "-auto-approve", "-input=false")
	cli.must(0, "plan", "-detailed-exitcode")
	for _, p := range env.Emu.OAuthProviders(env.ProjectID) {
		if p.ID == "github" && p.ClientSecret != "gh-rotated-secret" {
			t.Error("the filled-in client secret did not reach the API")
		}
	}
	if es, err := env.Emu.EmailServer(env.ProjectID); err != nil || es.Password != "rotated-smtp-password" {
		t.Errorf("the filled-in SMTP password did not reach the API (err %v)", err)
	}
}

// Branch mode (Better Auth): the integration and every singleton of its
// configuration, the whole redirect whitelist and the shared email server.
func TestAccGenerateConfig_branchMode(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	cli := newCLIDir(t)
	ctx := context.Background()
	c, s := env.client(), env.scope()
	withIntegration(t, env) // better_auth
	seedSettings(t, env, env.branch())
	mustDo(t, func() error {
		// A fresh Better Auth branch has no email provider: set the shared one.
		_, err := c.UpdateEmailServer(ctx, s, apiclient.SharedEmailServer())
		return err
	})
	mustDo(t, func() error {
		_, err := c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "google"})
		return err
	})
	for _, d := range []string{"https://app.example.com", "https://admin.example.com"} {
		mustDo(t, func() error {
			_, err := c.AddDomain(ctx, s, apiclient.AddDomainRequest{Domain: d, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(apiclient.AuthProviderBetterAuth)})
			return err
		})
	}
	scope := env.ProjectID + "/" + env.branch()
	imports := map[string]string{
		"neon_auth_integration.this":      scope,
		"neon_auth_domains.all":           scope,
		"neon_auth_email_server.shared":   scope,
		"neon_auth_oauth_provider.google": scope + "/google",
	}
	for _, c := range settingsCases {
		imports[c.typeName+".this"] = scope
	}
	generateAndAdopt(t, env, cli, imports)
}

func mustDo(t *testing.T, f func() error) {
	t.Helper()
	if err := f(); err != nil {
		t.Fatal(err)
	}
}
