package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The state file survives a crash at any moment: the emulator process is
// SIGKILLed while two clients stream writes at it, in several rounds with
// different (seeded, reproducible) moments. After each kill the state file is
// a complete JSON document the loader accepts, the process restarts on it with
// the same bootstrap key, and every write that got a 2xx before the kill is
// there — exactly once. Writes in flight at the kill may or may not have
// landed; whichever it is, it stays that way in later rounds.

const (
	crashHelperEnv  = "NEON_EMULATOR_CRASH_HELPER"
	crashSeed       = 8 // the kill moments derive from it
	crashRounds     = 12
	crashMaxKillAt  = 300 * time.Millisecond
	crashWriters    = 2
	crashStartLimit = 10 * time.Second
	crashBootstrap  = "crash-test-bootstrap-key"
)

// crashHelperProcess is the emulator process that
// TestStateFileSurvivesSIGKILLAtAnyMoment starts (re-executing the test
// binary with crashHelperEnv=1; TestMain runs this instead of the tests) and
// kills. Its arguments follow "--".
func crashHelperProcess() {
	args := os.Args
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	}
	err := func() error {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return run(ctx, args, os.Stdout, os.Stderr)
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "neon-emulator:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// emulatorProcess is a running emulator command in a child process.
type emulatorProcess struct {
	cmd     *exec.Cmd
	baseURL string // http://127.0.0.1:PORT/api/v2/
	exited  chan struct{}
	stderr  *lockedBuffer
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startEmulatorProcess starts the emulator on a free loopback port and waits
// for its readiness line; the ready file must hold the same line.
func startEmulatorProcess(t *testing.T, stateFile, readyFile string) *emulatorProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "--",
		"-listen", "127.0.0.1:0", "-bootstrap-key", crashBootstrap, "-state-file", stateFile,
		"-ready-file", readyFile, "-account-rpm", "-1", "-route-rps", "-1")
	cmd.Env = append(os.Environ(), crashHelperEnv+"=1")
	p := &emulatorProcess{cmd: cmd, exited: make(chan struct{}), stderr: &lockedBuffer{}}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the emulator process: %v", err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.kill(t) })

	select {
	case line, ok := <-lines:
		base, found := strings.CutPrefix(line, "NEON_API_BASE_URL=")
		if !ok || !found {
			<-p.exited
			t.Fatalf("the emulator process did not get ready: first line %q; stderr: %s", line, p.stderr)
		}
		p.baseURL = base
		ready, err := os.ReadFile(readyFile)
		if err != nil || string(ready) != line+"\n" {
			t.Fatalf("ready file = %q, %v; want the readiness line %q (rewritten by the new process)", ready, err, line)
		}
		u, err := url.Parse(base)
		if err != nil || u.Hostname() != "127.0.0.1" {
			t.Fatalf("base URL %q is not on loopback", base)
		}
	case <-time.After(crashStartLimit):
		t.Fatalf("the emulator process printed no readiness line within %v; stderr: %s", crashStartLimit, p.stderr)
	}
	return p
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *emulatorProcess) kill(t *testing.T) {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	select {
	case <-p.exited:
	case <-time.After(crashStartLimit):
		t.Errorf("the emulator process did not exit within %v of SIGKILL", crashStartLimit)
	}
}

// client sends API and control requests to a process.
type crashClient struct {
	http *http.Client
	base string
}

func newCrashClient(t *testing.T, base string) *crashClient {
	base0, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		t.Fatalf("http.DefaultTransport is a %T", http.DefaultTransport)
	}
	tr := base0.Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &crashClient{http: &http.Client{Transport: tr, Timeout: 5 * time.Second}, base: base}
}

// do sends a request; err is a transport error (no response at all).
func (c *crashClient) do(ctx context.Context, method, path string, body any, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(data)
	}
	target := c.base + strings.TrimPrefix(path, "/")
	if rest, ok := strings.CutPrefix(path, "/_emulator/"); ok {
		target = strings.TrimSuffix(c.base, "api/v2/") + "_emulator/" + rest
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+crashBootstrap)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err // the reply was cut: the outcome is unknown
	}
	if out != nil && resp.StatusCode/100 == 2 && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decode %s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// fate is what the test knows about one written item.
type fate int

const (
	fateCreating fate = iota // create sent, no reply (in flight at the kill)
	fatePresent              // created with a 2xx, or found after a restart: must be there
	fateDeleting             // delete sent, no reply
	fateAbsent               // deleted with a 2xx, or a create that never landed: must not be there
)

