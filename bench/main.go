// Command bench measures what bounds a large configuration of this provider:
// the platform's request budget (700 requests per minute per account, 40 per
// second per route), not CPU.
//
// For each size N it starts the emulator at the documented limits, writes a
// configuration of N resources spread over several projects (per project one
// integration, three OAuth providers, the rest redirect domains), and drives
// the real Terraform CLI against a freshly built provider:
//
//   - apply, from nothing;
//   - a no-change plan (with refresh), and the same plan with -refresh=false;
//   - the same refresh with list sharing switched off (a second provider
//     binary built with -X …/internal/provider.sharedReadsSwitch=off);
//   - the refresh comparison again with the limits lifted, where the limiter
//     is not the bound.
//
// It prints a table with wall times, API requests by route and status from
// the emulator's counters, requests per refreshed resource and 429s, and
// writes the same to a file.
//
//	go run ./bench -n 100,500,1000 -projects 10 -out bench/results/latest.md
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	sizes       []int
	projects    int
	parallelism int
	out         string
	keep        bool
	repeat      int
}

func parseFlags() (options, error) {
	var o options
	sizes := flag.String("n", "100,500,1000", "comma-separated numbers of resources")
	flag.IntVar(&o.projects, "projects", 10, "projects the resources are spread over")
	flag.IntVar(&o.parallelism, "parallelism", 10, "terraform -parallelism")
	flag.StringVar(&o.out, "out", "bench/results/latest.md", "file the results are written to (also printed)")
	flag.BoolVar(&o.keep, "keep", false, "keep the working directory")
	flag.IntVar(&o.repeat, "repeat", 3, "runs of each limits-lifted plan (the median is reported)")
	flag.Parse()
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 5*o.projects {
			return o, fmt.Errorf("-n %q: each size must be a number ≥ 5 × projects (%d)", s, 5*o.projects)
		}
		o.sizes = append(o.sizes, n)
	}
	if o.repeat < 1 {
		return o, errors.New("-repeat must be ≥ 1")
	}
	if o.projects < 1 {
		return o, errors.New("-projects must be ≥ 1")
	}
	return o, nil
}

func run() error {
	o, err := parseFlags()
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		return errors.New("terraform is not on PATH")
	}
	work, err := os.MkdirTemp("", "neon-bench-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(work)
	}
	fmt.Fprintf(os.Stderr, "building the provider into %s\n", work)
	rc, err := buildProvider(work, "bin", "")
	if err != nil {
		return err
	}
	rcUnshared, err := buildProvider(work, "bin-unshared", "-X github.com/neon-auth/terraform-provider-neon/internal/provider.sharedReadsSwitch=off")
	if err != nil {
		return err
	}

	var report strings.Builder
	fmt.Fprintf(&report, "# Benchmark — %s\n\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(&report, "Emulator at the documented limits (700 requests/min per account, 40/s per route); provider defaults; "+
		"%d projects; terraform -parallelism=%d.\n\n", o.projects, o.parallelism)
	var results []result
	for _, n := range o.sizes {
		fmt.Fprintf(os.Stderr, "\n== N = %d ==\n", n)
		r, err := benchSize(work, rc, rcUnshared, n, o)
		if err != nil {
			return fmt.Errorf("size %d: %w", n, err)
		}
		results = append(results, r)
	}
	writeReport(&report, results)
	fmt.Fprintln(&report, "\nNotes: apply req/min is requests ÷ wall time; the client starts with a burst of 10 and then paces at (700 − 10)/min, "+
		"so no 60-second window exceeds 700 even when a short apply averages slightly above it. The last column compares plans with "+
		"the limits lifted on both sides (the limiter is not the bound), median of -repeat runs.")
	fmt.Print(report.String())
	if o.out != "" {
		if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(o.out, []byte(report.String()), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "\nresults written to %s\n", o.out)
	}
	return nil
}

// buildProvider builds the provider with extra ldflags into work/dir and
// writes a CLI config whose dev_overrides point at it; it returns the
// config's path.
func buildProvider(work, dir, ldflags string) (string, error) {
	build := exec.CommandContext(context.Background(), "go", "build", "-ldflags", ldflags, "-o", filepath.Join(work, dir, "terraform-provider-neon"), ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building the provider: %w", err)
	}
	rc := filepath.Join(work, dir+".terraformrc")
	return rc, os.WriteFile(rc, []byte(fmt.Sprintf(`provider_installation {
  dev_overrides {
    "neon-auth/neon" = %q
  }
  direct {}
}
`, filepath.Join(work, dir))), 0o600)
}

// phase is one measured Terraform command.
type phase struct {
	name     string
	wall     time.Duration
	requests emulator.Stats
}

func (p phase) total() int { return p.requests.Total }

func (p phase) count429() int {
	n := 0
	for _, byStatus := range p.requests.Requests {
		n += byStatus[http.StatusTooManyRequests]
	}
	return n
}

