package provider

import (
	"flag"
	"net/http"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// TestMain runs the sweepers when -sweep is given (make sweep), and
// otherwise the tests, on this provider (internal/acctest ends the run on a
// remote target).
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("sweep"); f != nil && f.Value.String() != "" {
		resource.AddTestSweepers("neon_branches", &resource.Sweeper{Name: "neon_branches", F: sweeper(sweepBranches)})
		resource.AddTestSweepers("neon_projects", &resource.Sweeper{Name: "neon_projects", F: sweeper(sweepProjects),
			Dependencies: []string{"neon_branches"}})
		resource.AddTestSweepers("neon_api_keys", &resource.Sweeper{Name: "neon_api_keys", F: sweeper(sweepKeys)})
		resource.TestMain(m)
		return
	}
	os.Exit(acctest.RunTests(m, func(httpClient *http.Client) provider.Provider { return NewWithHTTPClient("test", httpClient)() }))
}
