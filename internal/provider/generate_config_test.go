package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Importing a Neon Auth that was set up in the console, the way the import
// guide describes it: import blocks, `plan -generate-config-out`, apply the
// generated configuration as it is, and a plan that is empty. No resource
// block is written by hand. Then the values no endpoint returns (secrets,
// a user's email) are filled in as the docs say, which updates in place and
// replaces nothing.

// generateAndImport runs the flow on imports, which map the `to` of each
// `import {}` block to the line that names the object (`id = …` or
// `identity = {…}`), and checks that every one of them was generated,
// applied, and plans no change, and that no secret of the console's objects
// reached the output or files.
func generateAndImport(t *testing.T, env *acctest.Env, cli *acctest.CLIDir, imports map[string]string, secrets ...string) string {
	t.Helper()
	var blocks strings.Builder
	for to, line := range imports {
		fmt.Fprintf(&blocks, `
import {
  to = %s
  %s
}
`, to, line)
	}
	cli.Write("main.tf", acctest.RequiredProviders+env.ProviderBlock()+blocks.String())
	cli.Must(0, "init")
	var outputs strings.Builder
	outputs.WriteString(cli.Must(0, "plan", "-generate-config-out=generated.tf", "-out=import.tfplan"))
	generated := cli.Read("generated.tf")
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
	outputs.WriteString(cli.Must(0, "apply", "import.tfplan"))
	if code, out := cli.Run("plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after applying the generated configuration exited %d, want 0 (no changes):\n%s\ngenerated.tf:\n%s", code, out, generated)
	}
	for _, s := range secrets {
		if strings.Contains(outputs.String(), s) || strings.Contains(generated, s) {
			t.Errorf("a secret of the console's objects appears in the output or in generated.tf")
		}
	}
	return generated
}

