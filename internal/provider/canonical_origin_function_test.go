package provider

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// provider::neon::canonical_origin through the CLI: the canonical form of
// each spelling, with no provider block and no API key (the function sends
// no request). A CLI that configures the provider to run its functions
// (OpenTofu before 1.11) gets a key, which it never uses: there is no API to
// call here.
func TestAccFunctionCanonicalOrigin_values(t *testing.T) {
	env := acctest.NewEnvWithoutAPI(t)
	t.Setenv(envAPIKey, "")
	if acctest.Lacks(t, acctest.UnconfiguredFunctions) != "" {
		t.Setenv(envAPIKey, "never-sent")
	}
	cases := []struct{ in, want string }{
		{"https://app.example.com", "https://app.example.com"},
		{"HTTPS://App.Example.COM/", "https://app.example.com"},
		{"http://localhost:3000", "http://localhost:3000"},
		{"http://[::1]:8080/", "http://[::1]:8080"},
	}
	cfg := ""
	var checks []statecheck.StateCheck
	for i, c := range cases {
		cfg += fmt.Sprintf(`
output "o%d" {
  value = provider::neon::canonical_origin(%q)
}
`, i, c.in)
		checks = append(checks, statecheck.ExpectKnownOutputValue(fmt.Sprintf("o%d", i), knownvalue.StringExact(c.want)))
	}
	tc := env.TestCase(resource.TestStep{Config: cfg, ConfigStateChecks: checks})
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.ProviderFunctions)
	resource.Test(t, tc)
}

// What is not an origin fails at plan, with the argument named and the
// reason given.
func TestAccFunctionCanonicalOrigin_invalid(t *testing.T) {
	env := acctest.NewEnvWithoutAPI(t)
	var steps []resource.TestStep
	for in, why := range map[string]string{
		"ftp://files.example.com":      `has the scheme "ftp"`,
		"https://app.example.com/home": `must not have a path (found "/home")`,
		"app.example.com":              "has no scheme",
		"":                             "must not be empty",
	} {
		steps = append(steps, resource.TestStep{
			Config: fmt.Sprintf(`
output "o" {
  value = provider::neon::canonical_origin(%q)
}
`, in),
			ExpectError: regexp.MustCompile(`(?s)` + regexp.QuoteMeta(`"url"`) + `.*` + acctest.MatchInOrder(fmt.Sprintf("The url argument %q %s", in, why)).String()),
		})
	}
	tc := env.TestCase(steps...)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.ProviderFunctions)
	resource.Test(t, tc)
}

// examples/functions/canonical_origin, applied as written (on the
// production branch, which it leaves to the default): keying for_each by the
// function folds two spellings of one origin into one neon_auth_domain, and
// the keys are the domains the API lists (the function gives the form the
// API stores). The variable's validation refuses what is not an origin.
// Driven with the CLI directly, since terraform-plugin-testing cannot read
// for_each instances with string keys.
func TestAccFunctionCanonicalOrigin_example(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	cli := env.CLI(nil, nil)
	if why := acctest.Lacks(t, acctest.ProviderFunctions); why != "" {
		t.Skip(why)
	}
	env.EnableAuth()
	cli.Write("main.tf", acctest.RequiredProviders+env.Config(exampleBody(t, "functions/canonical_origin"))+`
output "keys" {
  value = keys(neon_auth_domain.each)
}
`)
	cli.Must(0, "init")
	project := "-var=project_id=" + env.ProjectID
	if out := cli.Must(1, "plan", "-input=false", project, `-var=origins=["https://app.example.com/login"]`); !strings.Contains(strings.Join(strings.Fields(out), " "),
		"Each origin must be https:// or http://, a host and an optional port, with no path.") {
		t.Errorf("an origin with a path passed the variable's validation:\n%s", out)
	}
	if out := cli.Must(0, "apply", "-auto-approve", "-input=false", project); !strings.Contains(out, "2 added, 0 changed, 0 destroyed") {
		t.Fatalf("apply did not create two domains:\n%s", out)
	}
	var keys []string
	if err := json.Unmarshal([]byte(cli.Must(0, "output", "-json", "keys")), &keys); err != nil {
		t.Fatal(err)
	}
	// Created in parallel: listed in any order.
	if want := []string{"http://localhost:3000", "https://app.example.com"}; !slices.Equal(keys, want) {
		t.Fatalf("for_each keys %q, want %q", keys, want)
	}
	if err := env.ExpectDomains("http://localhost:3000", "https://app.example.com")(); err != nil {
		t.Fatal(err)
	}
	cli.Must(0, "plan", "-detailed-exitcode", "-input=false", project)
	cli.Must(0, "destroy", "-auto-approve", "-input=false", project)
	if err := env.ExpectDomains()(); err != nil {
		t.Errorf("after destroy: %v", err)
	}
}
