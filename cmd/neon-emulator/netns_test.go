package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The emulator as users' CI runs it: on another host, over TLS, from a seed,
// with the built provider driven by the real Terraform CLI. The other host is
// a network namespace of the test's own (a veth pair, addresses of the test's
// choosing), so the traffic never leaves the machine. Where namespaces cannot
// be made the test says why and skips; the loopback variant covers TLS with a
// host name and SSL_CERT_FILE everywhere.

// The addresses of the test's own link between its two namespaces
// (10.200.23.0/30, private and unused elsewhere on these machines).
const (
	netnsEmulatorIP = "10.200.23.1"
	netnsClientIP   = "10.200.23.2"
	netnsPort       = "8443"
)

// ciSeedFile is the seed of the CI recipes (examples/ci), so that what they
// start from is what this test runs.
const ciSeedFile = "../../examples/ci/emulator-seed.hcl"

// ciKey is the API key ciSeedFile gives the CI job.
const ciKey = "sfbt1y7wimr2ao3bgf50b61wdncxlnxxsuf4l42kll8u7mhfg1crrvgxs8t39nqj"

// ciConfig is what a CI job applies: Neon Auth on the seeded project's
// production branch with a domain, and a read of the seeded preview branch.
func ciConfig(baseURL string) string {
	return fmt.Sprintf(`
terraform {
  required_providers {
    neon = { source = "neon-auth/neon" }
  }
}

provider "neon" {
  base_url = %[1]q
  auth_api = "branch"
}

resource "neon_auth_integration" "ci" {
  project_id = "app-ci-00000001"
}

resource "neon_auth_domain" "app" {
  project_id = neon_auth_integration.ci.project_id
  branch_id  = neon_auth_integration.ci.branch_id
  domain     = "https://app.example.com"
}

data "neon_auth_integration" "preview" {
  project_id = "app-ci-00000001"
  branch_id  = "br-app-preview-00000002"
}

output "preview_auth_provider" {
  value = data.neon_auth_integration.preview.auth_provider
}
`, baseURL)
}

func TestTerraformInAnotherNamespaceOverTLSFromASeed(t *testing.T) {
	tf := requireTerraform(t)
	if reason := netnsUnavailable(); reason != "" {
		t.Skipf("network namespaces cannot be made here (%s); TestTerraformOverTLSWithAHostNameOnLoopback covers TLS with a host name", reason)
	}
	bins := buildBinaries(t)
	id := fmt.Sprintf("%d", os.Getpid()%100000)
	emuNS, tfNS := "neon-emu-"+id, "neon-tf-"+id
	vethE, vethT := "ne"+id, "nt"+id
	for _, ns := range []string{emuNS, tfNS} {
		mustRun(t, "ip", "netns", "add", ns)
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
		mustRun(t, "ip", "-n", ns, "link", "set", "lo", "up")
	}
	mustRun(t, "ip", "link", "add", vethE, "type", "veth", "peer", "name", vethT)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", vethE).Run() })
	mustRun(t, "ip", "link", "set", vethE, "netns", emuNS)
	mustRun(t, "ip", "link", "set", vethT, "netns", tfNS)
	mustRun(t, "ip", "-n", emuNS, "addr", "add", netnsEmulatorIP+"/30", "dev", vethE)
	mustRun(t, "ip", "-n", tfNS, "addr", "add", netnsClientIP+"/30", "dev", vethT)
	mustRun(t, "ip", "-n", emuNS, "link", "set", vethE, "up")
	mustRun(t, "ip", "-n", tfNS, "link", "set", vethT, "up")
	// "neon-emulator" resolves in Terraform's namespace only: ip netns exec
	// puts /etc/netns/<ns>/hosts in place of /etc/hosts.
	hostsDir := filepath.Join("/etc/netns", tfNS)
	if err := os.MkdirAll(hostsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(hostsDir) })
	if err := os.WriteFile(filepath.Join(hostsDir, "hosts"), []byte("127.0.0.1 localhost\n"+netnsEmulatorIP+" neon-emulator\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	emu := startEmulatorIn(t, []string{"ip", "netns", "exec", emuNS}, bins,
		"-listen", "0.0.0.0:"+netnsPort, "-tls", "-tls-name", "neon-emulator", "-control-token", "ctl-netns-test")
	remote := emu["NEON_EMULATOR_REMOTE_BASE_URLS"]
	want := "https://neon-emulator:" + netnsPort + "/api/v2/"
	if !strings.HasPrefix(remote, want) {
		t.Fatalf("NEON_EMULATOR_REMOTE_BASE_URLS=%s; want %s first", remote, want)
	}
	// As in the CI recipes, the client takes the CA from the emulator over
	// the link (neon-emulator ca), not from the emulator's file.
	inClient := []string{"ip", "netns", "exec", tfNS}
	fetched := filepath.Join(bins.work, "fetched-ca.pem")
	mustRun(t, inClient[0], append(inClient[1:], bins.emulator, "ca", "-o", fetched, "https://neon-emulator:"+netnsPort+"/")...)
	if readFile(t, fetched) != readFile(t, emu["SSL_CERT_FILE"]) {
		t.Fatalf("neon-emulator ca fetched another certificate than the emulator's CA file")
	}
	applyPlanDestroy(t, tf, inClient, bins, want, fetched)
}

