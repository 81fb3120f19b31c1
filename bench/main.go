// Command bench measures what bounds a large configuration of this provider:
// the platform's request budget (700 requests per minute per account, 40 per
// second per route), not CPU. It builds the provider, starts the emulator at
// the documented limits and drives the real Terraform CLI (dev_overrides).
//
// Neon states those numbers, not how it counts them: the emulator reads them
// as token buckets or as sliding windows (-rate-limit-reading). The sections
// whose figures are times (roundtrip, creates, concurrent) run under each
// reading listed, side by side; the others, which count requests, under the
// first.
//
// Sections (-only selects some; all run by default):
//
//   - quick: quick-start-sized configurations applied, re-planned and
//     destroyed with the emulator's limits lifted, by the provider as shipped
//     and by a build with list sharing, delete batching and pacing switched
//     off (-X …/internal/provider.machineryOff=sharing,batching,pacing).
//   - roundtrip: a branch's integration, two OAuth providers and N domains
//     (-roundtrip-n) as N neon_auth_domain and as one neon_auth_domains,
//     applied, re-planned and destroyed at the documented limits while the
//     emulator holds every request for a round trip (-latency): wall times,
//     requests, 429s, the ideal schedule under each reading, critical paths
//     (the longest chain of requests that waited on one another). Another
//     build of this provider (-before) and kenchan0130's provider (-peer)
//     run the same configuration beside it, taking turns on one emulator,
//     when given; the bench never builds them.
//   - creates: an apply of N domain creates (-creates) at the documented
//     limits and with them lifted, against each reading's ideal.
//   - refresh: for each size N, a configuration of N resources spread over
//     several projects (per project one integration, three OAuth providers,
//     the rest redirect domains): apply from nothing; a no-change plan (with
//     refresh) and the same plan with -refresh=false; the same refresh with
//     list sharing switched off (a second provider binary built with
//     -X …/internal/provider.machineryOff=sharing); the refresh comparison
//     again with the limits lifted, where the limiter is not the bound.
//   - modes: the same mix at one size (-modes-n) applied and refreshed with
//     auth_api = "project" and with auth_api = "branch".
//   - settings: every Better Auth settings resource of one production branch
//     in branch mode, with a few domains, OAuth providers and an email
//     server, and the requests of its refresh by route.
//   - branches: every resource type on three branches (two Better Auth, one
//     Stack Auth) in branch mode, and on two projects in project mode; the
//     refresh plan's requests per (branch, read endpoint).
//   - preview: examples/branch-preview on a branch that inherited
//     production's Neon Auth (taken over) and on one made before it
//     (created): requests of the apply, the re-plan and the destroy.
//   - concurrent: K simultaneous applies, then K simultaneous destroys, of one
//     integration and N domains each, each run on its own project, all on one
//     account (-concurrent, and -concurrent-shared with shared_rate_limit).
//
// It prints tables with wall times, critical paths, API requests by route and
// status from the emulator's counters, requests per refreshed resource and
// 429s, and writes the same to a file.
//
//	go run ./bench -only refresh -n 100,500 -out bench/results/latest.md
//	go run ./bench -only concurrent -concurrent 4x100 -concurrent-shared "" -rate-limit-reading windows
//	go run ./bench -only roundtrip -latency 80ms -roundtrip-n 10 -peer /path/to/kenchan0130/terraform-provider-neon
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// This file holds the bench's flags and runs the sections they select into one report.

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// sections in the order they run and are reported.
var sections = []string{"quick", "roundtrip", "creates", "refresh", "modes", "settings", "branches", "preview", "concurrent"}

type options struct {
	only          []string
	readings      []emulator.RateLimitReading
	peer          string // a build of kenchan0130/terraform-provider-neon ("": none)
	before        string // another build of this provider ("": none)
	sizes         []int
	projects      int
	parallelism   int
	out           string
	keep          bool
	repeat        int
	modesN        int
	concurrent    []concCase
	creates       []int
	latencies     []time.Duration
	rtSizes       []int
	rtRepeat      int
	rtRepeatLarge int
}

func (o options) runs(section string) bool { return slices.Contains(o.only, section) }

