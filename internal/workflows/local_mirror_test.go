package workflows

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
)

// readmeRecipe is the install recipe of the README's section "Using a local
// build (before a release)": its first sh block, which this test runs.
var readmeRecipe = []string{
	"./scripts/local-mirror.sh",
	"export TF_CLI_CONFIG_FILE=~/.local/share/terraform-provider-neon/mirror/terraformrc",
	"terraform -chdir=examples/quickstart init",
}

// The README's install recipe, on a fresh machine: an empty home directory,
// no CLI configuration but the one the recipe writes, no plugin cache and
// no network (every HTTP request goes to a proxy that refuses it, and Go
// may not download modules). scripts/local-mirror.sh builds the provider
// into a filesystem mirror, numbered as the coming release, and
// `terraform init` installs it from there for examples/quickstart and for
// every other example that uses only this provider, whatever their version
// pin; `terraform validate` then runs the installed provider.
func TestLocalMirror_terraformInitOnAFreshMachine(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("runs the Terraform CLI on the examples: set TF_ACC=1 (make test does)")
	}
	t.Parallel()
	if v := cliVersion(t); v.LessThan(version.Must(version.NewVersion("1.11"))) {
		t.Skipf("the recipe initializes examples/quickstart, whose ephemeral variables and write-only arguments need "+
			"Terraform 1.11; this CLI is %s", v)
	}
	root := repoRoot(t)
	recipe := readmeBlock(t, root, "## Using a local build (before a release)")
	for _, line := range readmeRecipe {
		if !strings.Contains(recipe, line) {
			t.Fatalf("the README's recipe no longer holds %q; update readmeRecipe with it:\n%s", line, recipe)
		}
	}
	work, home := t.TempDir(), t.TempDir()
	examples := exampleDirsUsingOnlyThisProvider(t, root)
	for _, dir := range examples {
		copyDir(t, filepath.Join(root, dir), filepath.Join(work, dir))
	}
	env := freshMachineEnv(t, home)

	// The recipe as the README writes it, but for the path of the script:
	// the test runs it from a copy of the examples, not from the repository.
	script := strings.Replace(recipe, "./scripts/local-mirror.sh", filepath.Join(root, "scripts", "local-mirror.sh"), 1)
	out := runIn(t, work, env, "bash", "-euo", "pipefail", "-c", script)
	built := regexp.MustCompile(`Built neon-auth/neon ([0-9.]+) `).FindStringSubmatch(out)
	if built == nil {
		t.Fatalf("local-mirror.sh did not say which version it built:\n%s", out)
	}
	release := version.Must(version.NewVersion(built[1]))
	if changelog := readFile(t, filepath.Join(root, "CHANGELOG.md")); !strings.Contains(changelog, "\n## "+built[1]+" (unreleased)\n") {
		t.Errorf("the build is numbered %s, but CHANGELOG.md has no heading \"## %s (unreleased)\"", built[1], built[1])
	}

	cliConfig := filepath.Join(home, ".local", "share", "terraform-provider-neon", "mirror", "terraformrc")
	env = append(env, "TF_CLI_CONFIG_FILE="+cliConfig)
	for _, dir := range examples {
		if dir != filepath.Join("examples", "quickstart") { // the recipe's own init did that one
			runIn(t, work, env, terraformCLI(t), "-chdir="+dir, "init", "-input=false", "-no-color")
		}
		lock := readFile(t, filepath.Join(work, dir, ".terraform.lock.hcl"))
		if !regexp.MustCompile(`provider "registry\.terraform\.io/neon-auth/neon" \{\s*version\s*=\s*"` + regexp.QuoteMeta(built[1]) + `"`).MatchString(lock) {
			t.Errorf("%s: the lock file does not record neon-auth/neon %s:\n%s", dir, built[1], lock)
		}
	}
	runIn(t, work, env, terraformCLI(t), "-chdir="+filepath.Join("examples", "provider"), "validate", "-no-color")

	for _, pin := range versionPins(t, root) {
		if !pin.constraint.Check(release) {
			t.Errorf("%s pins neon-auth/neon %q, which the coming release %s does not satisfy", pin.where, pin.text, release)
		}
	}
}

// cliVersion is the version of the Terraform CLI the tests run.
func cliVersion(t *testing.T) *version.Version {
	t.Helper()
	var out struct {
		Version string `json:"terraform_version"`
	}
	raw := runIn(t, "", append(inheritedEnv(), "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE=/dev/null"), terraformCLI(t), "version", "-json")
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("terraform version -json: %v\n%s", err, raw)
	}
	return version.Must(version.NewVersion(out.Version))
}

