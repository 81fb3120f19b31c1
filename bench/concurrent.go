package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The concurrent section: K Terraform runs at once on one account, each in
// its own working directory on its own project with one integration and N
// domains, all applied together and then all destroyed together, under each
// reading of the limits.

// domainsDeleteRoute is the route of the batched domain delete.
const domainsDeleteRoute = "DELETE /projects/{project_id}/auth/domains"

// concCase is K simultaneous runs of N domains each.
type concCase struct {
	k, n   int
	shared bool // shared_rate_limit = true, one cache directory for the K runs
}

func (c concCase) String() string { return fmt.Sprintf("%d×%d", c.k, c.n) }

func (c concCase) limit() string {
	if c.shared {
		return "shared_rate_limit"
	}
	return "defaults"
}

// parseCases reads "4x100,8x50" (× also accepted); "" is no case.
func parseCases(s string, shared bool) ([]concCase, error) {
	var out []concCase
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ReplaceAll(f, "×", "x"))
		if f == "" {
			continue
		}
		ks, ns, ok := strings.Cut(f, "x")
		k, errK := strconv.Atoi(ks)
		n, errN := strconv.Atoi(ns)
		if !ok || errK != nil || errN != nil || k < 1 || n < 1 {
			return nil, fmt.Errorf("case %q: want KxN with K, N ≥ 1, such as 4x100", f)
		}
		out = append(out, concCase{k: k, n: n, shared: shared})
	}
	return out, nil
}

// concPhase is one command run by all K runs at once.
type concPhase struct {
	wall     time.Duration   // from the first start to the last finish
	runWalls []time.Duration // each run's own wall time
	failed   int             // runs that exited non-zero
	warnings int             // runs whose output says the rate limit was not shared
	requests emulator.Stats
	seen     observation
}

func (p concPhase) n429() int { return count429(p.requests) }

// servedPerMin is the requests that passed the rate limit per minute of wall.
func (p concPhase) servedPerMin() float64 {
	return float64(p.requests.Total-p.n429()) / p.wall.Minutes()
}

// pacedPerMin is the requests that passed the rate limit per minute between
// the first answer and the last: the pace once requests flow, without
// Terraform's own start (reading the configuration, planning) and end.
func (p concPhase) pacedPerMin() float64 {
	t := p.seen.served
	if len(t) < 2 {
		return 0
	}
	first, last := slices.Min(t), slices.Max(t)
	if last <= first {
		return 0
	}
	return float64(len(t)-1) / (last - first).Minutes()
}

func (p concPhase) share429() float64 { return pct(float64(p.n429()), float64(p.requests.Total)) }

func (p concPhase) runWallRange() string {
	if len(p.runWalls) == 0 {
		return "—"
	}
	lo, hi := p.runWalls[0], p.runWalls[0]
	for _, w := range p.runWalls {
		lo, hi = min(lo, w), max(hi, w)
	}
	return fmt.Sprintf("%.1f–%.1f s", lo.Seconds(), hi.Seconds())
}

type concResult struct {
	c              concCase
	reading        emulator.RateLimitReading
	load           string // the machine's load average when the case started
	apply, destroy concPhase
}

func (r concResult) domainDeletes() int { return routeTotal(r.destroy.requests, domainsDeleteRoute) }

// batchSizes describes the domains per successful batched delete.
func (p concPhase) batchSizes() string {
	b := p.seen.batches
	if len(b) == 0 {
		return "—"
	}
	sum := 0
	for _, n := range b {
		sum += n
	}
	return fmt.Sprintf("%.1f (%d–%d)", float64(sum)/float64(len(b)), slices.Min(b), slices.Max(b))
}

// servedWindow is the window of the served-requests timeline.
const servedWindow = 10 * time.Second

// timeline lists the requests served in each servedWindow of the phase.
func (p concPhase) timeline() string {
	per := p.seen.servedPer(servedWindow)
	if len(per) == 0 {
		return "—"
	}
	parts := make([]string, len(per))
	for i, n := range per {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " ")
}

func benchConcurrent(work, rc string, c concCase, reading emulator.RateLimitReading, o options) (concResult, error) {
	r := concResult{c: c, reading: reading, load: loadAverage()}
	dir := filepath.Join(work, fmt.Sprintf("concurrent-%s-%dx%d-%s", reading, c.k, c.n, c.limit()))
	cache := filepath.Join(dir, "cache")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return r, err
	}
	s, err := startEmulator(reading, c.k, true, "")
	if err != nil {
		return r, err
	}
	defer s.stop()
	var dirs []string
	for i, pid := range s.emu.ProjectIDs() {
		d := filepath.Join(dir, fmt.Sprintf("run%d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return r, err
		}
		if err := writeConcurrentConfig(d, pid, i, c); err != nil {
			return r, err
		}
		dirs = append(dirs, d)
	}
	// Every run gets the same cache directory: with shared_rate_limit they
	// meet in its lock file, and whatever the setting, a run that learns
	// that the account counts by the bucket leaves it there for the others.
	env := append(s.env(), "XDG_CACHE_HOME="+cache)
	par := fmt.Sprintf("-parallelism=%d", o.parallelism)
	label := fmt.Sprintf("%s %s", c, c.limit())
	if r.apply, err = runAll(dirs, rc, env, s, label+": apply", []string{"apply", "-auto-approve", "-input=false", par}); err != nil {
		return r, err
	}
	r.destroy, err = runAll(dirs, rc, env, s, label+": destroy", []string{"destroy", "-auto-approve", "-input=false", par})
	return r, err
}

