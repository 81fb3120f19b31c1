// Command testsummary reads `go test -json` on stdin and prints what a person
// needs from it: each package's result as it finishes, the whole output of
// every failing test, and at the end where the time went (packages and the
// slowest tests). It starts by naming the Terraform CLI the acceptance tests
// drive. It exits 1 when a test or a package failed, so that `make test`
// fails with it even where the shell does not propagate go test's status.
//
//	TF_ACC=1 go test -json ./... | go run ./scripts/testsummary
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type testKey struct{ pkg, test string }

// skip is a skipped test or subtest and the last line logged before it
// skipped (its t.Skip message; a subtest's output is kept with its parent's).
type skip struct {
	key    testKey
	reason string
}

type summary struct {
	out       io.Writer
	output    map[testKey]*strings.Builder // output of tests (and packages, test "") not yet passed
	tests     map[testKey]float64          // elapsed seconds of finished tests
	packages  map[string]float64           // elapsed seconds of finished packages
	failed    []testKey
	skipped   []skip         // top-level tests that skipped, with their reason
	counts    map[string]int // pass, fail, skip of tests
	nonJSON   []string
	pkgFailed bool
}

func main() {
	if h := header(); h != "" {
		fmt.Println(h)
	}
	s := &summary{out: os.Stdout, output: map[testKey]*strings.Builder{}, tests: map[testKey]float64{}, packages: map[string]float64{}, counts: map[string]int{}}
	start := time.Now()
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		s.line(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary: reading go test -json:", err)
		os.Exit(1)
	}
	s.report(time.Since(start))
	if len(s.failed) > 0 || s.pkgFailed {
		os.Exit(1)
	}
}

// header is the line the summary opens with: the CLI the acceptance tests
// drive, when they run (TF_ACC set). make test's first phase, the packages
// that drive no CLI, said it drove the one on PATH.
func header() string {
	if os.Getenv("TF_ACC") == "" {
		return ""
	}
	return cliLine()
}

// cliLine names the CLI terraform-plugin-testing runs: TF_ACC_TERRAFORM_PATH,
// or terraform on PATH.
func cliLine() string {
	path := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if path == "" {
		p, err := exec.LookPath("terraform")
		if err != nil {
			return "Acceptance tests: no terraform on PATH and TF_ACC_TERRAFORM_PATH unset"
		}
		path = p
	}
	version := "version unknown"
	if out, err := exec.CommandContext(context.Background(), path, "version").Output(); err == nil {
		version, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	}
	return fmt.Sprintf("Acceptance tests drive %s (%s)", path, version)
}

func (s *summary) line(b []byte) {
	var e event
	if err := json.Unmarshal(b, &e); err != nil || e.Action == "" {
		// Build failures and vet output come as plain text.
		fmt.Fprintln(s.out, string(b))
		s.nonJSON = append(s.nonJSON, string(b))
		return
	}
	k := testKey{e.Package, e.Test}
	// Output is kept per top-level test, subtests' with it, and shown in
	// order when the top-level test fails.
	top, _, _ := strings.Cut(e.Test, "/")
	buf := testKey{e.Package, top}
	switch e.Action {
	case "build-output":
		fmt.Fprint(s.out, e.Output)
	case "output":
		k = buf
		if s.output[k] == nil {
			s.output[k] = &strings.Builder{}
		}
		s.output[k].WriteString(e.Output)
	case "pass", "skip":
		if e.Test == "" {
			s.packages[e.Package] = e.Elapsed
			fmt.Fprintf(s.out, "%-4s %s\t%.1fs\n", map[string]string{"pass": "ok", "skip": "skip"}[e.Action], e.Package, e.Elapsed)
		} else {
			s.tests[k] = e.Elapsed
			s.counts[e.Action]++
			if e.Action == "skip" {
				s.skipped = append(s.skipped, skip{k, skipReason(s.output[buf])})
			}
		}
		if k == buf {
			delete(s.output, k)
		}
	case "fail":
		if e.Test == "" {
			s.packages[e.Package] = e.Elapsed
			s.pkgFailed = true
			// A package that failed outside its tests (build, panic,
			// timeout, killed) says why in its own output, or in that of
			// the tests it was running, which never finished.
			for ok, o := range s.output {
				if ok.pkg == e.Package && ok.test != "" {
					fmt.Fprintf(s.out, "--- %s did not finish:\n%s", ok.test, o.String())
					delete(s.output, ok)
				}
			}
			if o := s.output[k]; o != nil && !s.failedIn(e.Package) {
				fmt.Fprint(s.out, o.String())
			}
			fmt.Fprintf(s.out, "FAIL %s\t%.1fs\n", e.Package, e.Elapsed)
			delete(s.output, k)
			return
		}
		s.tests[k] = e.Elapsed
		s.counts["fail"]++
		s.failed = append(s.failed, k)
		if k == buf {
			if o := s.output[k]; o != nil {
				fmt.Fprint(s.out, o.String())
			}
			delete(s.output, k)
		}
	}
}

// failedIn reports whether a test of pkg failed (its output is shown).
func (s *summary) failedIn(pkg string) bool {
	for _, k := range s.failed {
		if k.pkg == pkg {
			return true
		}
	}
	return false
}

func (s *summary) report(wall time.Duration) {
	w := s.out
	fmt.Fprintf(w, "\n== where the time went (%s wall, packages run in parallel) ==\n", wall.Round(time.Second))
	pkgs := make([]string, 0, len(s.packages))
	for p := range s.packages {
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return s.packages[pkgs[i]] > s.packages[pkgs[j]] })
	for _, p := range pkgs {
		fmt.Fprintf(w, "%8.1fs  %s\n", s.packages[p], p)
	}
	keys := make([]testKey, 0, len(s.tests))
	for k := range s.tests {
		if !strings.Contains(k.test, "/") { // top-level tests; subtests are inside them
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return s.tests[keys[i]] > s.tests[keys[j]] })
	fmt.Fprintln(w, "slowest tests:")
	for _, k := range keys[:min(15, len(keys))] {
		fmt.Fprintf(w, "%8.1fs  %s %s\n", s.tests[k], short(k.pkg), k.test)
	}
	fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped\n", s.counts["pass"], s.counts["fail"], s.counts["skip"])
	if len(s.skipped) > 0 {
		fmt.Fprintln(w, "skipped, and why:")
		for _, sk := range s.skipped {
			fmt.Fprintf(w, "  %s %s: %s\n", short(sk.key.pkg), sk.key.test, sk.reason)
		}
	}
	if len(s.failed) > 0 {
		fmt.Fprintln(w, "FAILED:")
		for _, k := range s.failed {
			fmt.Fprintf(w, "  %s %s\n", short(k.pkg), k.test)
		}
	}
	if s.pkgFailed {
		fmt.Fprintln(w, "FAIL: at least one package failed (see above)")
	}
}

// short drops the module path from a package.
func short(pkg string) string {
	if i := strings.Index(pkg, "/internal/"); i >= 0 {
		return pkg[i+1:]
	}
	return pkg
}

// skipReason is the last line a test logged before "--- SKIP", without its
// file:line prefix; "(no reason given)" when it logged nothing.
func skipReason(out *strings.Builder) string {
	if out == nil {
		return "(no reason given)"
	}
	reason := "(no reason given)"
	for line := range strings.Lines(out.String()) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "=== ") {
			continue
		}
		if _, msg, ok := strings.Cut(line, ": "); ok && strings.Contains(line[:len(line)-len(msg)], ".go:") {
			line = msg
		}
		reason = line
	}
	return reason
}
