package provider

import (
	"fmt"
	"regexp"
	"testing"
)

// userAgentPattern is the User-Agent the provider sends under test: its
// version, then the version the CLI gives providers. That is a release or
// pre-release number (1.11.4, 1.12.0-rc1, 1.10.7-dev from a source build).
// OpenTofu 1.12.6 gives 1.13.0 there, the Terraform release whose provider
// features it matches, rather than its own version.
var userAgentPattern = regexp.MustCompile(`^terraform-provider-neon/test \(terraform/\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?\)$`)

func TestUnitUserAgentPattern(t *testing.T) {
	for _, v := range []string{"1.11.4", "1.13.0", "1.10.7", "1.10.7-dev", "1.12.0-rc1", "1.14.0-alpha20250911", "1.11.0-beta.2"} {
		if ua := fmt.Sprintf("%s/test (terraform/%s)", userAgentComponent, v); !userAgentPattern.MatchString(ua) {
			t.Errorf("%q rejected", ua)
		}
	}
	for _, v := range []string{"", "1.11", "v1.11.4", "1.11.4-", "1.11.4-rc1.", "1.11.4 ", "1.11.4\n", "latest", "1.11.4-dev) (x", "1.11.4-dev/x"} {
		if ua := fmt.Sprintf("%s/test (terraform/%s)", userAgentComponent, v); userAgentPattern.MatchString(ua) {
			t.Errorf("%q accepted", ua)
		}
	}
	for _, ua := range []string{"terraform-provider-neon/test (tofu/1.12.6)", "terraform-provider-neon/test (terraform/1.11.4) extra", "Go-http-client/1.1"} {
		if userAgentPattern.MatchString(ua) {
			t.Errorf("%q accepted", ua)
		}
	}
}