func writeConcurrentConfig(dir, projectID string, run int, c concCase) error {
	// Project mode, named: the figures in BASELINE.md were measured with it
	// (the provider's default at the time).
	extra := "  auth_api = \"project\"\n"
	if c.shared {
		extra += "  shared_rate_limit = true\n"
	}
	config := providerBlock(extra) + fmt.Sprintf(`
resource "neon_auth_integration" "this" {
  project_id = %q
}

resource "neon_auth_domain" "d" {
  count      = %d
  project_id = neon_auth_integration.this.project_id
  domain     = "https://app${count.index}.run%d.example.com"
}
`, projectID, c.n, run)
	return os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644)
}

// runAll starts the command in every directory at once and waits for all.
// A run that exits non-zero is counted, not fatal.
func runAll(dirs []string, rc string, env []string, s *server, name string, args []string) (concPhase, error) {
	s.resetStats()
	runs := make([]tfRun, len(dirs))
	var wg sync.WaitGroup
	start := time.Now()
	for i, d := range dirs {
		wg.Go(func() { runs[i] = runTerraform(d, rc, env, "concurrent "+args[0], args) })
	}
	wg.Wait()
	p := concPhase{wall: time.Since(start), requests: s.emu.Stats(), seen: s.seen.snapshot()}
	for _, run := range runs {
		if run.err != nil {
			return p, run.err
		}
		p.runWalls = append(p.runWalls, run.wall)
		if run.exit != 0 {
			p.failed++
			tail, _ := tailFile(run.log, 20)
			fmt.Fprintf(os.Stderr, "    %s exited %d:\n%s\n", run.log, run.exit, tail)
		}
		if data, err := os.ReadFile(run.log); err == nil && strings.Contains(string(data), "Rate limit not shared") {
			p.warnings++
		}
	}
	fmt.Fprintf(os.Stderr, "  %-46s %8.1fs  %5d requests  %d × 429  %d failed\n", name, p.wall.Seconds(), p.requests.Total, p.n429(), p.failed)
	return p, nil
}

func writeConcurrentReport(b *strings.Builder, results []concResult, o options) {
	if len(results) == 0 {
		return
	}
	fmt.Fprintln(b, "\n## Concurrent runs on one account")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "K runs of `terraform apply` at once, then K of `terraform destroy` at once; each run in its own working directory "+
		"on its own project with one integration and N neon_auth_domain; one emulator at the documented limits "+
		"(700 requests/min per account, 40/s per route), read as the row says (buckets: token buckets, the account's holding "+
		"40; windows: 700 in any 60 s, 40 in any second on a route); terraform -parallelism=%d. \"defaults\": provider "+
		"defaults; \"shared_rate_limit\": `shared_rate_limit = true`; the K runs of a case share one cache directory "+
		"(XDG_CACHE_HOME), a fresh one for each case.\n\n", o.parallelism)
	fmt.Fprintln(b, "| reading | K×N | rate limit | phase | wall | per-run wall | requests | served req/min (% of 700) | first to last answer | 429s (% of requests) | failed runs | `DELETE …/auth/domains` | per domain | domains per DELETE, mean (min–max) |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		for _, ph := range []struct {
			name string
			p    concPhase
		}{{"apply", r.apply}, {"destroy", r.destroy}} {
			deletes, perDomain, sizes := "", "", ""
			if ph.name == "destroy" {
				deletes = strconv.Itoa(r.domainDeletes())
				perDomain = fmt.Sprintf("%.3f", float64(r.domainDeletes())/float64(r.c.k*r.c.n))
				sizes = ph.p.batchSizes()
			}
			served := ph.p.servedPerMin()
			paced := ph.p.pacedPerMin()
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %d | %.0f (%.0f%%) | %.0f (%.0f%%) | %d (%.1f%%) | %d | %s | %s | %s |\n",
				r.reading, r.c, r.c.limit(), ph.name, secs(ph.p.wall), ph.p.runWallRange(), ph.p.requests.Total,
				served, pct(served, accountRPM), paced, pct(paced, accountRPM),
				ph.p.n429(), ph.p.share429(), ph.p.failed, deletes, perDomain, sizes)
		}
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, "Targets:")
	fmt.Fprintln(b)
	writeVerdicts(b, concurrentVerdicts(results))
	for _, r := range results {
		if w := r.apply.warnings + r.destroy.warnings; w > 0 {
			fmt.Fprintf(b, "\n%s, %s %s: %d runs warned that the rate limit was not shared.\n", r.reading, r.c, r.c.limit(), w)
		}
	}
	fmt.Fprintln(b, "\nNotes: wall is from the start of the first run to the end of the last (the runs start together). "+
		"Served req/min = (requests − 429s) ÷ wall, the requests the account's budget let through, compared with 700/min; "+
		"requests counts every request the emulator answered, 429s included. First to last answer = (served requests − 1) ÷ "+
		"the time from the first served answer to the last: the pace without Terraform's own start and end, informative only "+
		"(the targets use served req/min). 429 share = 429s ÷ requests of the phase. "+
		"Per domain = `DELETE /projects/{project_id}/auth/domains` requests of the destroy ÷ (K × N); domains per DELETE is "+
		"read from the bodies of the successful ones. "+
		"A failed run is a terraform process that exited non-zero. Targets on the 429 share are checked per phase.")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "### Concurrent runs by route")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "| reading | K×N | rate limit | load average at the start | phase | requests served per %.0f s (700/min = %.0f) | by route and status |\n",
		servedWindow.Seconds(), accountRPM*servedWindow.Minutes())
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|")
	for _, r := range results {
		fmt.Fprintf(b, "| %s | %s | %s | %s | apply | %s | %s |\n", r.reading, r.c, r.c.limit(), r.load, r.apply.timeline(), routes(r.apply.requests))
		fmt.Fprintf(b, "| %s | %s | %s | %s | destroy | %s | %s |\n", r.reading, r.c, r.c.limit(), r.load, r.destroy.timeline(), routes(r.destroy.requests))
	}
}