func TestTerraformOverTLSWithAHostNameOnLoopback(t *testing.T) {
	tf := requireTerraform(t)
	bins := buildBinaries(t)
	emu := startEmulatorIn(t, nil, bins, "-listen", "127.0.0.1:0", "-tls")
	base := strings.Replace(emu["NEON_API_BASE_URL"], "https://127.0.0.1:", "https://localhost:", 1)
	applyPlanDestroy(t, tf, nil, bins, base, emu["SSL_CERT_FILE"])
}

// requireTerraform returns the terraform CLI, or skips outside acceptance runs.
func requireTerraform(t *testing.T) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("drives the Terraform CLI: set TF_ACC=1")
	}
	if tf := os.Getenv("TF_ACC_TERRAFORM_PATH"); tf != "" {
		return tf
	}
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not on PATH and TF_ACC_TERRAFORM_PATH is unset")
	}
	return tf
}

// netnsUnavailable tells why namespaces cannot be made ("" when they can).
func netnsUnavailable() string {
	if runtime.GOOS != "linux" {
		return "not Linux"
	}
	if os.Geteuid() != 0 {
		return "not root"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return "iproute2's ip is not installed"
	}
	probe := fmt.Sprintf("neon-probe-%d", os.Getpid()%100000)
	if out, err := exec.Command("ip", "netns", "add", probe).CombinedOutput(); err != nil {
		return "ip netns add: " + strings.TrimSpace(string(out))
	}
	_ = exec.Command("ip", "netns", "del", probe).Run()
	return ""
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func mustRun(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// binaries are the built programs (dir) and the test's own directory (work).
type binaries struct{ dir, emulator, work string }

// buildBinaries builds the emulator and the provider (as
// terraform-provider-neon, for dev_overrides) into a directory of their own,
// once per test binary: each test gets a copy of the directory's path and
// writes its files elsewhere.
func buildBinaries(t *testing.T) binaries {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "neon-emulator-bins-") //nolint:usetesting // shared by the tests of this binary; TestMain removes it
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		for target, pkg := range map[string]string{filepath.Join(dir, "neon-emulator"): ".", filepath.Join(dir, "terraform-provider-neon"): "../.."} {
			cmd := exec.Command("go", "build", "-o", target, pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				built.err = fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
				return
			}
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return binaries{dir: built.dir, emulator: filepath.Join(built.dir, "neon-emulator"), work: t.TempDir()}
}

// built is the one build of buildBinaries; TestMain removes it.
var built struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	if os.Getenv(crashHelperEnv) == "1" {
		crashHelperProcess()
	}
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// startEmulatorIn runs the built emulator (behind prefix, such as ip netns
// exec) from ciSeedFile and returns its ready lines once it serves.
func startEmulatorIn(t *testing.T, prefix []string, b binaries, args ...string) map[string]string {
	t.Helper()
	seed, err := filepath.Abs(ciSeedFile)
	if err != nil {
		t.Fatal(err)
	}
	argv := append(append(append([]string{}, prefix...), b.emulator, "-seed", seed, "-tls-ca-file", filepath.Join(b.work, "ca.pem")), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	lines := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		lines[k] = v
		if _, ok := lines["SSL_CERT_FILE"]; ok && (len(prefix) == 0 || lines["NEON_EMULATOR_REMOTE_BASE_URLS"] != "") {
			break
		}
	}
	if lines["SSL_CERT_FILE"] == "" {
		t.Fatalf("the emulator did not get ready: lines %v, stderr %s", lines, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return lines
}

// applyPlanDestroy applies ciConfig with the seeded key, checks that a
// re-plan is empty and destroys, with Terraform behind prefix.
func applyPlanDestroy(t *testing.T, tf string, prefix []string, b binaries, baseURL, caFile string) {
	t.Helper()
	work := t.TempDir()
	rc := filepath.Join(work, "terraformrc")
	cliConfig := fmt.Appendf(nil, `provider_installation {
  dev_overrides {
    "neon-auth/neon" = %q
  }
  direct {}
}
`, b.dir)
	if err := os.WriteFile(rc, cliConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(ciConfig(baseURL)), 0o600); err != nil {
		t.Fatal(err)
	}
	terraform := func(args ...string) (string, error) {
		argv := append(append(append([]string{}, prefix...), tf, "-chdir="+work), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
			"NEON_API_KEY="+ciKey, "SSL_CERT_FILE="+caFile, "NEON_API_BASE_URL=", "TF_LOG=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := terraform("apply", "-auto-approve", "-input=false", "-no-color"); err != nil {
		t.Fatalf("terraform apply against %s: %v\n%s", baseURL, err, out)
	}
	out, err := terraform("output", "-raw", "preview_auth_provider")
	if err != nil || out != "better_auth" {
		t.Errorf("the seeded preview branch's Neon Auth = %q, %v; want better_auth", out, err)
	}
	if out, err := terraform("plan", "-detailed-exitcode", "-input=false", "-no-color"); err != nil {
		t.Errorf("re-plan is not empty (%v):\n%s", err, out)
	}
	if out, err := terraform("destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
		t.Fatalf("terraform destroy: %v\n%s", err, out)
	}
}