// item is one written thing: kind is project, integration, domain, user or oauth.
type item struct{ kind, name string }

func (i item) String() string { return i.kind + " " + i.name }

// ledger records every write and its outcome, across rounds.
type ledger struct {
	mu       sync.Mutex
	fates    map[item]fate
	acked    map[item]bool // got a 2xx at some point (create or delete)
	ackedN   int           // writes answered with a 2xx, over all rounds
	inFlight int           // writes without a reply, over all rounds
	failures []string      // unexpected non-2xx answers
}

func (l *ledger) is(it item, f fate) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	got, ok := l.fates[it]
	return ok && got == f
}

func (l *ledger) set(it item, f fate) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fates[it] = f
}

// record stores the outcome of a write of it that was sent as `sent`
// (fateCreating or fateDeleting).
func (l *ledger) record(it item, sent fate, status int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err != nil:
		l.fates[it] = sent
		l.inFlight++
	case status/100 == 2:
		l.acked[it] = true
		l.ackedN++
		if sent == fateCreating {
			l.fates[it] = fatePresent
		} else {
			l.fates[it] = fateAbsent
		}
	default:
		l.failures = append(l.failures, fmt.Sprintf("write of %s answered %d", it, status))
		if sent == fateCreating {
			l.fates[it] = fateAbsent
		} else {
			l.fates[it] = fatePresent
		}
	}
}

// claimDomainToDelete picks the oldest domain known to be present and marks
// it as being deleted, so that no two writers pick the same one.
func (l *ledger) claimDomainToDelete() (item, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var candidates []item
	for it, f := range l.fates {
		if it.kind == "domain" && f == fatePresent {
			candidates = append(candidates, it)
		}
	}
	if len(candidates) == 0 {
		return item{}, false
	}
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].name < candidates[j].name })
	l.fates[candidates[0]] = fateDeleting
	return candidates[0], true
}

// writeStream writes until ctx is done or the process is gone. Item names
// come from a counter shared by all writers and rounds, so no name is ever
// written twice.
type writeStream struct {
	c       *crashClient
	l       *ledger
	project string
	counter *atomic.Int64
}

var crashOAuthIDs = []string{"google", "github", "microsoft"}

func (s *writeStream) run(ctx context.Context) {
	for ctx.Err() == nil {
		i := s.counter.Add(1)
		var err error
		switch i % 6 {
		case 0:
			err = s.create(ctx, item{"project", fmt.Sprintf("crash-p-%05d", i)}, "POST", "/projects",
				map[string]any{"project": map[string]any{"name": fmt.Sprintf("crash-p-%05d", i)}})
		case 1, 3:
			d := fmt.Sprintf("https://d%05d.example.com", i)
			err = s.create(ctx, item{"domain", d}, "POST", "/projects/"+s.project+"/auth/domains",
				map[string]any{"domain": d, "auth_provider": "stack"})
		case 2, 4:
			email := fmt.Sprintf("u%05d@example.com", i)
			err = s.create(ctx, item{"user", email}, "POST", "/projects/auth/user",
				map[string]any{"project_id": s.project, "auth_provider": "stack", "email": email})
		case 5:
			if n := i / 6; n < int64(len(crashOAuthIDs)) {
				err = s.create(ctx, item{"oauth", crashOAuthIDs[n]}, "POST", "/projects/"+s.project+"/auth/oauth_providers",
					map[string]any{"id": crashOAuthIDs[n]})
				break
			}
			d, ok := s.l.claimDomainToDelete()
			if !ok {
				continue
			}
			status, derr := s.c.do(ctx, "DELETE", "/projects/"+s.project+"/auth/domains",
				map[string]any{"auth_provider": "stack", "domains": []any{map[string]any{"domain": d.name}}}, nil)
			s.l.record(d, fateDeleting, status, derr)
			err = derr
		}
		if err != nil {
			return // the process is gone
		}
	}
}

func (s *writeStream) create(ctx context.Context, it item, method, path string, body any) error {
	s.l.set(it, fateCreating)
	status, err := s.c.do(ctx, method, path, body, nil)
	s.l.record(it, fateCreating, status, err)
	return err
}

