package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// The CLI under test: Terraform or OpenTofu. The acceptance tests drive
// whichever binary terraform-plugin-testing selects (TF_ACC_TERRAFORM_PATH,
// else terraform on PATH). The two CLIs number their releases independently,
// so a feature is gated on what the CLI can do, never on a bare version
// number.

// providerHostOpenTofu is the registry host OpenTofu resolves the provider's
// short name "neon" on; terraform-plugin-testing must serve the provider
// under that address (TF_ACC_PROVIDER_HOST) for OpenTofu to use it.
const providerHostOpenTofu = "registry.opentofu.org"

// cliBinary is the CLI a test can run itself: TF_ACC_TERRAFORM_PATH, else
// the terraform on PATH.
func cliBinary() (string, error) {
	if path := os.Getenv("TF_ACC_TERRAFORM_PATH"); path != "" {
		return path, nil
	}
	path, err := exec.LookPath("terraform")
	if err != nil {
		return "", fmt.Errorf("no terraform on PATH and TF_ACC_TERRAFORM_PATH unset: %w", err)
	}
	return path, nil
}

// cliUnderTest is the CLI terraform-plugin-testing drives, asked once per
// test run: whether it is OpenTofu, and its release (as `version -json`
// gives it; the one TF_ACC_TERRAFORM_VERSION names when the harness installs
// a Terraform release itself).
var cliUnderTest = sync.OnceValues(func() (cliRelease, error) {
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" && os.Getenv("TF_ACC_TERRAFORM_VERSION") != "" {
		v, err := version.NewVersion(os.Getenv("TF_ACC_TERRAFORM_VERSION"))
		return cliRelease{version: v}, err
	}
	path, err := cliBinary()
	if err != nil {
		return cliRelease{}, err
	}
	cmd := exec.Command(path, "version", "-json")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	if err != nil {
		return cliRelease{}, fmt.Errorf("asking %s for its version: %w", path, err)
	}
	// OpenTofu answers as Terraform does, under its own name for the
	// release: {"terraform_version": "1.12.6", …}; its plain `version`
	// says "OpenTofu v1.12.6".
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return cliRelease{}, fmt.Errorf("reading the version of %s: %w", path, err)
	}
	parsed, err := version.NewVersion(v.Version)
	if err != nil {
		return cliRelease{}, fmt.Errorf("version %q of %s: %w", v.Version, path, err)
	}
	cmd = exec.Command(path, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	plain, err := cmd.Output()
	return cliRelease{openTofu: strings.HasPrefix(string(plain), "OpenTofu v"), version: parsed}, err
})

// cliRelease is what a CLI is: Terraform or OpenTofu, and which release.
type cliRelease struct {
	openTofu bool
	version  *version.Version
}

// Capability is a language feature of the CLI, with the first Terraform and
// the first OpenTofu release that have it. As a tfversion check it skips the
// test, saying why, on a CLI without it.
type Capability struct {
	Name string
	// Terraform and OpenTofu are the first releases that have it; nil: no
	// release of that CLI has it.
	Terraform, OpenTofu *version.Version
}

var (
	// `ephemeral = true` on an input variable: Terraform 1.10, OpenTofu 1.11.
	EphemeralVariables = Capability{"ephemeral input variables", tfversion.Version1_10_0, tfversion.Version1_11_0}
	// Write-only arguments such as client_secret_wo: Terraform 1.11,
	// OpenTofu 1.11.
	WriteOnlyArguments = Capability{"write-only arguments", tfversion.Version1_11_0, tfversion.Version1_11_0}
	// provider::neon::… functions: Terraform 1.8, OpenTofu 1.7.
	ProviderFunctions = Capability{"provider-defined functions", tfversion.Version1_8_0, tfversion.Version1_7_0}
	// Calling a provider's functions without configuring it: Terraform 1.8,
	// OpenTofu 1.11 (before, OpenTofu configures the provider to run its
	// functions, so the provider needs its API key even there).
	UnconfiguredFunctions = Capability{"provider functions without a provider configuration", tfversion.Version1_8_0, version.Must(version.NewVersion("1.11.0"))}
	// Resource identity (import blocks with `identity = {…}`): Terraform
	// 1.12, OpenTofu 1.12.
	ResourceIdentity = Capability{"resource identity", tfversion.Version1_12_0, tfversion.Version1_12_0}
	// List resources (`terraform query`): Terraform 1.14; no OpenTofu
	// release has them.
	ListResources = Capability{"list resources (terraform query)", tfversion.Version1_14_0, nil}
)

func (c Capability) CheckTerraformVersion(_ context.Context, req tfversion.CheckTerraformVersionRequest, resp *tfversion.CheckTerraformVersionResponse) {
	cli, err := cliUnderTest()
	if err != nil {
		resp.Error = err
		return
	}
	resp.Skip = c.missing(cli.openTofu, req.TerraformVersion)
}

// missing says why a CLI lacks the capability, or is empty when it has it.
// Pre-releases count as the release they lead to, as in tfversion.
func (c Capability) missing(openTofu bool, v *version.Version) string {
	cli, first := "Terraform", c.Terraform
	if openTofu {
		cli, first = "OpenTofu", c.OpenTofu
	}
	if first == nil {
		return fmt.Sprintf("%s %s lacks %s (no %s release has it): skipping test", cli, v, c.Name, cli)
	}
	if v.Core().LessThan(first) {
		return fmt.Sprintf("%s %s lacks %s (%s %s or later): skipping test", cli, v, c.Name, cli, first)
	}
	return ""
}

// Lacks says why the CLI under test lacks a capability, or is empty when it
// has it: a test that drives the CLI itself skips with it, one that runs
// differently there reads it.
func Lacks(t *testing.T, c Capability) string {
	t.Helper()
	cli, err := cliUnderTest()
	if err != nil {
		t.Fatal(err)
	}
	return c.missing(cli.openTofu, cli.version)
}

// openTofuProviderHost fails a test at once, with the fix, when OpenTofu is
// driven without TF_ACC_PROVIDER_HOST=registry.opentofu.org; otherwise
// `tofu init` fails on the provider address with a message that names neither.
type openTofuProviderHost struct{}

func (openTofuProviderHost) CheckTerraformVersion(_ context.Context, _ tfversion.CheckTerraformVersionRequest, resp *tfversion.CheckTerraformVersionResponse) {
	cli, err := cliUnderTest()
	if err != nil {
		resp.Error = err
		return
	}
	if host := os.Getenv("TF_ACC_PROVIDER_HOST"); cli.openTofu && host != providerHostOpenTofu {
		resp.Error = fmt.Errorf("the CLI under test is OpenTofu: set TF_ACC_PROVIDER_HOST=%s (it is %q), as make test-tofu does", providerHostOpenTofu, host)
	}
}