func parseFlags() (options, error) {
	var o options
	only := flag.String("only", strings.Join(sections, ","), "comma-separated sections to run: "+strings.Join(sections, ", "))
	sizes := flag.String("n", "100,500,1000", "refresh: comma-separated numbers of resources")
	flag.IntVar(&o.projects, "projects", 10, "refresh, modes: projects the resources are spread over")
	flag.IntVar(&o.parallelism, "parallelism", 10, "terraform -parallelism")
	flag.StringVar(&o.out, "out", "bench/results/latest.md", "file the results are written to (also printed)")
	flag.BoolVar(&o.keep, "keep", false, "keep the working directory")
	flag.IntVar(&o.repeat, "repeat", 3, "refresh: runs of each limits-lifted plan (the median is reported)")
	flag.IntVar(&o.modesN, "modes-n", 100, "modes: number of resources")
	creates := flag.String("creates", "10,50,200,1000", "creates: comma-separated numbers of domains created by one apply")
	cases := flag.String("concurrent", "1x100,2x100,4x100,8x100,8x50,1x500", "concurrent: KxN cases with provider defaults")
	sharedCases := flag.String("concurrent-shared", "4x100,8x50", "concurrent: KxN cases with shared_rate_limit = true")
	reading := flag.String("rate-limit-reading", "buckets,windows", "how the emulator reads the documented limits, comma-separated: "+
		"\"buckets\" (token buckets, the account's holding 40) and \"windows\" (the emulator's default: 429 only past 700 in any "+
		"60 s or 40 in any second on a route); roundtrip, creates and concurrent run under each, the other sections under the first")
	flag.StringVar(&o.peer, "peer", os.Getenv("NEON_BENCH_PEER"), "roundtrip: a build of kenchan0130/terraform-provider-neon to run "+
		"beside this provider (default $NEON_BENCH_PEER; none: the peer is skipped)")
	flag.StringVar(&o.before, "before", os.Getenv("NEON_BENCH_BEFORE"), "roundtrip: another build of this provider (another commit) "+
		"to run beside this one (default $NEON_BENCH_BEFORE)")
	latencies := flag.String("latency", "0s,80ms", "roundtrip: comma-separated round trips the emulator holds every request for")
	rtSizes := flag.String("roundtrip-n", "10,50,200", "roundtrip: comma-separated numbers of domains")
	flag.IntVar(&o.rtRepeat, "roundtrip-repeat", 3, fmt.Sprintf("roundtrip: rounds of each case of at most %d domains (the median is reported)", rtSmall))
	flag.IntVar(&o.rtRepeatLarge, "roundtrip-repeat-large", 1, fmt.Sprintf("roundtrip: rounds of each case of more than %d domains", rtSmall))
	flag.Parse()

	if err := o.parseReadings(*reading); err != nil {
		return o, err
	}

	for _, s := range strings.Split(*only, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(sections, s) {
			return o, fmt.Errorf("-only %q: sections are %s", s, strings.Join(sections, ", "))
		}
		o.only = append(o.only, s)
	}
	if o.projects < 1 {
		return o, errors.New("-projects must be ≥ 1")
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 5*o.projects {
			return o, fmt.Errorf("-n %q: each size must be a number ≥ 5 × projects (%d)", s, 5*o.projects)
		}
		o.sizes = append(o.sizes, n)
	}
	for _, s := range strings.Split(*creates, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return o, fmt.Errorf("-creates %q: each size must be a number ≥ 1", s)
		}
		o.creates = append(o.creates, n)
	}
	if err := o.parseRoundTrip(*latencies, *rtSizes); err != nil {
		return o, err
	}
	if o.modesN < 5*o.projects {
		return o, fmt.Errorf("-modes-n %d: must be ≥ 5 × projects (%d)", o.modesN, 5*o.projects)
	}
	if o.repeat < 1 {
		return o, errors.New("-repeat must be ≥ 1")
	}
	plain, err := parseCases(*cases, false)
	if err != nil {
		return o, fmt.Errorf("-concurrent: %w", err)
	}
	shared, err := parseCases(*sharedCases, true)
	if err != nil {
		return o, fmt.Errorf("-concurrent-shared: %w", err)
	}
	o.concurrent = slices.Concat(plain, shared)
	if o.runs("concurrent") && len(o.concurrent) == 0 {
		return o, errNoCases
	}
	return o, nil
}

// parseReadings reads -rate-limit-reading: buckets, windows or both, each
// once; the first is the reading of the sections that count requests.
func (o *options) parseReadings(list string) error {
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		r, err := emulator.ParseRateLimitReading(name)
		if name == "" || err != nil || slices.Contains(o.readings, r) {
			return fmt.Errorf("-rate-limit-reading %q: want \"buckets\", \"windows\" or both, each once", list)
		}
		o.readings = append(o.readings, r)
	}
	limitReading = o.readings[0]
	return nil
}

// parseRoundTrip reads the roundtrip section's flags: -latency and
// -roundtrip-n (comma-separated), and checks -roundtrip-repeat.
func (o *options) parseRoundTrip(latencies, sizes string) error {
	for _, s := range strings.Split(latencies, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d < 0 {
			return fmt.Errorf("-latency %q: each round trip must be a duration ≥ 0, such as 80ms", s)
		}
		o.latencies = append(o.latencies, d)
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-roundtrip-n %q: each size must be a number ≥ 1", s)
		}
		o.rtSizes = append(o.rtSizes, n)
	}
	if o.rtRepeat < 1 || o.rtRepeatLarge < 1 {
		return errors.New("-roundtrip-repeat and -roundtrip-repeat-large must be ≥ 1")
	}
	return nil
}