// observe reads everything the test may have written from a running process
// and counts each item.
func observe(t *testing.T, c *crashClient, project string) map[item]int {
	t.Helper()
	ctx := t.Context()
	seen := map[item]int{}
	must := func(method, path string, out any, okStatuses ...int) int {
		t.Helper()
		status, err := c.do(ctx, method, path, nil, out)
		if err != nil || !slices.Contains(okStatuses, status) {
			t.Fatalf("after restart, %s %s = %d, %v; want one of %v", method, path, status, err, okStatuses)
		}
		return status
	}
	cursor := ""
	for {
		var page struct {
			Projects   []struct{ Name string }
			Pagination *struct{ Cursor string }
		}
		path := "/projects?limit=400"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		must("GET", path, &page, http.StatusOK)
		if len(page.Projects) == 0 {
			break
		}
		for _, p := range page.Projects {
			if strings.HasPrefix(p.Name, "crash-p-") {
				seen[item{"project", p.Name}]++
			}
		}
		cursor = page.Pagination.Cursor
	}

	var integrations struct {
		Data []struct {
			AuthProvider string `json:"auth_provider"`
		}
	}
	must("GET", "/projects/"+project+"/auth/integrations", &integrations, http.StatusOK)
	for _, in := range integrations.Data {
		seen[item{"integration", in.AuthProvider}]++
	}
	if len(integrations.Data) == 0 {
		return seen
	}
	var domains struct{ Domains []struct{ Domain string } }
	must("GET", "/projects/"+project+"/auth/domains", &domains, http.StatusOK)
	for _, d := range domains.Domains {
		seen[item{"domain", d.Domain}]++
	}
	var providers struct{ Providers []struct{ ID string } }
	must("GET", "/projects/"+project+"/auth/oauth_providers", &providers, http.StatusOK)
	for _, p := range providers.Providers {
		seen[item{"oauth", p.ID}]++
	}
	var users struct{ Rows []struct{ Email string } }
	must("GET", "/_emulator/projects/"+project+"/users_sync", &users, http.StatusOK)
	for _, u := range users.Rows {
		seen[item{"user", u.Email}]++
	}
	return seen
}

// checkStateFileAfterKill checks what a crash left on disk: a complete state
// file the loader accepts, and beside it nothing but the (stale) ready file
// and hidden temp files of an interrupted save, which the loader never reads.
// It adds the names of such temp files to temps.
func checkStateFileAfterKill(t *testing.T, dir, stateFile, readyFile string, temps map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(stateFile)
	if errors.Is(err, os.ErrNotExist) {
		return // killed before the first save: nothing was acknowledged either
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("after SIGKILL the state file is not a complete JSON document (%d bytes): %v", len(data), err)
	}
	for _, field := range []string{"version", "keys", "projects"} {
		if _, ok := doc[field]; !ok {
			t.Errorf("after SIGKILL the state file lacks %q", field)
		}
	}
	// The loader itself accepts it (on a copy: New rewrites its file).
	cp := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(cp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := emulator.New(emulator.Options{StateFile: cp, BootstrapKey: crashBootstrap}); err != nil {
		t.Fatalf("after SIGKILL the loader refuses the state file: %v", err)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == filepath.Base(stateFile), name == filepath.Base(readyFile):
		case strings.HasPrefix(name, "."+filepath.Base(stateFile)+".tmp-"):
			temps[name] = true
		default:
			t.Errorf("after SIGKILL the state directory holds %q, want only the state file, the ready file and hidden temp files", name)
		}
	}
}

// verify compares what the restarted process holds with the ledger, then
// settles the fate of writes that were in flight: whatever they became is
// what later rounds must keep.
func (l *ledger) verify(t *testing.T, seen map[item]int, round int) (checkedAcked int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for it, n := range seen {
		if _, ok := l.fates[it]; !ok {
			t.Errorf("round %d: %s is present (%d×) but was never written", round, it, n)
		}
	}
	for it, f := range l.fates {
		n := seen[it]
		if n > 1 {
			t.Errorf("round %d: %s is present %d times, want at most once", round, it, n)
		}
		switch f {
		case fatePresent:
			if n == 0 {
				what := "found present after an earlier restart"
				if l.acked[it] {
					what = "acknowledged with a 2xx"
				}
				t.Errorf("round %d: %s was %s but is lost after SIGKILL and restart", round, it, what)
			}
		case fateAbsent:
			if n != 0 {
				t.Errorf("round %d: %s was deleted with a 2xx (or never landed) but is present after restart", round, it)
			}
		case fateCreating, fateDeleting:
			// In flight at the kill: either outcome is fine, from now on it is fixed.
			if n > 0 {
				l.fates[it] = fatePresent
			} else {
				l.fates[it] = fateAbsent
			}
		}
		if l.acked[it] {
			checkedAcked++
		}
	}
	return checkedAcked
}

