package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// A full scenario with TF_LOG=trace: the captured logs (Terraform's and the
// provider's) and the error output of a failed refresh hold neither the API
// key nor any minted key, client secret, SMTP password or transfer URL.
func TestAccSecurity_traceLogsHoldNoSecret(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	made := env.NewAPIKey()
	key := made.Token
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv(envAPIKey, key) // the key is never in the configuration
	// Nor are the other secrets: as in real use they come from variables.
	// (The test harness logs the configuration it writes, so a literal
	// would show up in its own log lines, not the provider's.)
	t.Setenv("TF_VAR_google_secret", "oauth-client-secret-7f3a9c")
	t.Setenv("TF_VAR_github_secret", "oauth-wo-secret-1b2d4e")
	t.Setenv("TF_VAR_smtp_password", "smtp-password-5e6f7a")

	// The secrets the scenario handles (value → what it is), to look for in
	// everything Terraform and the provider print.
	secrets := map[string]string{
		key:                          "API key",
		env.Key:                      "bootstrap API key",
		"oauth-client-secret-7f3a9c": "OAuth client secret",
		"oauth-wo-secret-1b2d4e":     "write-only OAuth client secret",
		"smtp-password-5e6f7a":       "SMTP password",
	}

	// Project mode, named: SDK keys and the ownership transfer need the
	// Stack Auth integration that mode creates by default.
	cfg := env.ProviderBlock("api_key = null") + fmt.Sprintf(`
variable "google_secret" {
  type      = string
  sensitive = true
}

variable "github_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "smtp_password" {
  type      = string
  sensitive = true
}

resource "neon_auth_integration" "test" {
  project_id = %[1]q
}

resource "neon_auth_sdk_keys" "test" {
  project_id = neon_auth_integration.test.project_id
}

resource "neon_auth_oauth_provider" "google" {
  project_id    = neon_auth_integration.test.project_id
  provider_id   = "google"
  client_id     = "google-client"
  client_secret = var.google_secret
}

resource "neon_auth_oauth_provider" "github" {
  project_id               = neon_auth_integration.test.project_id
  provider_id              = "github"
  client_id                = "github-client"
  client_secret_wo         = var.github_secret
  client_secret_wo_version = 1
}

resource "neon_auth_email_server" "test" {
  project_id   = neon_auth_integration.test.project_id
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = var.smtp_password
  sender_email = "noreply@example.com"
  sender_name  = "Example"
}

resource "neon_auth_ownership_transfer" "test" {
  project_id = neon_auth_integration.test.project_id
}
`, env.ProjectID)

	tc := env.TestCase(
		resource.TestStep{
			Config: cfg,
			Check: func(s *terraform.State) error {
				// The sensitive attributes of the state, and the keys minted.
				for addr, r := range s.RootModule().Resources {
					for _, a := range []string{"pub_client_key", "secret_server_key", "url", "client_secret", "password"} {
						secrets[r.Primary.Attributes[a]] = addr + "." + a
					}
				}
				if env.Emu != nil { // the keys the emulator minted, which no endpoint lists
					for _, it := range env.Emu.Integrations(env.ProjectID) {
						secrets[it.SecretServerKey], secrets[it.PubClientKey] = "minted secret server key", "minted public client key"
					}
				}
				delete(secrets, "")
				return nil
			},
		},
		resource.TestStep{
			// The key is revoked: the refresh fails, and its error output is
			// in the log too.
			PreConfig:   func() { env.RevokeKey(made) },
			Config:      cfg,
			ExpectError: acctest.MatchInOrder("API key is missing, invalid or revoked"),
		},
		resource.TestStep{
			PreConfig: func() { t.Setenv(envAPIKey, env.Key) },
			Config:    cfg,
		},
	)
	// The GitHub client secret reaches its write-only argument through an
	// ephemeral variable.
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.EphemeralVariables, acctest.WriteOnlyArguments)
	resource.Test(t, tc)

	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("reading the captured log: %v", err)
	}
	log := string(data)
	// The checks below mean something only if the log holds the provider's
	// request lines and the failure.
	for _, want := range []string{"neon API response", "POST /projects/auth/create", "401", "API key is missing, invalid or revoked"} {
		if !strings.Contains(log, want) {
			t.Fatalf("the captured log (%d bytes) lacks %q; the leak check would prove nothing", len(log), want)
		}
	}
	var leaks []string // what leaked, never the value itself
	for v, what := range secrets {
		if strings.Contains(log, v) {
			leaks = append(leaks, what)
		}
	}
	if len(leaks) > 0 {
		t.Errorf("the TF_LOG=trace log contains: %v", leaks)
	}
	t.Logf("TF_LOG=trace: %d bytes of logs searched for %d secrets, none found", len(log), len(secrets))
}

