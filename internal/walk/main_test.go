package walk

import (
	"net/http"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	neon "github.com/neon-auth/terraform-provider-neon/internal/provider"
)

// TestMain runs the walks on this repository's provider (internal/acctest
// ends the run on a remote target).
func TestMain(m *testing.M) {
	os.Exit(acctest.RunTests(m, func(httpClient *http.Client) provider.Provider { return neon.NewWithHTTPClient("test", httpClient)() }))
}