func TestStateFileSurvivesSIGKILLAtAnyMoment(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills emulator processes")
	}
	started := time.Now()
	dir := t.TempDir()
	stateFile := filepath.Join(dir, "state.json")
	readyFile := filepath.Join(dir, "ready.env")
	rng := rand.New(rand.NewPCG(crashSeed, crashSeed))
	l := &ledger{fates: map[item]fate{}, acked: map[item]bool{}}
	var counter atomic.Int64
	tempFiles, checked := map[string]bool{}, 0

	p := startEmulatorProcess(t, stateFile, readyFile)
	c := newCrashClient(t, p.baseURL)
	var projects struct{ Projects []struct{ ID string } }
	if status, err := c.do(t.Context(), "GET", "/projects", nil, &projects); err != nil || status != http.StatusOK || len(projects.Projects) != 1 {
		t.Fatalf("GET /projects = %d, %v, %+v; want the one seed project", status, err, projects)
	}
	project := projects.Projects[0].ID
	var branches struct{ Branches []struct{ ID string } }
	if status, err := c.do(t.Context(), "GET", "/projects/"+project+"/branches", nil, &branches); err != nil || status != http.StatusOK {
		t.Fatalf("GET branches = %d, %v", status, err)
	}
	integration := item{"integration", "stack"}

	// crashRounds kills, and more while the stream has not yet acknowledged
	// enough writes to prove anything (a loaded machine writes slowly).
	round := 1
	for ; round <= crashRounds || (l.ackedN < 10*crashRounds && round <= 4*crashRounds); round++ {
		killAt := time.Duration(rng.Int64N(int64(crashMaxKillAt)))
		if round == 1 {
			killAt = 0 // the very first write (the integration) may be in flight
		}
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The stream begins with the integration unless it exists.
			if !l.is(integration, fatePresent) {
				err := (&writeStream{c: c, l: l, project: project, counter: &counter}).create(ctx, integration, "POST", "/projects/auth/create",
					map[string]any{"auth_provider": "stack", "project_id": project, "branch_id": branches.Branches[0].ID,
						"database_name": "neondb", "role_name": "neondb_owner"})
				if err != nil {
					return
				}
			}
			var writers sync.WaitGroup
			for range crashWriters {
				writers.Add(1)
				go func() {
					defer writers.Done()
					(&writeStream{c: c, l: l, project: project, counter: &counter}).run(ctx)
				}()
			}
			writers.Wait()
		}()

		<-time.After(killAt) // the kill moment is the point of the test, not a wait for readiness
		p.kill(t)
		cancel()
		wg.Wait()

		checkStateFileAfterKill(t, dir, stateFile, readyFile, tempFiles)
		p = startEmulatorProcess(t, stateFile, readyFile)
		// The restart removed what interrupted saves left: each was a full
		// copy of the state, secrets included.
		if stale, _ := filepath.Glob(filepath.Join(dir, "."+filepath.Base(stateFile)+".tmp-*")); len(stale) > 0 {
			t.Errorf("round %d: after the restart %d temp file(s) of interrupted saves remain: %v", round, len(stale), stale)
		}
		c = newCrashClient(t, p.baseURL)
		checked = l.verify(t, observe(t, c, project), round)
		if t.Failed() {
			t.Fatalf("round %d (SIGKILL %v into the write stream, seed %d) failed; see above", round, killAt, crashSeed)
		}
		t.Logf("round %d: SIGKILL %v into the stream; %d acknowledged writes so far, on %d items, all verified",
			round, killAt.Round(time.Millisecond), l.ackedN, checked)
	}
	if len(l.failures) > 0 {
		t.Errorf("writes answered with an unexpected status: %v", l.failures)
	}
	if l.ackedN < 10*crashRounds {
		t.Errorf("only %d acknowledged writes over %d rounds; the stream is too thin to prove anything", l.ackedN, round-1)
	}
	t.Logf("%d rounds: %d acknowledged writes (on %d items) verified after the kills, %d writes in flight at a kill, "+
		"%d temp files left by interrupted saves, %v",
		round-1, l.ackedN, checked, l.inFlight, len(tempFiles), time.Since(started).Round(time.Millisecond))
}