// freshMachineEnv is the environment of a machine that has Go's module and
// build caches (so nothing is downloaded or rebuilt) and the CLI on PATH,
// and nothing else: no Terraform settings, no network.
func freshMachineEnv(t *testing.T, home string) []string {
	t.Helper()
	goEnv := strings.Fields(runIn(t, "", nil, lookPath(t, "go"), "env", "GOCACHE", "GOMODCACHE", "GOPATH"))
	if len(goEnv) != 3 {
		t.Fatalf("go env: %q", goEnv)
	}
	path := filepath.Dir(terraformCLI(t)) + string(os.PathListSeparator) + filepath.Dir(lookPath(t, "go")) +
		string(os.PathListSeparator) + "/usr/bin:/bin"
	return []string{
		"HOME=" + home, "PATH=" + path, "TMPDIR=" + os.TempDir(),
		"GOCACHE=" + goEnv[0], "GOMODCACHE=" + goEnv[1], "GOPATH=" + goEnv[2],
		"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=",
		"CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		// Nothing answers on port 9 of loopback: any request to a registry fails.
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=",
	}
}

// exampleDirsUsingOnlyThisProvider are the example directories (relative to
// root) whose configuration requires neon-auth/neon and no other provider,
// so that `terraform init` needs nothing but the mirror.
func exampleDirsUsingOnlyThisProvider(t *testing.T, root string) []string {
	t.Helper()
	source := regexp.MustCompile(`(?m)^\s*source\s*=\s*"([^"]+)"`)
	var dirs []string
	err := filepath.WalkDir(filepath.Join(root, "examples"), func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		files, _ := filepath.Glob(filepath.Join(path, "*.tf"))
		var sources []string
		for _, f := range files {
			for _, m := range source.FindAllStringSubmatch(readFile(t, f), -1) {
				sources = append(sources, m[1])
			}
		}
		for _, s := range sources {
			if !strings.HasSuffix(s, "neon-auth/neon") {
				return nil
			}
		}
		if len(sources) > 0 {
			rel, _ := filepath.Rel(root, path)
			dirs = append(dirs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 5 || !slices.Contains(dirs, filepath.Join("examples", "quickstart")) {
		t.Fatalf("examples using only neon-auth/neon: %q; want examples/quickstart and more", dirs)
	}
	return dirs
}

// pin is a version constraint on neon-auth/neon in a file.
type pin struct {
	where, text string
	constraint  version.Constraints
}

// versionPins are the version constraints on neon-auth/neon in every
// example, template, document and the README: a `version = "…"` line within
// three lines after a source naming neon-auth/neon.
func versionPins(t *testing.T, root string) []pin {
	t.Helper()
	out := runIn(t, root, nil, "git", "ls-files", "--", "*.tf", "*.md", "*.tmpl")
	versionLine := regexp.MustCompile(`^\s*version\s*=\s*"([^"]+)"`)
	var pins []pin
	for _, rel := range strings.Fields(out) {
		lines := strings.Split(readFile(t, filepath.Join(root, rel)), "\n")
		for i, line := range lines {
			if !strings.Contains(line, `neon-auth/neon"`) || !strings.Contains(line, "source") {
				continue
			}
			for j := i + 1; j < len(lines) && j <= i+3; j++ {
				if m := versionLine.FindStringSubmatch(lines[j]); m != nil {
					c, err := version.NewConstraint(m[1])
					if err != nil {
						t.Errorf("%s:%d: %q is not a version constraint: %v", rel, j+1, m[1], err)
						break
					}
					pins = append(pins, pin{where: rel + ":" + strconv.Itoa(j+1), text: m[1], constraint: c})
					break
				}
			}
		}
	}
	if len(pins) < 10 {
		t.Fatalf("found %d version pins of neon-auth/neon; the examples, docs and README hold more", len(pins))
	}
	return pins
}

// readmeBlock is the first fenced sh block after heading in the README.
func readmeBlock(t *testing.T, root, heading string) string {
	t.Helper()
	readme := readFile(t, filepath.Join(root, "README.md"))
	_, section, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("the README has no section %q", heading)
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		t.Fatalf("the README's section %q has no sh block", heading)
	}
	return block
}

// runIn runs a command in dir with env (nil: this process's) and returns
// its stdout, failing the test with both outputs if it fails.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// copyDir copies the regular files of src (not its subdirectories) to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			writeFile(t, filepath.Join(dst, e.Name()), readFile(t, filepath.Join(src, e.Name())))
		}
	}
}
