package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A refused base URL is reported where it was set: base_url in the provider
// block, or NEON_API_BASE_URL when the block has none. Either way the
// message carries the corrected URL.
func TestUnitBaseURLErrorNamesWhereTheURLWasSet(t *testing.T) {
	t.Setenv(envBaseURL, "https://env.example/api/v1/")
	for _, tc := range []struct {
		name     string
		baseURL  types.String
		summary  string
		attached bool
		want     []string
	}{
		{"from NEON_API_BASE_URL", types.StringNull(), "Invalid NEON_API_BASE_URL", false,
			[]string{"environment variable NEON_API_BASE_URL", `did you mean "https://env.example/api/v2/"?`, "Correct NEON_API_BASE_URL"}},
		{"from base_url", types.StringValue("https://block.example/"), "Invalid Neon API base URL", true,
			[]string{`did you mean "https://block.example/api/v2/"?`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var diags diag.Diagnostics
			if _, ok := clientSettingsFrom(neonProviderModel{APIKey: types.StringValue("key"), BaseURL: tc.baseURL}, &diags); ok || len(diags) != 1 {
				t.Fatalf("ok = %v, diagnostics %v; want one error", ok, diags)
			}
			d := diags[0]
			withPath, attached := d.(diag.DiagnosticWithPath)
			if d.Summary() != tc.summary || attached != tc.attached || (attached && !withPath.Path().Equal(path.Root("base_url"))) {
				t.Errorf("summary %q, on an attribute: %v; want %q, %v", d.Summary(), attached, tc.summary, tc.attached)
			}
			for _, w := range tc.want {
				if !strings.Contains(d.Detail(), w) {
					t.Errorf("detail %q lacks %q", d.Detail(), w)
				}
			}
			if tc.attached && strings.Contains(d.Detail(), envBaseURL) {
				t.Errorf("detail %q names %s, but base_url was set in the provider block", d.Detail(), envBaseURL)
			}
		})
	}
}
