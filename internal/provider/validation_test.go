package provider

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
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
	// branch: the provider uses the branch-scoped API (auth_api = "branch").
	branch bool
}

// Every invalid configuration fails before any API request, with an error
// that names the attribute and says what is expected. The table spans the
// provider block and every resource and data source.
func TestAccValidation_badInputFailsBeforeAnyRequest(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	// pid and keyAndURL start and end with a newline. A row's own arguments
	// start with one too, so that a blank line sets them apart from those,
	// and they are aligned among themselves as terraform fmt aligns them.
	p := env.ProjectID
	res := func(typ, body string) string {
		return fmt.Sprintf(`
resource %q "test" {%s
}
`, typ, body)
	}
	pid := fmt.Sprintf(`
  project_id = %q
`, p)
	domain := func(d string) string {
		return res("neon_auth_domain", pid+fmt.Sprintf(`
  domain = %q`, d))
	}
	email := func(body string) string { return res("neon_auth_email_server", pid+body) }
	const standardRest = `
  host         = "smtp.example.com"
  username     = "mailer"
  sender_email = "noreply@example.com"
  sender_name  = "Example"`
	user := func(body string) string { return res("neon_auth_user", pid+body) }
	dataAPI := func(body string) string { return res("neon_auth_data_api", pid+`  database_name = "neondb"`+body) }
	oauth := func(providerID, body string) string {
		return res("neon_auth_oauth_provider", pid+fmt.Sprintf(`
  provider_id = %q`, providerID)+body)
	}
	providerBlock := func(args string) string {
		// A data source makes Terraform configure the provider.
		return fmt.Sprintf(`
provider "neon" {%s
}

data "neon_projects" "all" {}
`, args)
	}
	keyAndURL := fmt.Sprintf(`
  api_key  = %q
  base_url = %q
`, env.Key, env.BaseURL)

	cases := []badInput{
		// The provider block.
		{"provider: plain http on a public host", providerBlock(fmt.Sprintf(`
  api_key  = %q
  base_url = "http://api.example.com/api/v2/"`, env.Key)),
			"base_url", "plain http:// on a non-loopback host", false},
		{"provider: not an http URL", providerBlock(fmt.Sprintf(`
  api_key  = %q
  base_url = "ftp://api.example.com/"`, env.Key)),
			"base_url", "must be an absolute http(s) URL", false},
		{"provider: base URL with credentials", providerBlock(fmt.Sprintf(`
  api_key  = %q
  base_url = "https://u:p@api.example.com/api/v2/"`, env.Key)),
			"base_url", "must not carry credentials", false},
		{"provider: negative max_retries", providerBlock(keyAndURL + `
  max_retries = -1`),
			"max_retries", "must be between 0 and 20", false},
		{"provider: max_retries too high", providerBlock(keyAndURL + `
  max_retries = 100`),
			"max_retries", "must be between 0 and 20", false},
		{"provider: zero requests_per_minute", providerBlock(keyAndURL + `
  requests_per_minute = 0`),
			"requests_per_minute", "must be between 1 and 100000", false},
		{"provider: zero route_requests_per_second", providerBlock(keyAndURL + `
  route_requests_per_second = 0`),
			"route_requests_per_second", "must be between 1 and 10000", false},
		{"provider: no API key anywhere", providerBlock(fmt.Sprintf(`
  base_url = %q`, env.BaseURL)),
			"api_key", "Set `api_key` in the provider block", false},
		{"provider: unknown auth_api", providerBlock(keyAndURL + `
  auth_api = "v3"`),
			"auth_api", `value must be one of: ["project" "branch"], got: "v3"`, false},
		{"provider: unknown inherited_auth", providerBlock(keyAndURL + `
  inherited_auth = "ignore"`),
			"inherited_auth", `value must be one of: ["take_over" "refuse"], got: "ignore"`, false},
		{"provider: retry_timeout without a unit", providerBlock(keyAndURL + `
  retry_timeout = "90"`),
			"retry_timeout", "must be a duration from 1s to 24h0m0s written with a unit", false},
		{"provider: retry_timeout too short", providerBlock(keyAndURL + `
  retry_timeout = "10ms"`),
			"retry_timeout", `got "10ms"`, false},

		// neon_auth_integration.
		{"integration: unknown auth_provider", res("neon_auth_integration", pid+`
  auth_provider = "auth0"`),
			"auth_provider", `value must be one of: ["mock" "stack" "better_auth"], got: "auth0"`, false},
		{"integration: empty project_id", res("neon_auth_integration", `
  project_id = ""`),
			"project_id", "must be a Neon project id", false},
		{"integration: malformed project_id", res("neon_auth_integration", `
  project_id = "Not A Project!"`),
			"project_id", "must be a Neon project id", false},
		{"integration: empty branch_id", res("neon_auth_integration", pid+`
  branch_id = ""`),
			"branch_id", "Attribute branch_id string length must be at least 1, got: 0", false},
		{"integration: malformed branch_id", res("neon_auth_integration", pid+`
  branch_id = "BR main"`),
			"branch_id", "must be a Neon project id", false},
		{"integration: empty database_name", res("neon_auth_integration", pid+`
  database_name = ""`),
			"database_name", "Attribute database_name string length must be at least 1, got: 0", false},
		{"integration: empty role_name", res("neon_auth_integration", pid+`
  role_name = ""`),
			"role_name", "Attribute role_name string length must be at least 1, got: 0", false},
		{"integration: name too long", res("neon_auth_integration", pid+fmt.Sprintf(`
  name = %q`, strings.Repeat("n", 257))),
			"name", "UTF-8 character count must be between 1 and 256, got: 257", false},
		{"integration: name in project mode", res("neon_auth_integration", pid+`
  name = "Acme"`),
			"name", "`name` is only offered by Neon's branch-scoped endpoints", false},
		{"integration: allow_localhost in project mode", res("neon_auth_integration", pid+`
  allow_localhost = true`),
			"allow_localhost", "`allow_localhost` is only offered by Neon's branch-scoped endpoints", false},

		// neon_auth_sdk_keys.
		{"sdk keys: malformed project_id", res("neon_auth_sdk_keys", `
  project_id = "p_1"`),
			"project_id", "must be a Neon project id", false},
		{"sdk keys: unknown auth_provider", res("neon_auth_sdk_keys", pid+`
  auth_provider = "clerk"`),
			"auth_provider", `value must be one of: ["mock" "stack" "better_auth"], got: "clerk"`, false},
		{"sdk keys: a Better Auth integration", res("neon_auth_sdk_keys", pid+`
  auth_provider = "better_auth"`),
			"auth_provider", "Better Auth integrations have no SDK keys", false},

		// neon_auth_oauth_provider.
		{"oauth: unknown provider id", oauth("facebook", ""), "provider_id", `must be one of: ["google" "github" "microsoft" "vercel"], got: "facebook"`, false},
		{"oauth: tenant for another provider", oauth("google", `
  microsoft_tenant_id = "t"`),
			"microsoft_tenant_id", "only for `provider_id = \"microsoft\"`", false},
		{"oauth: both secret forms", oauth("google", `
  client_id                = "c"
  client_secret            = "s"
  client_secret_wo         = "s"
  client_secret_wo_version = 1`),
			"client_secret_wo", "Conflicting client secret arguments", false},
		{"oauth: client_id without a secret", oauth("google", `
  client_id = "c"`),
			"client_id", "needs a client secret", false},
		{"oauth: secret without client_id", oauth("google", `
  client_secret = "s"`),
			"client_secret", "needs `client_id`", false},
		{"oauth: write-only secret without its version", oauth("google", `
  client_id        = "c"
  client_secret_wo = "s"`),
			"client_secret_wo_version", "Missing client_secret_wo_version", false},

		// neon_auth_domain.
		{"domain: no scheme", domain("app.example.com"), "domain", "https://app.example.com", false},
		{"domain: ftp scheme", domain("ftp://app.example.com"), "domain", `scheme "ftp"`, false},
		{"domain: a path", domain("https://app.example.com/login"), "domain", "must not have a path", false},
		{"domain: a query", domain("https://app.example.com?x=1"), "domain", "must not have a query", false},
		{"domain: a fragment", domain("https://app.example.com#top"), "domain", "must not have a fragment", false},
		{"domain: user information", domain("https://user@app.example.com"), "domain", "user information", false},
		{"domain: port out of range", domain("https://app.example.com:99999"), "domain", "has a port outside 1–65535", false},

		// neon_auth_email_server.
		{"email: port 0", email(`
  type         = "standard"
  port         = 0
  password     = "pw"` + standardRest),
			"port", "between 1 and 65535", false},
		{"email: port 70000", email(`
  type         = "standard"
  port         = 70000
  password     = "pw"` + standardRest),
			"port", "between 1 and 65535", false},
		{"email: standard without host", email(`
  type         = "standard"
  port         = 587
  username     = "u"
  password     = "pw"
  sender_email = "a@example.com"
  sender_name  = "n"`),
			"host", "`host` is required when `type` is \"standard\"", false},
		{"email: standard without password", email(`
  type         = "standard"
  port         = 587` + standardRest),
			"password", "is required when `type` is \"standard\"", false},
		{"email: shared with a host", email(`
  type = "shared"
  host = "smtp.example.com"`),
			"host", "`host` is not allowed when `type` is \"shared\"", false},
		{"email: sender_email not an address", email(`
  type         = "standard"
  port         = 587
  password     = "pw"
  host         = "h"
  username     = "u"
  sender_name  = "n"
  sender_email = "not-an-address"`),
			"sender_email", "Invalid email address", false},
		// A blank line, then standardRest, aligned on its own.
		{"email: both password forms", email(`
  type                = "standard"
  port                = 587
  password            = "pw"
  password_wo         = "pw"
  password_wo_version = 1
` + standardRest),
			"password_wo", "Conflicting password arguments", false},
		{"email: unknown type", email(`
  type = "custom"`),
			"type", `value must be one of: ["shared" "standard"]`, false},

		// neon_auth_user.
		{"user: no email", user(`
  name = "Ann"`),
			"email", "`email` is required to create a user", false},
		{"user: empty email", user(`
  email = ""`),
			"email", "Invalid email address", false},
		{"user: malformed email", user(`
  email = "not-an-email"`),
			"email", "Invalid email address", false},
		{"user: email with a display name", user(`
  email = "Ann <ann@example.com>"`),
			"email", "Invalid email address", false},
		{"user: empty name", user(`
  email = "ann@example.com"
  name  = ""`),
			"name", "must be between 1 and 255", false},
		{"user: name of 256 characters", user(fmt.Sprintf(`
  email = "ann@example.com"
  name  = %q`, strings.Repeat("n", 256))),
			"name", "must be between 1 and 255", false},
		{"user: roles in project mode", user(`
  email = "ann@example.com"
  roles = ["admin"]`),
			"roles", "`roles` is only offered by Neon's branch-scoped endpoints", false},
		{"user: empty roles", user(`
  email = "ann@example.com"
  roles = []`),
			"roles", "list must contain at least 1 elements", false},

		// neon_auth_ownership_transfer.
		{"transfer: unknown auth_provider", res("neon_auth_ownership_transfer", pid+`
  auth_provider = "okta"`),
			"auth_provider", `value must be one of: ["mock" "stack" "better_auth"], got: "okta"`, false},
		{"transfer: a Better Auth integration", res("neon_auth_ownership_transfer", pid+`
  auth_provider = "better_auth"`),
			"auth_provider", "no managed project to transfer", false},
		{"transfer: empty project_id", res("neon_auth_ownership_transfer", `
  project_id = ""`),
			"project_id", "must be a Neon project id", false},

		// neon_auth_data_api.
		{"data api: no auth_provider", dataAPI(""), "auth_provider", "Creating a Data API needs `auth_provider`", false},
		{"data api: unknown auth_provider", dataAPI(`
  auth_provider = "clerk"`),
			"auth_provider", `value must be one of: ["neon_auth" "external"], got: "clerk"`, false},
		{"data api: external without jwks_url", dataAPI(`
  auth_provider = "external"
  provider_name = "Clerk"`),
			"jwks_url", "`auth_provider = \"external\"` needs `jwks_url`", false},
		{"data api: external without provider_name", dataAPI(`
  auth_provider = "external"
  jwks_url      = "https://www.googleapis.com/oauth2/v3/certs"`),
			"provider_name", "`auth_provider = \"external\"` needs `provider_name`", false},
		{"data api: a JWKS URL with Neon Auth", dataAPI(`
  auth_provider = "neon_auth"
  jwks_url      = "https://www.googleapis.com/oauth2/v3/certs"`),
			"jwks_url", "it goes with `auth_provider = \"external\"`", false},
		{"data api: a JWKS URL over http", dataAPI(`
  auth_provider = "external"
  provider_name = "Clerk"
  jwks_url      = "http://clerk.example.com/.well-known/jwks.json"`),
			"jwks_url", "must be the `https://` URL of a JSON Web Key Set", false},
		{"data api: empty database_name", res("neon_auth_data_api", pid+`
  database_name = ""
  auth_provider = "neon_auth"`),
			"database_name", "Attribute database_name string length must be at least 1, got: 0", false},
		{"data api: no rows", dataAPI(`
  auth_provider = "neon_auth"
  settings = {
    db_max_rows = 0
  }`),
			"db_max_rows", "value must be at least 1, got: 0", false},
		{"data api: unknown openapi_mode", dataAPI(`
  auth_provider = "neon_auth"
  settings = {
    openapi_mode = "on"
  }`),
			"openapi_mode", `value must be one of: ["ignore-privileges" "disabled"], got: "on"`, false},
		{"data api: a schema twice", dataAPI(`
  auth_provider = "neon_auth"
  settings = {
    db_schemas = ["public", "public"]
  }`),
			"db_schemas", "`settings.db_schemas` lists the schema \"public\" twice", false},

		// neon_auth_external_jwks.
		{"external jwks: no jwks_url", res("neon_auth_external_jwks", pid+`
  provider_name = "Clerk"`),
			"jwks_url", `The argument "jwks_url" is required`, false},
		{"external jwks: a JWKS URL over http", res("neon_auth_external_jwks", pid+`
  provider_name = "Clerk"
  jwks_url      = "http://clerk.example.com/.well-known/jwks.json"`),
			"jwks_url", "must be the `https://` URL of a JSON Web Key Set", false},
		{"external jwks: empty provider_name", res("neon_auth_external_jwks", pid+`
  provider_name = ""
  jwks_url      = "https://www.googleapis.com/oauth2/v3/certs"`),
			"provider_name", "Attribute provider_name string length must be at least 1, got: 0", false},
		{"external jwks: eleven roles", res("neon_auth_external_jwks", pid+`
  provider_name = "Clerk"
  jwks_url      = "https://www.googleapis.com/oauth2/v3/certs"
  role_names    = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]`),
			"role_names", "list must contain at least 1 elements and at most 10 elements", false},
		{"external jwks: malformed branch_id", res("neon_auth_external_jwks", pid+`
  provider_name = "Clerk"
  jwks_url      = "https://www.googleapis.com/oauth2/v3/certs"
  branch_id     = "Preview Branch"`),
			"branch_id", "must be a Neon project id", false},

		// Data sources.
		{"data neon_auth_integrations: malformed project_id", `data "neon_auth_integrations" "test" { project_id = "no way" }`, "project_id", "must be a Neon project id", false},
		{"data neon_projects: malformed org_id", `data "neon_projects" "test" { org_id = "Org 1" }`, "org_id", "must be a Neon project id", false},
	}
	// The Better Auth settings: project mode cannot reach them, and the
	// spec's ranges and values (acctest.SettingsCases), in branch mode.
	for _, c := range acctest.SettingsCases {
		cases = append(cases, badInput{c.TypeName + ": project mode", res(c.TypeName, pid+`
  enabled = true`),
			"project_id", "`" + c.TypeName + "` is only offered by Neon's branch-scoped endpoints", false})
		for _, bad := range c.Invalid {
			cases = append(cases, badInput{c.TypeName + ": " + bad.Name, res(c.TypeName, pid+"\n  "+bad.Args), bad.Field, bad.Want, true})
		}
	}
	if len(cases) < 30 {
		t.Fatalf("the table holds %d bad inputs; it is meant to cover every attribute with at least 30", len(cases))
	}
	// What the provider sends is counted on its side: nothing, on any target.
	counted, sent := env.Counted()
	neon := map[string]func() (tfprotov6.ProviderServer, error){"neon": providerserver.NewProtocol6WithError(counted)}
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if c.field == "api_key" && os.Getenv(envAPIKey) != "" {
					t.Skip(envAPIKey + " is set in this environment, so the provider has a key")
				}
				t.Parallel()
				cfg := c.cfg
				switch {
				case c.branch:
					cfg = env.ProviderBlock(`auth_api = "branch"`) + cfg
				case !strings.HasPrefix(strings.TrimSpace(cfg), "provider "):
					cfg = env.ProviderBlock(`auth_api = "project"`) + cfg
				}
				// The attribute is named (in the diagnostic's "with …" line
				// or its text), and so is the fix.
				want := acctest.MatchInOrder(c.want).String()
				re := regexp.MustCompile(`(?s)(` + regexp.QuoteMeta(c.field) + `.*` + want + `|` + want + `.*` + regexp.QuoteMeta(c.field) + `)`)
				if strings.Contains(c.want, c.field) {
					re = regexp.MustCompile(`(?s)` + want)
				}
				tc := env.TestCase(resource.TestStep{Config: cfg, PlanOnly: true, ExpectError: re})
				tc.ProtoV6ProviderFactories = neon
				resource.UnitTest(t, tc)
			})
		}
	})
	// All subtests have finished here.
	if n := sent.All.Load(); n != 0 {
		t.Errorf("%d bad inputs caused %d API request(s); every one must fail before any call", len(cases), n)
	}
	t.Logf("%d bad inputs refused at plan time, 0 API requests", len(cases))
}