func run() error {
	start := time.Now()
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
	benchCache = filepath.Join(work, "cache")
	fmt.Fprintf(os.Stderr, "building the provider into %s\n", work)
	rc, err := buildProvider(work, "bin", "")
	if err != nil {
		return err
	}
	builds := map[string]string{buildThis: rc}
	if builds[buildBefore], err = givenProvider(work, "bin-before", thisSource, o.before); err != nil {
		return fmt.Errorf("-before: %w", err)
	}
	if builds[buildPeer], err = givenProvider(work, "bin-peer", peerSource, o.peer); err != nil {
		return fmt.Errorf("-peer: %w", err)
	}

	var report strings.Builder
	fmt.Fprintf(&report, "# Benchmark — %s\n\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(&report, "Sections: %s. Machine: %d CPUs, load average %s at the start. The emulator reads the documented limits "+
		"as the roundtrip, creates and concurrent sections' rows say (%s), and in the other sections as %s.\n\n",
		strings.Join(o.only, ", "), runtime.NumCPU(), loadAverage(), strings.Join(readingNames(o.readings), ", "), readingWords(limitReading))
	for _, section := range sections {
		if !o.runs(section) {
			continue
		}
		fmt.Fprintf(os.Stderr, "\n== %s ==\n", section)
		if err := runSection(&report, section, work, builds, o); err != nil {
			return fmt.Errorf("%s: %w", section, err)
		}
	}
	elapsed := time.Since(start)
	fmt.Fprintf(&report, "\nTotal bench wall time: %s; load average %s at the end.\n", elapsed.Round(time.Second), loadAverage())

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

// loadAverage is the 1, 5 and 15 minute load averages of the machine, or
// "unknown" where /proc/loadavg cannot be read. Other processes on a small
// machine make wall times longer and batches of deletes smaller.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " / ")
}

// runSection measures one section and appends its report.
func runSection(report *strings.Builder, section, work string, builds map[string]string, o options) error {
	rc := builds[buildThis]
	switch section {
	case "quick":
		rcOff, err := buildProvider(work, "bin-off", machineryOff("sharing,batching,pacing"))
		if err != nil {
			return err
		}
		results, err := benchQuick(work, rc, rcOff, o)
		if err != nil {
			return err
		}
		writeQuickReport(report, results, o)
	case "roundtrip":
		results, err := benchRoundTrip(work, builds, o)
		if err != nil {
			return err
		}
		writeRoundTripReport(report, results, builds, o)
	case "creates":
		results, err := benchCreates(work, rc, o)
		if err != nil {
			return err
		}
		writeCreatesReport(report, results, o)
	case "refresh":
		return runRefresh(report, work, rc, o)
	case "modes":
		var results []modeResult
		for _, api := range []string{"project", "branch"} {
			r, err := benchMode(work, rc, api, o.modesN, o)
			if err != nil {
				return fmt.Errorf("auth_api = %q: %w", api, err)
			}
			results = append(results, r)
		}
		writeModesReport(report, results)
	case "settings":
		r, err := benchSettings(work, rc, o)
		if err != nil {
			return err
		}
		writeSettingsReport(report, r)
	case "branches":
		var results []branchesResult
		for _, mode := range []string{"branch", "project"} {
			r, err := benchBranches(work, rc, mode, o)
			if err != nil {
				return fmt.Errorf("auth_api = %q: %w", mode, err)
			}
			results = append(results, r)
		}
		writeBranchesReport(report, results)
	case "preview":
		var results []previewResult
		for _, c := range previewCases {
			r, err := benchPreview(work, rc, c, o)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			results = append(results, r)
		}
		writePreviewReport(report, results)
	case "concurrent":
		return runConcurrent(report, work, rc, o)
	}
	return nil
}

// runRefresh measures the refresh section at each size of -n, with the
// provider as shipped and with list sharing switched off.
func runRefresh(report *strings.Builder, work, rc string, o options) error {
	rcUnshared, err := buildProvider(work, "bin-unshared", machineryOff("sharing"))
	if err != nil {
		return err
	}
	var results []result
	for _, n := range o.sizes {
		fmt.Fprintf(os.Stderr, "-- N = %d --\n", n)
		r, err := benchSize(work, rc, rcUnshared, n, o)
		if err != nil {
			return fmt.Errorf("size %d: %w", n, err)
		}
		results = append(results, r)
	}
	writeRefreshReport(report, results, o)
	return nil
}

// runConcurrent measures the concurrent section, one case of -concurrent and
// -concurrent-shared after the other, under each reading.
func runConcurrent(report *strings.Builder, work, rc string, o options) error {
	var results []concResult
	for _, reading := range o.readings {
		for _, c := range o.concurrent {
			fmt.Fprintf(os.Stderr, "-- %s, %s, %s --\n", reading, c, c.limit())
			r, err := benchConcurrent(work, rc, c, reading, o)
			if err != nil {
				return fmt.Errorf("%s, %s %s: %w", reading, c, c.limit(), err)
			}
			results = append(results, r)
		}
	}
	writeConcurrentReport(report, results, o)
	return nil
}
