package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// The settings section: every resource that configures one branch's Better
// Auth, on the production branch of one project in branch mode, then a
// refresh plan. Each read endpoint of the branch should be asked once,
// however many resources read it (the organization and magic-link plugins
// both read GET …/auth/plugins).

const settingsConfig = `
resource "neon_auth_integration" "this" {
  project_id    = %q
  auth_provider = "better_auth"
}

resource "neon_auth_email_and_password" "this" {
  project_id                 = neon_auth_integration.this.project_id
  enabled                    = true
  email_verification_method  = "otp"
  require_email_verification = true
}

resource "neon_auth_organization_plugin" "this" {
  project_id            = neon_auth_integration.this.project_id
  enabled               = true
  organization_limit    = 5
  membership_limit      = 50
  creator_role          = "owner"
  send_invitation_email = true
}

resource "neon_auth_magic_link_plugin" "this" {
  project_id = neon_auth_integration.this.project_id
  enabled    = true
  expires_in = 15
}

resource "neon_auth_phone_number_plugin" "this" {
  project_id     = neon_auth_integration.this.project_id
  enabled        = true
  otp_expires_in = 300
}

resource "neon_auth_webhooks" "this" {
  project_id      = neon_auth_integration.this.project_id
  enabled         = true
  webhook_url     = "https://hooks.example.com/neon-auth"
  enabled_events  = ["user.created", "send.otp", "send.magic_link"]
  timeout_seconds = 5
}

resource "neon_auth_domain" "app" {
  for_each   = toset(["https://app.example.com", "https://staging.example.com", "http://localhost:3000"])
  project_id = neon_auth_integration.this.project_id
  domain     = each.value
}

resource "neon_auth_oauth_provider" "this" {
  for_each    = toset(["google", "github"])
  project_id  = neon_auth_integration.this.project_id
  provider_id = each.value
}

resource "neon_auth_email_server" "smtp" {
  project_id   = neon_auth_integration.this.project_id
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = "bench-smtp-password"
  sender_email = "noreply@example.com"
  sender_name  = "Bench"
}
`

// settingsResources is how many resources settingsConfig declares.
const settingsResources = 1 + 5 + 3 + 2 + 1

type settingsResult struct {
	apply, plan phase
	reads       reads    // the plan's reads by (branch, endpoint)
	writes      []string // routes of the plan that are not reads
}

func benchSettings(work, rc string, o options) (settingsResult, error) {
	var r settingsResult
	dir := filepath.Join(work, "settings")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	s, err := startEmulator(1, true, "")
	if err != nil {
		return r, err
	}
	defer s.stop()
	config := providerBlock("  auth_api = \"branch\"\n") + fmt.Sprintf(settingsConfig, s.emu.ProjectIDs()[0])
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644); err != nil {
		return r, err
	}
	par := fmt.Sprintf("-parallelism=%d", o.parallelism)
	if r.apply, err = terraform(dir, rc, s.env(), s, "settings: apply", []string{"apply", "-auto-approve", "-input=false", par}, []int{0}); err != nil {
		return r, err
	}
	// Exit 2 (changes after an apply) is a finding of its own: reported, not fatal.
	if r.plan, err = terraform(dir, rc, s.env(), s, "settings: plan (refresh)", planArgs(par, true), []int{0, 2}); err != nil {
		return r, err
	}
	r.reads = readsOf(r.plan)
	for _, k := range sortedRoutes(r.plan.requests) {
		if !strings.HasPrefix(k, http.MethodGet+" ") {
			r.writes = append(r.writes, fmt.Sprintf("`%s` ×%d", k, routeTotal(r.plan.requests, k)))
		}
	}
	return r, nil
}

func writeSettingsReport(b *strings.Builder, r settingsResult) {
	fmt.Fprintln(b, "\n## Settings refresh (one production branch, `auth_api = \"branch\"`, Better Auth)")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "%d resources on one branch: the integration (`auth_provider = \"better_auth\"`), "+
		"neon_auth_email_and_password, neon_auth_organization_plugin, neon_auth_magic_link_plugin, "+
		"neon_auth_phone_number_plugin, neon_auth_webhooks, 3 × neon_auth_domain, 2 × neon_auth_oauth_provider, "+
		"neon_auth_email_server.\n\n", settingsResources)
	fmt.Fprintln(b, "| apply | apply requests | plan (refresh) | plan exit | plan requests | distinct (branch, read endpoint) | requests ÷ distinct | read more than once |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|")
	repeated := "none"
	if len(r.reads.repeated) > 0 {
		repeated = strings.Join(r.reads.repeated, "<br>")
	}
	fmt.Fprintf(b, "| %s | %d | %s | %d | %d | %d | %.2f | %s |\n\n", secs(r.apply.wall), r.apply.total(),
		secs(r.plan.wall), r.plan.exit, r.plan.total(), r.reads.distinct, r.reads.ratio(r.plan), repeated)
	writePhases(b, r.apply, r.plan)
	fmt.Fprintln(b, "\nNotes: distinct (branch, read endpoint) counts the paths the refresh plan read (one branch, so one per endpoint), "+
		"counted by the benchmark's own handler in front of the emulator; "+
		"requests ÷ distinct is the plan's requests over that count, 1.00 when every endpoint is read once. "+
		"Plan exit 0 is an empty plan (-detailed-exitcode).")
	if len(r.writes) > 0 {
		fmt.Fprintf(b, "The refresh plan also sent requests that are not reads: %s.\n", strings.Join(r.writes, ", "))
	}
}