// noSecretIn checks that a value never appears in the JSON Terraform shows of
// a plan (`terraform show -json <planfile>`) or of the state.
type noSecretIn struct {
	secrets []string
}

func (c noSecretIn) find(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	for _, s := range c.secrets {
		if strings.Contains(string(data), s) {
			return fmt.Errorf("a write-only value (%d characters) appears in Terraform's JSON", len(s))
		}
	}
	return nil
}

func (c noSecretIn) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = c.find(req.Plan)
}

func (c noSecretIn) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = c.find(req.State)
}

// Write-only arguments leave no trace in plan files or state, yet reach the
// API.
func TestAccSecurity_writeOnlyValuesLeaveNoTrace(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	env.EnableAuth()
	const clientSecret, smtpPassword = "wo-client-secret-8c1e", "wo-smtp-password-2f9b"
	check := noSecretIn{secrets: []string{clientSecret, smtpPassword}}
	// Write-only values come from ephemeral variables, as they would in real
	// use: a literal in the configuration is part of the configuration,
	// which Terraform records in the plan as written.
	t.Setenv("TF_VAR_client_secret", clientSecret)
	t.Setenv("TF_VAR_smtp_password", smtpPassword)
	cfg := env.Config(`
variable "client_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "smtp_password" {
  type      = string
  sensitive = true
  ephemeral = true
}
` + env.Resource("neon_auth_oauth_provider", "google", `provider_id = "google"`, `client_id = "google-client"`,
		"client_secret_wo = var.client_secret", "client_secret_wo_version = 1") +
		env.Resource("neon_auth_email_server", "test", `type = "standard"`, `host = "smtp.example.com"`, "port = 587",
			`username = "mailer"`, "password_wo = var.smtp_password", "password_wo_version = 1",
			`sender_email = "noreply@example.com"`, `sender_name = "Example"`))
	tc := env.TestCase(resource.TestStep{
		Config: cfg,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply:             []plancheck.PlanCheck{check},
			PostApplyPostRefresh: []plancheck.PlanCheck{check},
		},
		ConfigStateChecks: []statecheck.StateCheck{
			check,
			statecheck.ExpectKnownValue("neon_auth_oauth_provider.google", tfjsonpath.New("client_secret_wo"), knownvalue.Null()),
			statecheck.ExpectKnownValue("neon_auth_oauth_provider.google", tfjsonpath.New("client_secret"), knownvalue.Null()),
			statecheck.ExpectKnownValue("neon_auth_email_server.test", tfjsonpath.New("password_wo"), knownvalue.Null()),
			statecheck.ExpectKnownValue("neon_auth_email_server.test", tfjsonpath.New("password"), knownvalue.Null()),
			acctest.APICheck(func() error {
				if p, ok := env.OAuthProvider("google"); !ok || p.Type != "standard" || apiclient.Deref(p.ClientID) != "google-client" {
					return fmt.Errorf("the API lists the google OAuth provider as %+v, want its own app", p)
				}
				if es := env.EmailServer(); es == nil || apiclient.Deref(es.Host) != "smtp.example.com" {
					return fmt.Errorf("the API has the email server %v, want the SMTP server", es)
				}
				// The API never returns the secrets; the emulator shows it
				// received them.
				if env.Emu == nil {
					return nil
				}
				a, _ := env.Emu.BranchAuth(env.ProjectID, env.BranchID)
				if len(a.OAuthProviders) != 1 || a.OAuthProviders[0].ClientSecret != clientSecret {
					return fmt.Errorf("the emulator did not receive the write-only client secret")
				}
				if a.EmailProvider == nil || a.EmailProvider.Password != smtpPassword {
					return fmt.Errorf("the emulator did not receive the write-only SMTP password")
				}
				return nil
			}),
		},
	})
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.EphemeralVariables, acctest.WriteOnlyArguments)
	resource.Test(t, tc)
}