type result struct {
	n, projects, listBacked, pairs int
	apply, plan, planNoRefresh     phase
	planUnshared                   phase
	fastPlan, fastPlanNoRefresh    phase
}

// server is an emulator on a loopback port.
type server struct {
	emu     *emulator.Emulator
	srv     *http.Server
	baseURL string
}

func startEmulator(projects int, limited bool, stateFile, key string) (*server, error) {
	opts := emulator.Options{SeedProjects: projects, StateFile: stateFile, BootstrapKey: key}
	if !limited {
		opts.AccountRequestsPerMinute, opts.RouteRequestsPerSecond = -1, -1
	}
	emu, err := emulator.New(opts)
	if err != nil {
		return nil, err
	}
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{emu: emu, srv: &http.Server{Handler: emu, ReadHeaderTimeout: 10 * time.Second},
		baseURL: "http://" + ln.Addr().String() + "/api/v2/"}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *server) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	_ = s.emu.Close()
}

// writeConfig spreads n resources over the projects: per project one
// integration, three OAuth providers (shared), and domains for the rest.
// It returns how many resources are read by listing.
func writeConfig(dir string, projectIDs []string, n int, providerExtra string) (int, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "terraform {\n  required_providers {\n    neon = { source = \"neon-auth/neon\" }\n  }\n}\n\nprovider \"neon\" {\n%s}\n", providerExtra)
	per := n / len(projectIDs)
	extra := n % len(projectIDs)
	listBacked := 0
	for i, pid := range projectIDs {
		count := per
		if i < extra {
			count++
		}
		fmt.Fprintf(&b, "\nresource \"neon_auth_integration\" \"p%d\" {\n  project_id = %q\n}\n", i, pid)
		for _, id := range []string{"google", "github", "microsoft"} {
			fmt.Fprintf(&b, "\nresource \"neon_auth_oauth_provider\" \"p%d_%s\" {\n  project_id  = neon_auth_integration.p%d.project_id\n  provider_id = %q\n}\n", i, id, i, id)
		}
		domains := count - 4
		if domains > 0 {
			fmt.Fprintf(&b, "\nresource \"neon_auth_domain\" \"p%d\" {\n  count      = %d\n  project_id = neon_auth_integration.p%d.project_id\n  domain     = \"https://app${count.index}.p%d.example.com\"\n}\n", i, domains, i, i)
		}
		listBacked += count
	}
	return listBacked, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(b.String()), 0o644)
}

func benchSize(work, rc, rcUnshared string, n int, o options) (result, error) {
	r := result{n: n, projects: o.projects}
	dir := filepath.Join(work, fmt.Sprintf("n%d", n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	const key = "napi_bench_bootstrap_key"
	s, err := startEmulator(o.projects, true, filepath.Join(dir, "emulator-state.json"), key)
	if err != nil {
		return r, err
	}
	defer s.stop()
	if r.listBacked, err = writeConfig(dir, s.emu.ProjectIDs(), n, ""); err != nil {
		return r, err
	}
	r.pairs = 3 * o.projects // (project, list endpoint): integrations, oauth providers, domains
	env := []string{"NEON_API_KEY=" + s.emu.BootstrapKey(), "NEON_API_BASE_URL=" + s.baseURL}
	par := fmt.Sprintf("-parallelism=%d", o.parallelism)

	steps := []struct {
		dst  *phase
		name string
		rc   string
		args []string
		exit []int
	}{
		{&r.apply, "apply", rc, []string{"apply", "-auto-approve", "-input=false", par}, []int{0}},
		{&r.plan, "plan (refresh)", rc, []string{"plan", "-detailed-exitcode", "-input=false", par}, []int{0}},
		{&r.planNoRefresh, "plan -refresh=false", rc, []string{"plan", "-refresh=false", "-detailed-exitcode", "-input=false", par}, []int{0}},
		{&r.planUnshared, "plan (refresh), list sharing off", rcUnshared, []string{"plan", "-detailed-exitcode", "-input=false", par}, []int{0}},
	}
	for _, st := range steps {
		p, err := terraform(dir, st.rc, env, s.emu, st.name, st.args, st.exit)
		if err != nil {
			return r, err
		}
		*st.dst = p
	}

	// The refresh comparison once more with the limits lifted on both sides,
	// where the limiter is not the bound: same state, same resources.
	// The emulator's state file holds exactly what the apply created.
	if err := copyFile(filepath.Join(dir, "emulator-state.json"), filepath.Join(dir, "emulator-state-fast.json")); err != nil {
		return r, err
	}
	fast, err := startEmulator(o.projects, false, filepath.Join(dir, "emulator-state-fast.json"), key)
	if err != nil {
		return r, err
	}
	defer fast.stop()
	fastEnv := []string{"NEON_API_KEY=" + s.emu.BootstrapKey(), "NEON_API_BASE_URL=" + fast.baseURL}
	if _, err := writeConfig(dir, s.emu.ProjectIDs(), n, "  requests_per_minute       = 100000\n  route_requests_per_second = 10000\n"); err != nil {
		return r, err
	}
	// Wall times of short plans are noisy on a small machine: alternate the
	// two plans and keep the median of each.
	var withRefresh, withoutRefresh []phase
	for i := range o.repeat {
		p, err := terraform(dir, rc, fastEnv, fast.emu, fmt.Sprintf("plan (refresh), limits lifted #%d", i+1), []string{"plan", "-detailed-exitcode", "-input=false", par}, []int{0})
		if err != nil {
			return r, err
		}
		withRefresh = append(withRefresh, p)
		if p, err = terraform(dir, rc, fastEnv, fast.emu, fmt.Sprintf("plan -refresh=false, limits lifted #%d", i+1), []string{"plan", "-refresh=false", "-detailed-exitcode", "-input=false", par}, []int{0}); err != nil {
			return r, err
		}
		withoutRefresh = append(withoutRefresh, p)
	}
	r.fastPlan, r.fastPlanNoRefresh = median(withRefresh), median(withoutRefresh)
	return r, nil
}

// median is the phase with the median wall time.
func median(ps []phase) phase {
	sorted := append([]phase(nil), ps...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].wall < sorted[j].wall })
	m := sorted[len(sorted)/2]
	if i := strings.LastIndex(m.name, " #"); i >= 0 {
		m.name = m.name[:i]
	}
	m.name += fmt.Sprintf(" (median of %d)", len(ps))
	return m
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}

