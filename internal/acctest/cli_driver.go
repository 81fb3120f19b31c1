package acctest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// A working directory driven by the CLI command by command, for the flows
// terraform-plugin-testing's steps do not model.

// CLIDir is a working directory driven by the Terraform (or OpenTofu) CLI
// command by command, the way a user types them, with this provider served
// from the test process. terraform-plugin-testing covers the usual steps;
// this is for flows it does not model, such as applying the configuration
// that `plan -generate-config-out` wrote.
type CLIDir struct {
	t   *testing.T
	dir string
	cli string
	env []string
}

// CLI is an empty working directory driven by the CLI, with p (nil: the
// test's provider, see Env.Provider) served in this process (the CLI
// attaches to it through TF_REATTACH_PROVIDERS), and others beside it by
// source address ("neondatabase/neon"), such as a stand-in for another
// provider a configuration uses.
func (e *Env) CLI(p provider.Provider, others map[string]tfprotov6.ProviderServer) *CLIDir {
	t := e.t
	t.Helper()
	if p == nil {
		p = e.Provider()
	}
	if os.Getenv("TF_ACC") == "" {
		t.Skip("Acceptance tests skipped unless env 'TF_ACC' set")
	}
	cli, err := cliBinary()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	rc := filepath.Join(dir, ".cli.tfrc") // no mirrors, no overrides: only the served providers
	if err := os.WriteFile(rc, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	servers := map[string]tfprotov6.ProviderServer{"neon-auth/neon": providerserver.NewProtocol6(p)()}
	maps.Copy(servers, others)
	// Each provider's gRPC server runs in this process until the test ends;
	// the reattach configuration names it under both registries' addresses.
	type reattachEntry struct {
		Protocol        string
		ProtocolVersion int
		Pid             int
		Test            bool
		Addr            struct{ Network, String string }
	}
	entries := map[string]reattachEntry{}
	for source, server := range servers {
		ctx, cancel := context.WithCancel(context.Background())
		reattach := make(chan *plugin.ReattachConfig, 1)
		closed := make(chan struct{})
		served := make(chan error, 1)
		go func() {
			served <- tf6server.Serve("registry.terraform.io/"+source, func() tfprotov6.ProviderServer { return server },
				tf6server.WithDebug(ctx, reattach, closed),
				tf6server.WithGoPluginLogger(hclog.New(&hclog.LoggerOptions{Output: io.Discard})),
				// The provider's logs go where TF_LOG_PATH_MASK says, as with
				// terraform-plugin-testing; by default nowhere.
				tf6server.WithLoggingSink(t),
				tf6server.WithoutLogStderrOverride())
		}()
		var cfg *plugin.ReattachConfig
		select {
		case cfg = <-reattach:
		case err := <-served:
			cancel()
			t.Fatalf("serving %s: %v", source, err)
		}
		t.Cleanup(func() {
			cancel()
			<-closed
		})
		entry := reattachEntry{Protocol: string(cfg.Protocol), ProtocolVersion: cfg.ProtocolVersion, Pid: cfg.Pid, Test: true}
		entry.Addr.Network, entry.Addr.String = cfg.Addr.Network(), cfg.Addr.String()
		entries["registry.terraform.io/"+source] = entry
		entries["registry.opentofu.org/"+source] = entry
	}
	reattachJSON, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	return &CLIDir{t: t, dir: dir, cli: cli, env: []string{
		"TF_REATTACH_PROVIDERS=" + string(reattachJSON),
		"TF_CLI_CONFIG_FILE=" + rc,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		"TF_LOG=",
	}}
}

// Dir is the working directory's path.
func (c *CLIDir) Dir() string { return c.dir }

// Write puts a file into the working directory.
func (c *CLIDir) Write(name, content string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, name), []byte(content), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// RequiredProviders names this provider by its registry address, as user
// configurations do (terraform-plugin-testing serves it as hashicorp/neon).
const RequiredProviders = `
terraform {
  required_providers {
    neon = {
      source = "neon-auth/neon"
    }
  }
}
`

// Read returns a file of the working directory.
func (c *CLIDir) Read(name string) string {
	c.t.Helper()
	data, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		c.t.Fatal(err)
	}
	return string(data)
}

// Run runs one CLI command and returns its exit code and combined output;
// a CLI that cannot be started fails the test.
func (c *CLIDir) Run(args ...string) (int, string) {
	c.t.Helper()
	cmd := exec.CommandContext(c.t.Context(), c.cli, append([]string{args[0], "-no-color"}, args[1:]...)...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), c.env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String()
	case err != nil:
		c.t.Fatalf("%s %s: %v", filepath.Base(c.cli), strings.Join(args, " "), err)
	}
	return 0, out.String()
}

// Must runs a command that has to exit with want, or fails with its output.
func (c *CLIDir) Must(want int, args ...string) string {
	c.t.Helper()
	code, out := c.Run(args...)
	if code != want {
		c.t.Fatalf("%s %s exited %d, want %d:\n%s", filepath.Base(c.cli), strings.Join(args, " "), code, want, out)
	}
	return out
}