// Truncated JSON and an HTML error page give clear errors, no panic, and
// leave the state as it was. Values outside the documented enums (a beta API
// that grew) do not block the run: they are kept as the API gave them, with
// a warning.
func TestAccBadResponses_clearErrorsAndNoStateChange(t *testing.T) {
	// The mode answers chosen API reads with broken bodies, as a faulty proxy
	// or a changed beta API would.
	var rewrite atomic.Value // string
	env := acctest.NewEmulatorEnv(t, "it rewrites the API's answers", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mode, _ := rewrite.Load().(string)
			if r.Method != http.MethodGet {
				next.ServeHTTP(w, r)
				return
			}
			path := r.URL.Path
			switch {
			case mode == "truncated-json" && strings.HasSuffix(path, "/auth/domains"):
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"domains":[{"domain":"https://app.exa`))
			case mode == "html-502" && strings.HasSuffix(path, "/auth/oauth_providers"):
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("X-Request-Id", "proxy-req-502")
				w.WriteHeader(http.StatusBadGateway)
				_, _ = w.Write([]byte("<html><head><title>502</title></head><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"))
			case mode == "unknown-enum" && strings.HasSuffix(path, "/auth/oauth_providers"):
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"providers":[{"id":"google","type":"platinum"}]}`))
			case mode == "unknown-enum" && strings.HasSuffix(path, "/auth/email_server"):
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"type":"carrier-pigeon"}`))
			default:
				next.ServeHTTP(w, r)
			}
		})
	})
	body := fmt.Sprintf(`
resource "neon_auth_integration" "test" {
  project_id = %[1]q
}

resource "neon_auth_oauth_provider" "google" {
  project_id  = neon_auth_integration.test.project_id
  provider_id = "google"
}

resource "neon_auth_domain" "app" {
  project_id = neon_auth_integration.test.project_id
  domain     = "https://app.example.com"
}

resource "neon_auth_email_server" "test" {
  project_id = neon_auth_integration.test.project_id
  type       = "shared"
}
`, env.ProjectID)
	// Few retries: the HTML 502 is retried as a read should be, then reported.
	// Project mode, named: the rewritten reads are its endpoints.
	cfg := env.ProviderBlock("max_retries = 1") + body
	var before string
	snapshot := func(s *terraform.State) string {
		var b strings.Builder
		for _, addr := range []string{integrationAddr, "neon_auth_oauth_provider.google", "neon_auth_domain.app", "neon_auth_email_server.test"} {
			fmt.Fprintf(&b, "%s %v\n", addr, s.RootModule().Resources[addr].Primary.Attributes)
		}
		return b.String()
	}
	step := func(mode, want string) resource.TestStep {
		return resource.TestStep{
			PreConfig:   func() { rewrite.Store(mode) },
			Config:      cfg,
			ExpectError: acctest.MatchInOrder(want),
		}
	}
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{
			Config: cfg,
			Check: func(s *terraform.State) error {
				before = snapshot(s)
				return nil
			},
		},
		step("truncated-json", "could not be decoded"),
		// The error names the operation, the status and the request id;
		// never a JSON decode error.
		resource.TestStep{PreConfig: func() { rewrite.Store("html-502") }, Config: cfg,
			ExpectError: acctest.MatchInOrder("Reading the google OAuth provider", "HTTP 502", "non-JSON response body (text/html): 502 502 Bad Gateway nginx",
				"Request id: proxy-req-502")},
		resource.TestStep{
			PreConfig:          func() { rewrite.Store("unknown-enum") },
			RefreshState:       true,
			ExpectNonEmptyPlan: true, // the configuration still wants "shared"
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("neon_auth_oauth_provider.google", "type", "platinum"),
				resource.TestCheckResourceAttr("neon_auth_email_server.test", "type", "carrier-pigeon"),
			),
		},
		resource.TestStep{
			// Back to normal: nothing was lost or changed by the failures.
			PreConfig:        func() { rewrite.Store("") },
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check: func(s *terraform.State) error {
				if after := snapshot(s); after != before {
					return fmt.Errorf("state changed across the bad responses:\nbefore %s\nafter  %s", before, after)
				}
				return nil
			},
		},
	))
}
