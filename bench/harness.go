package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// This file holds what every section shares: building the provider, starting the emulator and running Terraform.

// bootstrapKey is the emulator's admin key in every measurement.
const bootstrapKey = "napi_bench_bootstrap_key"

// buildProvider builds the provider with extra ldflags into work/dir and
// writes a CLI config whose dev_overrides point at it; it returns the
// config's path.
func buildProvider(work, dir, ldflags string) (string, error) {
	build := exec.CommandContext(context.Background(), "go", "build", "-tags", "neonbench", "-ldflags", ldflags, "-o", filepath.Join(work, dir, "terraform-provider-neon"), ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building the provider: %w", err)
	}
	return writeOverrides(work, dir, thisSource)
}

// The provider sources the bench's configurations name.
const (
	thisSource = "neon-auth/neon"
	peerSource = "kenchan0130/neon" // kenchan0130/terraform-provider-neon
)

// writeOverrides writes a CLI config whose dev_overrides point source at
// the provider binary in work/dir; it returns the config's path.
func writeOverrides(work, dir, source string) (string, error) {
	rc := filepath.Join(work, dir+".terraformrc")
	return rc, os.WriteFile(rc, []byte(fmt.Sprintf(`provider_installation {
  dev_overrides {
    %q = %q
  }
  direct {}
}
`, source, filepath.Join(work, dir))), 0o600)
}

// givenProvider links a provider binary built elsewhere (-before, -peer)
// into work/dir under the name Terraform looks for, and writes its CLI
// config; "" when no binary was given.
func givenProvider(work, dir, source, binary string) (string, error) {
	if binary == "" {
		return "", nil
	}
	abs, err := filepath.Abs(binary)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err == nil {
		err = os.MkdirAll(filepath.Join(work, dir), 0o755)
	}
	if err == nil {
		err = os.Symlink(abs, filepath.Join(work, dir, "terraform-provider-neon"))
	}
	if err != nil {
		return "", fmt.Errorf("the provider binary %s: %w", binary, err)
	}
	return writeOverrides(work, dir, source)
}

// server is an emulator on a loopback port, behind an observer that sees
// what the emulator's own counters (by route template) do not.
type server struct {
	emu     *emulator.Emulator
	srv     *http.Server
	baseURL string
	seen    observer
}

// resetStats sets the emulator's counters and the observer's to zero.
func (s *server) resetStats() {
	s.emu.ResetStats()
	s.seen.reset()
}

// limitReading is how the emulator reads the documented limits in the
// sections that count requests rather than time them: the first reading of
// -rate-limit-reading (token buckets by default).
var limitReading = emulator.ReadingBuckets

// readingWords says in a report how the emulator read the limits.
func readingWords(r emulator.RateLimitReading) string {
	if r == emulator.ReadingWindows {
		return "sliding windows (`-rate-limit-reading windows`: 429 only past 700 in any 60 s on the account or 40 in any second on a route)"
	}
	return "token buckets (`-rate-limit-reading buckets`: the account's filled at 700/60 per second holding 40, a route's at 40/s holding 40)"
}

// readingNames are the readings' names, in order.
func readingNames(rs []emulator.RateLimitReading) []string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = string(r)
	}
	return names
}

// startEmulator serves an emulator with the given seed projects and the
// bench's key, at the documented limits (read as reading) when limited and
// without limits otherwise.
func startEmulator(reading emulator.RateLimitReading, projects int, limited bool, stateFile string) (*server, error) {
	opts := emulator.Options{SeedProjects: projects, StateFile: stateFile, RateLimitReading: reading}
	if !limited {
		opts.AccountRequestsPerMinute, opts.RouteRequestsPerSecond = -1, -1
	}
	return serve(opts)
}

// serve serves an emulator made with opts and the bench's key.
func serve(opts emulator.Options) (*server, error) {
	opts.BootstrapKey = bootstrapKey
	emu, err := emulator.New(opts)
	if err != nil {
		return nil, err
	}
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{emu: emu, baseURL: "http://" + ln.Addr().String() + "/api/v2/"}
	s.seen.reset()
	s.srv = &http.Server{Handler: s.seen.wrap(emu), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// env is what a Terraform run needs to reach the emulator.
func (s *server) env() []string {
	return []string{"NEON_API_KEY=" + s.emu.BootstrapKey(), "NEON_API_BASE_URL=" + s.baseURL}
}

func (s *server) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	_ = s.emu.Close()
}

// phase is one measured Terraform command.
type phase struct {
	name     string
	wall     time.Duration
	exit     int
	requests emulator.Stats
	seen     observation
	path     chain  // the critical path of its requests
	log      string // the command's combined output
}

func (p phase) total() int { return p.requests.Total }

func (p phase) count429() int { return count429(p.requests) }

func count429(s emulator.Stats) int {
	n := 0
	for _, byStatus := range s.Requests {
		n += byStatus[http.StatusTooManyRequests]
	}
	return n
}

// terraform runs one command and returns its wall time and the API requests
// the emulator counted during it. An exit code outside okExit is an error.
func terraform(dir, rc string, env []string, s *server, name string, args []string, okExit []int) (phase, error) {
	s.resetStats()
	run := runTerraform(dir, rc, env, name, args)
	if run.err != nil {
		return phase{}, run.err
	}
	p := phase{name: name, wall: run.wall, exit: run.exit, requests: s.emu.Stats(), seen: s.seen.snapshot(), log: run.log}
	p.path = p.seen.criticalPath()
	fmt.Fprintf(os.Stderr, "  %-46s %8.2fs  %5d requests  critical path %s  exit %d\n", name, run.wall.Seconds(), p.total(), p.path, run.exit)
	ok := false
	for _, c := range okExit {
		ok = ok || c == run.exit
	}
	if !ok {
		tail, _ := tailFile(run.log, 40)
		return p, fmt.Errorf("terraform %s exited %d:\n%s", strings.Join(args, " "), run.exit, tail)
	}
	return p, nil
}

// benchCache is the cache directory of every Terraform run (XDG_CACHE_HOME),
// under the bench's working directory.
var benchCache string

// tfRun is one finished Terraform process.
type tfRun struct {
	wall time.Duration
	exit int
	log  string // path of its combined output
	err  error  // it could not be run at all
}

// runTerraform runs terraform with args in dir, its output going to a log
// file in dir named after name.
func runTerraform(dir, rc string, env []string, name string, args []string) tfRun {
	cmd := exec.CommandContext(context.Background(), "terraform", args...)
	cmd.Dir = dir
	// The providers' files under the user's cache directory (the shared
	// rate limit, what an account showed of its reading) are the bench's
	// own, unless env names another directory.
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "XDG_CACHE_HOME="+benchCache)
	cmd.Env = append(cmd.Env, env...)
	logPath := filepath.Join(dir, strings.NewReplacer(" ", "_", "(", "", ")", "", ",", "", "=", "").Replace(name)+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return tfRun{err: err}
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	err = cmd.Run()
	r := tfRun{wall: time.Since(start), log: logPath}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		r.exit = exitErr.ExitCode()
	} else if err != nil {
		r.err = err
	}
	return r
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}

func tailFile(path string, lines int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return "", err
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n"), nil
}

// providerBlock is the head of every configuration: the provider's source
// and its block with the given arguments (each line indented, ending in a
// newline).
func providerBlock(args string) string {
	return "terraform {\n  required_providers {\n    neon = { source = \"neon-auth/neon\" }\n  }\n}\n\nprovider \"neon\" {\n" + args + "}\n"
}