// concurrentVerdicts checks the targets of the cases that were run: crowds
// (4×100, 8×100, 8×50) within 10 % 429s and 0 failed runs, at ≥ 80 % of
// 700/min; a run alone (1×500) at the 429s a run alone may meet
// (maxShare429) and ≥ 95 % of 700/min; runs sharing the machine's bucket
// without a 429; every destroy's batched deletes.
func concurrentVerdicts(results []concResult) []verdict {
	var vs []verdict
	for _, r := range results {
		c := r.c
		name := fmt.Sprintf("%s, %s (%s)", r.reading, c, c.limit())
		failed := r.apply.failed + r.destroy.failed
		switch {
		case c.k == 1 && c.n == 500 && !c.shared:
			limit := maxShare429(r.reading)
			vs = append(vs,
				verdict{r.apply.share429() <= limit && r.destroy.share429() <= limit,
					fmt.Sprintf("%s: 429s ≤ %.0f %% of requests (apply %.1f %%, destroy %.1f %%)", name, limit, r.apply.share429(), r.destroy.share429())},
				verdict{r.apply.servedPerMin() >= 0.95*accountRPM,
					fmt.Sprintf("%s: apply throughput ≥ 95 %% of 700/min (%.0f/min, %.0f %%)", name, r.apply.servedPerMin(), pct(r.apply.servedPerMin(), accountRPM))})
		case (c.k == 4 && c.n == 100) || (c.k == 8 && c.n == 100) || (c.k == 8 && c.n == 50):
			vs = append(vs,
				verdict{failed == 0, fmt.Sprintf("%s: 0 failed runs (%d)", name, failed)},
				verdict{r.apply.share429() <= 10 && r.destroy.share429() <= 10,
					fmt.Sprintf("%s: 429s ≤ 10 %% of requests (apply %.1f %%, destroy %.1f %%)", name, r.apply.share429(), r.destroy.share429())},
				verdict{r.apply.servedPerMin() >= 0.8*accountRPM,
					fmt.Sprintf("%s: apply throughput ≥ 80 %% of 700/min (%.0f/min, %.0f %%)", name, r.apply.servedPerMin(), pct(r.apply.servedPerMin(), accountRPM))})
		}
		if c.shared {
			vs = append(vs, verdict{r.apply.n429()+r.destroy.n429() == 0,
				fmt.Sprintf("%s: 0 × 429 (apply %d, destroy %d)", name, r.apply.n429(), r.destroy.n429())})
		}
		limit := float64(c.k*c.n) / 8
		vs = append(vs, verdict{float64(r.domainDeletes()) <= limit,
			fmt.Sprintf("%s: destroy sends ≤ K·N ÷ 8 = %g `DELETE …/auth/domains` (%d)", name, limit, r.domainDeletes())})
	}
	return vs
}

// errNoCases is returned when the concurrent section has nothing to run.
var errNoCases = errors.New("-concurrent and -concurrent-shared name no case")