// terraform runs one command and returns its wall time and the API requests
// the emulator counted during it.
func terraform(dir, rc string, env []string, emu *emulator.Emulator, name string, args []string, okExit []int) (phase, error) {
	emu.ResetStats()
	cmd := exec.CommandContext(context.Background(), "terraform", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	cmd.Env = append(cmd.Env, env...)
	logPath := filepath.Join(dir, strings.NewReplacer(" ", "_", "(", "", ")", "", ",", "", "=", "").Replace(name)+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return phase{}, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		return phase{}, err
	}
	ok := false
	for _, c := range okExit {
		ok = ok || c == code
	}
	p := phase{name: name, wall: wall, requests: emu.Stats()}
	fmt.Fprintf(os.Stderr, "  %-40s %8.1fs  %5d requests  exit %d\n", name, wall.Seconds(), p.total(), code)
	if !ok {
		tail, _ := tailFile(logPath, 40)
		return p, fmt.Errorf("terraform %s exited %d:\n%s", strings.Join(args, " "), code, tail)
	}
	return p, nil
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

func writeReport(b *strings.Builder, results []result) {
	fmt.Fprintln(b, "## Summary")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| N | apply | apply req/min | 429s (all phases) | plan | plan -refresh=false | plan requests | requests ÷ (project, endpoint) pairs | requests per refreshed resource | plan, sharing off | requests, sharing off | sharing-off ÷ on | limits lifted: plan ÷ plan -refresh=false |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		perMin := float64(r.apply.total()) / r.apply.wall.Minutes()
		n429 := r.apply.count429() + r.plan.count429() + r.planNoRefresh.count429() + r.planUnshared.count429()
		fmt.Fprintf(b, "| %d | %s | %.0f (%.0f%% of 700) | %d | %s | %s | %d | %.2f | %.3f | %s | %d | %.1f× | %.2f |\n",
			r.n, secs(r.apply.wall), perMin, 100*perMin/700, n429,
			secs(r.plan.wall), secs(r.planNoRefresh.wall), r.plan.total(),
			float64(r.plan.total())/float64(r.pairs), float64(r.plan.total())/float64(r.listBacked),
			secs(r.planUnshared.wall), r.planUnshared.total(), float64(r.planUnshared.total())/float64(max(1, r.plan.total())),
			r.fastPlan.wall.Seconds()/r.fastPlanNoRefresh.wall.Seconds())
	}
	for _, r := range results {
		fmt.Fprintf(b, "\n## N = %d (%d projects, %d (project, list endpoint) pairs)\n\n", r.n, r.projects, r.pairs)
		fmt.Fprintln(b, "| phase | wall | requests | by route and status |")
		fmt.Fprintln(b, "|---|---|---|---|")
		for _, p := range []phase{r.apply, r.plan, r.planNoRefresh, r.planUnshared, r.fastPlan, r.fastPlanNoRefresh} {
			fmt.Fprintf(b, "| %s | %s | %d | %s |\n", p.name, secs(p.wall), p.total(), routes(p.requests))
		}
	}
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func routes(s emulator.Stats) string {
	keys := make([]string, 0, len(s.Requests))
	for k := range s.Requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		statuses := make([]int, 0, len(s.Requests[k]))
		for st := range s.Requests[k] {
			statuses = append(statuses, st)
		}
		sort.Ints(statuses)
		var ss []string
		for _, st := range statuses {
			ss = append(ss, fmt.Sprintf("%d×%d", s.Requests[k][st], st))
		}
		parts = append(parts, fmt.Sprintf("`%s` %s", k, strings.Join(ss, " ")))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, "<br>")
}
