package acctest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
)

// What the traffic of a test may break of the API reference, and what is
// done about it. A request the provider or a test sends that breaks it
// always fails the test: that is this repository's fault. An answer that
// breaks it fails the test in-process and against this repository's
// neon-emulator (NEON_TEST_EMULATOR, which make test-remote sets), whose
// answers are ours. Against any other server — Neon itself — it is a
// deviation: published specifications and services differ, and the
// question a remote run answers is whether the provider copes. Each
// deviation is logged by the test that met it (an event in
// .tmp/live-tests.json) and summed up at the end of the run (printed by
// make test-live from NEON_TEST_DEVIATIONS_FILE).

const (
	// envTestDeviations names the file the summary of the run's deviations
	// is written to.
	envTestDeviations = "NEON_TEST_DEVIATIONS_FILE"
	// deviationMark starts the log line of each deviation.
	deviationMark = "deviation from the API reference, recorded (not a failure):"
)

// validated is a validator of the traffic of t. At t's end every violation
// of the API reference fails t, except an answer that may deviate, which is
// recorded.
func validated(t *testing.T) *apispec.Validator {
	t.Helper()
	v, err := apispec.NewValidator(nil)
	if err != nil {
		t.Fatalf("loading the OpenAPI document: %v", err)
	}
	t.Cleanup(func() {
		for _, violation := range v.Violations() {
			if violation.OfAnswer() && answersMayDeviate() {
				t.Logf("%s %s", deviationMark, violation)
				runDeviations.add(t.Name(), violation)
				continue
			}
			t.Errorf("OpenAPI violation: %s", violation)
		}
	})
	return v
}

// answersMayDeviate reports whether the server's answers are recorded
// rather than held to the reference: a remote server that is not this
// repository's emulator.
func answersMayDeviate() bool { return remoteRun != nil && !remoteRun.ownEmulator }

// deviationLog gathers the run's deviations, each with how often it was met
// and by which tests.
type deviationLog struct {
	mu    sync.Mutex
	byKey map[string]*deviation
	order []string
}

type deviation struct {
	times int
	tests []string
}

var runDeviations = &deviationLog{byKey: map[string]*deviation{}}

func (l *deviationLog) add(test string, v apispec.Violation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := v.String()
	d := l.byKey[key]
	if d == nil {
		d = &deviation{}
		l.byKey[key] = d
		l.order = append(l.order, key)
	}
	d.times++
	if !slices.Contains(d.tests, test) {
		d.tests = append(d.tests, test)
	}
}

// summary describes every deviation met, most frequent first; or says that
// none was.
func (l *deviationLog) summary(server string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.order) == 0 {
		return fmt.Sprintf("The answers of %s followed the API reference: no deviation recorded.\n", server)
	}
	keys := slices.Clone(l.order)
	slices.SortStableFunc(keys, func(a, b string) int { return l.byKey[b].times - l.byKey[a].times })
	total := 0
	for _, k := range keys {
		total += l.byKey[k].times
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s deviated from the API reference %d times, in %d ways; recorded, not failures (the provider's handling of each "+
		"is what the tests checked):\n", server, total, len(keys))
	for _, k := range keys {
		d := l.byKey[k]
		fmt.Fprintf(&b, "  %s\n    %d× in %s\n", k, d.times, strings.Join(d.tests, ", "))
	}
	return b.String()
}

// deviationRecord is a deviation as the run's record keeps it.
type deviationRecord struct {
	Violation string   `json:"violation"`
	Times     int      `json:"times"`
	Tests     []string `json:"tests"`
}

// records are the log's deviations in the order they were first met.
func (l *deviationLog) records() []deviationRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]deviationRecord, 0, len(l.order))
	for _, k := range l.order {
		out = append(out, deviationRecord{Violation: k, Times: l.byKey[k].times, Tests: l.byKey[k].tests})
	}
	return out
}

// addRecords adds deviations that other processes of the run met.
func (l *deviationLog) addRecords(rs []deviationRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range rs {
		d := l.byKey[r.Violation]
		if d == nil {
			d = &deviation{}
			l.byKey[r.Violation] = d
			l.order = append(l.order, r.Violation)
		}
		d.times += r.Times
		for _, test := range r.Tests {
			if !slices.Contains(d.tests, test) {
				d.tests = append(d.tests, test)
			}
		}
	}
}

// reportDeviations prints the summary of a remote run that may deviate (the
// run's events keep it) and, when NEON_TEST_DEVIATIONS_FILE is set, writes
// the summary of the whole run there: go test runs each package's tests in
// a process of its own, and each adds its deviations to those its
// predecessors recorded beside the file (<file>.json; make test-live
// removes both before a run).
func reportDeviations() error {
	if !answersMayDeviate() {
		return nil
	}
	fmt.Print(runDeviations.summary(remoteRun.baseURL))
	file := os.Getenv(envTestDeviations)
	if file == "" {
		return nil
	}
	unlock, err := lockFile(file + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	all := &deviationLog{byKey: map[string]*deviation{}}
	switch raw, err := os.ReadFile(file + ".json"); {
	case err == nil:
		var earlier []deviationRecord
		if err := json.Unmarshal(raw, &earlier); err != nil {
			return fmt.Errorf("reading the run's record of deviations %s.json: %w", file, err)
		}
		all.addRecords(earlier)
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	all.addRecords(runDeviations.records())
	raw, err := json.Marshal(all.records())
	if err != nil {
		return err
	}
	if err := os.WriteFile(file+".json", raw, 0o644); err != nil {
		return err
	}
	return os.WriteFile(file, []byte(all.summary(remoteRun.baseURL)), 0o644)
}

// lockFile takes a lock shared by the processes of a run, a file only one
// of them can create, and answers its release. A lock older than a minute
// was left by a process that stopped: it is taken over.
func lockFile(name string) (func(), error) {
	for {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			_ = f.Close()
			return func() { _ = os.Remove(name) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if info, err := os.Stat(name); err == nil && time.Since(info.ModTime()) > time.Minute {
			_ = os.Remove(name)
			continue
		}
		time.Sleep(50 * time.Millisecond)
	}
}
