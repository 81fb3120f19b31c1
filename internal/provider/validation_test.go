package provider

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// badInput is one invalid configuration: it must fail at plan (or validate)
// with an error naming the field and saying what would be right, before any
// API request.
type badInput struct {
	name string
	cfg  string
	// field is the attribute the error must name, want what it must say
	// (the fix). Spaces match any whitespace: Terraform wraps diagnostics.
	field, want string
}

// badInputs spans the provider block and every resource and data source.
func badInputs(env *accEnv) []badInput {
	p := env.ProjectID
	res := func(typ, body string) string {
		return fmt.Sprintf("resource %q \"test\" {\n%s\n}\n", typ, body)
	}
	pid := fmt.Sprintf("  project_id = %q\n", p)
	domain := func(d string) string { return res("neon_auth_domain", pid+fmt.Sprintf("  domain = %q", d)) }
	email := func(body string) string { return res("neon_auth_email_server", pid+body) }
	const standardRest = `
  host         = "smtp.example.com"
  username     = "mailer"
  sender_email = "noreply@example.com"
  sender_name  = "Example"`
	user := func(body string) string { return res("neon_auth_user", pid+body) }
	providerBlock := func(body string) string {
		// A data source makes Terraform configure the provider.
		return fmt.Sprintf("provider \"neon\" {\n%s\n}\n\ndata \"neon_projects\" \"all\" {}\n", body)
	}
	keyAndURL := fmt.Sprintf("  api_key = %q\n  base_url = %q\n", env.Key, env.BaseURL)

	return []badInput{
		// The provider block.
		{"provider: plain http on a public host", providerBlock(fmt.Sprintf("  api_key = %q\n  base_url = \"http://api.example.com/api/v2/\"", env.Key)), "base_url", "plain http:// on a non-loopback host"},
		{"provider: not an http URL", providerBlock(fmt.Sprintf("  api_key = %q\n  base_url = \"ftp://api.example.com/\"", env.Key)), "base_url", "must be an absolute http(s) URL"},
		{"provider: base URL with credentials", providerBlock(fmt.Sprintf("  api_key = %q\n  base_url = \"https://u:p@api.example.com/api/v2/\"", env.Key)), "base_url", "must not carry credentials"},
		{"provider: negative max_retries", providerBlock(keyAndURL + "  max_retries = -1"), "max_retries", "must be between 0 and 20"},
		{"provider: max_retries too high", providerBlock(keyAndURL + "  max_retries = 100"), "max_retries", "must be between 0 and 20"},
		{"provider: zero requests_per_minute", providerBlock(keyAndURL + "  requests_per_minute = 0"), "requests_per_minute", "must be between 1 and 100000"},
		{"provider: zero route_requests_per_second", providerBlock(keyAndURL + "  route_requests_per_second = 0"), "route_requests_per_second", "must be between 1 and 10000"},
		{"provider: no API key anywhere", providerBlock(fmt.Sprintf("  base_url = %q", env.BaseURL)), "api_key", "Set `api_key` in the provider block"},
		{"provider: unknown auth_api", providerBlock(keyAndURL + `  auth_api = "v3"`), "auth_api", `value must be one of: ["project" "branch"], got: "v3"`},
		{"provider: retry_timeout without a unit", providerBlock(keyAndURL + `  retry_timeout = "90"`), "retry_timeout", "must be a duration from 1s to 24h0m0s written with a unit"},
		{"provider: retry_timeout too short", providerBlock(keyAndURL + `  retry_timeout = "10ms"`), "retry_timeout", `got "10ms"`},

		// neon_auth_integration.
		{"integration: unknown auth_provider", res("neon_auth_integration", pid+`  auth_provider = "auth0"`), "auth_provider", `value must be one of: ["stack" "better_auth" "mock"], got: "auth0"`},
		{"integration: empty project_id", res("neon_auth_integration", `  project_id = ""`), "project_id", "must be a Neon project id"},
		{"integration: malformed project_id", res("neon_auth_integration", `  project_id = "Not A Project!"`), "project_id", "must be a Neon project id"},
		{"integration: empty branch_id", res("neon_auth_integration", pid+`  branch_id = ""`), "branch_id", "Attribute branch_id string length must be at least 1, got: 0"},
		{"integration: malformed branch_id", res("neon_auth_integration", pid+`  branch_id = "BR main"`), "branch_id", "must be a Neon project id"},
		{"integration: empty database_name", res("neon_auth_integration", pid+`  database_name = ""`), "database_name", "Attribute database_name string length must be at least 1, got: 0"},
		{"integration: empty role_name", res("neon_auth_integration", pid+`  role_name = ""`), "role_name", "Attribute role_name string length must be at least 1, got: 0"},
		{"integration: name too long", res("neon_auth_integration", pid+fmt.Sprintf("  name = %q", strings.Repeat("n", 257))), "name", "UTF-8 character count must be between 1 and 256, got: 257"},
		{"integration: name in project mode", res("neon_auth_integration", pid+`  name = "Acme"`), "name", "`name` is only offered by Neon's branch-scoped endpoints"},
		{"integration: allow_localhost in project mode", res("neon_auth_integration", pid+`  allow_localhost = true`), "allow_localhost", "`allow_localhost` is only offered by Neon's branch-scoped endpoints"},

		// neon_auth_sdk_keys.
		{"sdk keys: malformed project_id", res("neon_auth_sdk_keys", `  project_id = "p_1"`), "project_id", "must be a Neon project id"},
		{"sdk keys: unknown auth_provider", res("neon_auth_sdk_keys", pid+`  auth_provider = "clerk"`), "auth_provider", `value must be one of: ["stack" "better_auth" "mock"], got: "clerk"`},
		{"sdk keys: a Better Auth integration", res("neon_auth_sdk_keys", pid+`  auth_provider = "better_auth"`), "auth_provider", "Better Auth integrations have no SDK keys"},

		// neon_auth_oauth_provider.
		{"oauth: unknown provider id", oauthConfig(p, "facebook", ""), "provider_id", `must be one of: ["google" "github" "microsoft" "vercel"], got: "facebook"`},
		{"oauth: tenant for another provider", oauthConfig(p, "google", `  microsoft_tenant_id = "t"`), "microsoft_tenant_id", "only for `provider_id = \"microsoft\"`"},
		{"oauth: both secret forms", oauthConfig(p, "google", "  client_id = \"c\"\n  client_secret = \"s\"\n  client_secret_wo = \"s\"\n  client_secret_wo_version = 1"), "client_secret_wo", "Conflicting client secret arguments"},
		{"oauth: client_id without a secret", oauthConfig(p, "google", "  client_id = \"c\""), "client_id", "needs a client secret"},
		{"oauth: secret without client_id", oauthConfig(p, "google", "  client_secret = \"s\""), "client_secret", "needs `client_id`"},
		{"oauth: write-only secret without its version", oauthConfig(p, "google", "  client_id = \"c\"\n  client_secret_wo = \"s\""), "client_secret_wo_version", "Missing client_secret_wo_version"},

		// neon_auth_domain.
		{"domain: no scheme", domain("app.example.com"), "domain", "https://app.example.com"},
		{"domain: ftp scheme", domain("ftp://app.example.com"), "domain", `scheme "ftp"`},
		{"domain: a path", domain("https://app.example.com/login"), "domain", "must not have a path"},
		{"domain: a query", domain("https://app.example.com?x=1"), "domain", "must not have a query"},
		{"domain: a fragment", domain("https://app.example.com#top"), "domain", "must not have a fragment"},
		{"domain: user information", domain("https://user@app.example.com"), "domain", "user information"},
		{"domain: port out of range", domain("https://app.example.com:99999"), "domain", "has a port outside 1–65535"},

		// neon_auth_email_server.
		{"email: port 0", email("  type = \"standard\"\n  port = 0\n  password = \"pw\"" + standardRest), "port", "between 1 and 65535"},
		{"email: port 70000", email("  type = \"standard\"\n  port = 70000\n  password = \"pw\"" + standardRest), "port", "between 1 and 65535"},
		{"email: standard without host", email("  type = \"standard\"\n  port = 587\n  username = \"u\"\n  password = \"pw\"\n  sender_email = \"a@example.com\"\n  sender_name = \"n\""), "host", "`host` is required when `type` is \"standard\""},
		{"email: standard without password", email("  type = \"standard\"\n  port = 587" + standardRest), "password", "is required when `type` is \"standard\""},
		{"email: shared with a host", email("  type = \"shared\"\n  host = \"smtp.example.com\""), "host", "`host` is not allowed when `type` is \"shared\""},
		{"email: sender_email not an address", email("  type = \"standard\"\n  port = 587\n  password = \"pw\"\n  host = \"h\"\n  username = \"u\"\n  sender_name = \"n\"\n  sender_email = \"not-an-address\""), "sender_email", "Invalid email address"},
		{"email: both password forms", email("  type = \"standard\"\n  port = 587\n  password = \"pw\"\n  password_wo = \"pw\"\n  password_wo_version = 1" + standardRest), "password_wo", "Conflicting password arguments"},
		{"email: unknown type", email(`  type = "custom"`), "type", `value must be one of: ["shared" "standard"]`},

		// neon_auth_user.
		{"user: empty email", user(`  email = ""`), "email", "Invalid email address"},
		{"user: malformed email", user(`  email = "not-an-email"`), "email", "Invalid email address"},
		{"user: email with a display name", user(`  email = "Ann <ann@example.com>"`), "email", "Invalid email address"},
		{"user: empty name", user("  email = \"ann@example.com\"\n  name = \"\""), "name", "must be between 1 and 255"},
		{"user: name of 256 characters", user(fmt.Sprintf("  email = \"ann@example.com\"\n  name = %q", strings.Repeat("n", 256))), "name", "must be between 1 and 255"},
		{"user: roles in project mode", user("  email = \"ann@example.com\"\n  roles = [\"admin\"]"), "roles", "`roles` is only offered by Neon's branch-scoped endpoints"},
		{"user: empty roles", user("  email = \"ann@example.com\"\n  roles = []"), "roles", "list must contain at least 1 elements"},

		// neon_auth_ownership_transfer.
		{"transfer: unknown auth_provider", res("neon_auth_ownership_transfer", pid+`  auth_provider = "okta"`), "auth_provider", `value must be one of: ["stack" "better_auth" "mock"], got: "okta"`},
		{"transfer: a Better Auth integration", res("neon_auth_ownership_transfer", pid+`  auth_provider = "better_auth"`), "auth_provider", "no managed project to transfer"},
		{"transfer: empty project_id", res("neon_auth_ownership_transfer", `  project_id = ""`), "project_id", "must be a Neon project id"},

		// Data sources.
		{"data neon_auth_integrations: malformed project_id", `data "neon_auth_integrations" "test" { project_id = "no way" }`, "project_id", "must be a Neon project id"},
		{"data neon_projects: malformed org_id", `data "neon_projects" "test" { org_id = "Org 1" }`, "org_id", "must be a Neon project id"},
	}
}