// Project mode (Stack Auth): the integration, OAuth providers with the shared
// keys and with the team's own app, a redirect domain, a standard email
// server and a user, imported by ids that name no branch (the production
// branch).
func TestAccGenerateConfig_projectMode(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	cli := env.CLI(nil, nil)
	// The generated configuration gives the secrets as write-only arguments.
	if why := acctest.Lacks(t, acctest.WriteOnlyArguments); why != "" {
		t.Skip(why)
	}
	ctx, c, s := context.Background(), env.Client(), env.Scope()
	const ghSecret, smtpPassword = "gh-console-secret-7f3a", "console-smtp-password-91c2"
	env.EnableAuth()
	_, err := c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "google"})
	env.Must(err)
	_, err = c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "github", ClientID: apiclient.Ptr("gh-client"), ClientSecret: apiclient.Ptr(ghSecret)})
	env.Must(err)
	env.Must(acctest.Listed("neon_auth_domain").Make(c, s, acctest.ListedObject{Key: "https://App.Example.com"}))
	_, err = c.UpdateEmailServer(ctx, s, apiclient.StandardEmailServer(apiclient.SMTP{Host: "smtp.example.com", Port: 587,
		Username: "mailer", Password: smtpPassword, SenderEmail: "no-reply@example.com", SenderName: "Example"}))
	env.Must(err)
	u, err := c.CreateUser(ctx, s, apiclient.CreateUserRequest{AuthProvider: apiclient.AuthProviderStack, Email: "bot@example.com", Name: "Bot"})
	env.Must(err)
	p := env.ProjectID
	generated := generateAndImport(t, env, cli, map[string]string{
		"neon_auth_integration.this":      fmt.Sprintf("id = %q", p),
		"neon_auth_oauth_provider.google": fmt.Sprintf("id = %q", p+"/google"),
		"neon_auth_oauth_provider.github": fmt.Sprintf("id = %q", p+"/github"),
		"neon_auth_domain.app":            fmt.Sprintf("id = %q", p+"/https://app.example.com"),
		"neon_auth_email_server.smtp":     fmt.Sprintf("id = %q", p),
		"neon_auth_user.bot":              fmt.Sprintf("id = %q", p+"/"+u.ID),
	}, ghSecret, smtpPassword)

	// Writing to what was imported needs what no endpoint returns, and only
	// what this API generation can write may change: both refused at plan.
	// The only quoted value of each attribute is the email server's host
	// and the integration's name.
	for _, refused := range []struct{ attr, to, want string }{
		{"host", `"smtp2.example.com"`, "After an import, supply it before changing anything else"},
		{"name", `"renamed"`, "`name` is only offered by Neon's branch-scoped endpoints"},
	} {
		line := regexp.MustCompile(`(?m)^(\s*` + refused.attr + `\s*=\s*)"[^"]*"$`)
		if n := len(line.FindAllString(generated, -1)); n != 1 {
			t.Fatalf("generated.tf has %d lines %s = \"…\", want 1:\n%s", n, refused.attr, generated)
		}
		cli.Write("generated.tf", line.ReplaceAllString(generated, "${1}"+refused.to))
		if code, out := cli.Run("plan", "-input=false"); code != 1 || !strings.Contains(strings.Join(strings.Fields(out), " "), refused.want) {
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
		// As a user does by hand: the line `attr = null` of that block
		// becomes `attr = value`.
		start := strings.Index(generated, f.block+" {")
		if start < 0 {
			t.Fatalf("no block %s in generated.tf", f.block)
		}
		end := start + strings.Index(generated[start:], "\n}")
		line := regexp.MustCompile(`(?m)^(\s*)` + regexp.QuoteMeta(f.attr) + `(\s*)= null.*$`)
		loc := line.FindStringSubmatchIndex(generated[start:end])
		if loc == nil {
			t.Fatalf("no line `%s = null` in block %s:\n%s", f.attr, f.block, generated[start:end])
		}
		indent, pad := generated[start+loc[2]:start+loc[3]], generated[start+loc[4]:start+loc[5]]
		generated = generated[:start+loc[0]] + indent + f.attr + pad + "= " + f.value + generated[start+loc[1]:]
	}
	cli.Write("generated.tf", generated)
	if _, out := cli.Run("plan", "-input=false"); !strings.Contains(out, "Plan: 0 to add, 3 to change, 0 to destroy.") {
		t.Fatalf("after filling in the secrets, the plan is not 3 changes in place and nothing replaced:\n%s", out)
	}
	cli.Must(0, "apply", "-auto-approve", "-input=false")
	cli.Must(0, "plan", "-detailed-exitcode")

	t.Run("the filled-in secrets reached the API", func(t *testing.T) {
		if env.Emu == nil {
			t.Skip("runs only against the in-process emulator: no endpoint returns a secret")
		}
		for _, p := range env.Emu.OAuthProviders(env.ProjectID) {
			if p.ID == "github" && p.ClientSecret != "gh-rotated-secret" {
				t.Error("the filled-in client secret did not reach the API")
			}
		}
		if es, err := env.Emu.EmailServer(env.ProjectID); err != nil || es.Password != "rotated-smtp-password" {
			t.Errorf("the filled-in SMTP password did not reach the API (err %v)", err)
		}
	})
}

// Branch mode (Better Auth): the integration and every singleton of its
// configuration, the whole redirect whitelist, the shared email server, the
// Data API of the branch's database and the JWKS the project trusts for it.
func TestAccGenerateConfig_branchMode(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	consoleSetup(env, env.BranchID)
	id := fmt.Sprintf("id = %q", env.ProjectID+"/"+env.BranchID)
	jwks, err := env.Client().ListJWKS(context.Background(), env.ProjectID)
	env.Must(err)
	imports := map[string]string{
		"neon_auth_integration.this":      id,
		"neon_auth_domains.all":           id,
		"neon_auth_email_server.shared":   id,
		"neon_auth_oauth_provider.google": fmt.Sprintf("id = %q", env.ProjectID+"/"+env.BranchID+"/google"),
		"neon_auth_data_api.neondb":       fmt.Sprintf("id = %q", env.ProjectID+"/"+env.BranchID+"/neondb"),
	}
	for _, j := range jwks {
		if apiclient.Deref(j.BranchID) == env.BranchID {
			imports["neon_auth_external_jwks.microsoft"] = fmt.Sprintf("id = %q", env.ProjectID+"/"+j.ID)
		}
	}
	for _, c := range acctest.SettingsCases {
		imports[c.TypeName+".this"] = id
	}
	generateAndImport(t, env, env.CLI(nil, nil), imports)
}