// Every invalid configuration fails before any API request, with an error
// that names the attribute and says what is expected.
func TestAccValidation_badInputTable(t *testing.T) {
	env := newAccEnv(t)
	cases := badInputs(env)
	if len(cases) < 30 {
		t.Fatalf("the table holds %d bad inputs; it is meant to cover every attribute with at least 30", len(cases))
	}
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if c.field == "api_key" && os.Getenv(envAPIKey) != "" {
					t.Skip(envAPIKey + " is set in this environment, so the provider has a key")
				}
				t.Parallel()
				cfg := c.cfg
				if !strings.HasPrefix(cfg, "provider ") {
					cfg = env.config(cfg)
				}
				// The attribute is named (in the diagnostic's "with …" line
				// or its text), and so is the fix.
				re := regexp.MustCompile(`(?s)(` + regexp.QuoteMeta(c.field) + `.*` + spaced(c.want) + `|` + spaced(c.want) + `.*` + regexp.QuoteMeta(c.field) + `)`)
				if strings.Contains(c.want, c.field) {
					re = regexp.MustCompile(`(?s)` + spaced(c.want))
				}
				resource.UnitTest(t, env.testCase(resource.TestStep{Config: cfg, PlanOnly: true, ExpectError: re}))
			})
		}
	})
	// All subtests have finished here.
	if n := env.requests(); n != 0 {
		t.Errorf("%d bad inputs caused %d API request(s); every one must fail before any call", len(cases), n)
	}
	t.Logf("%d bad inputs refused at plan time, 0 API requests", len(cases))
}

// spaced quotes s for a regexp in which a space matches any whitespace.
func spaced(s string) string { return strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\s+`) }
