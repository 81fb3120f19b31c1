package apiclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// sharedAccount is the account limiter of one process using the shared
// bucket id in dir.
func sharedAccount(t *testing.T, dir, id string, rpm int, clk clock) *accountLimiter {
	t.Helper()
	a := newLimiterWithClock(RateLimit{RequestsPerMinute: rpm, Shared: true, SharedDir: dir}, clk).account
	a.bindShared(id)
	if ok, err := a.sharedStatus(); !ok || err != nil {
		t.Fatalf("shared bucket not in use: %v, %v", ok, err)
	}
	return a
}

// Two processes on one bucket together take no more than the configured
// requests per minute, and share them.
func TestSharedBucketKeepsTwoLimitersWithinTheRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rpm = 120
		dir := t.TempDir()
		var mu sync.Mutex
		var grants []time.Time
		perLimiter := map[int]int{}
		end := time.Now().Add(3 * time.Minute)
		var wg sync.WaitGroup
		for l := range 2 {
			a := sharedAccount(t, dir, "acct", rpm, realClock{})
			for range 5 {
				wg.Go(func() {
					for time.Now().Before(end) {
						if err := a.wait(context.Background()); err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						grants = append(grants, time.Now())
						perLimiter[l]++
						mu.Unlock()
						a.observe(http.StatusOK, 0)
					}
				})
			}
		}
		wg.Wait()
		peak, j := 0, 0
		for i := range grants {
			for grants[i].Sub(grants[j]) >= time.Minute {
				j++
			}
			peak = max(peak, i-j+1)
		}
		t.Logf("%d tokens in 3 minutes (%v per limiter), busiest minute %d", len(grants), perLimiter, peak)
		if peak > rpm {
			t.Errorf("%d tokens within one minute, want ≤ %d", peak, rpm)
		}
		if len(grants) < 3*rpm*9/10 {
			t.Errorf("%d tokens in 3 minutes, want ≥ 90%% of %d", len(grants), 3*rpm)
		}
		if min(perLimiter[0], perLimiter[1]) < len(grants)/3 {
			t.Errorf("uneven shares %v", perLimiter)
		}
	})
}

// A 429 met by one process slows every process on the bucket: the rate is
// cut for all, and all wait out the Retry-After.
func TestSharedBucketThrottleReachesEveryProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		a := sharedAccount(t, dir, "acct", 700, realClock{})
		b := sharedAccount(t, dir, "acct", 700, realClock{})
		start := time.Now()
		a.observe(http.StatusTooManyRequests, 5*time.Second)
		if got, want := perMinute(b), 690*throttleBeta; math.Abs(got-want) > 1e-9 {
			t.Errorf("the other process's rate is %.1f/min, want %.1f", got, want)
		}
		if err := b.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("the other process sent after %v, want after the 5 s Retry-After", d)
		}
		// Successes seen by either process bring the rate back for both.
		for range 25 {
			time.Sleep(time.Second)
			b.observe(http.StatusOK, 0)
		}
		if got := perMinute(a); got != 690 {
			t.Errorf("after 25 s of successes the rate is %.1f/min, want 690", got)
		}
	})
}

// A broken state file (a writer killed mid-line, a stray edit, values no
// writer produces) is replaced by an empty bucket: tokens come at once at the
// configured pace, and the file holds a good line again.
func TestSharedBucketRepairsACorruptStateFile(t *testing.T) {
	now := time.Now()
	good := string(encodeState(bucketState{Tokens: 3, Last: now}))
	for name, content := range map[string]string{
		"garbage":          "\x00\x17not a state line at all\n",
		"torn line":        good[:40],
		"checksum":         strings.Replace(good, "v2 3 ", "v2 9 ", 1),
		"older format":     strings.Replace(good, "v2 ", "v1 ", 1),
		"not a number":     string(encodeState(bucketState{Tokens: math.NaN(), Last: now})),
		"pause for a year": string(encodeState(bucketState{Last: now, NotBefore: now.Add(365 * 24 * time.Hour)})),
		"clock ahead":      string(encodeState(bucketState{Last: now.Add(time.Hour)})),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "acct.state"), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			a := sharedAccount(t, dir, "acct", 600, realClock{})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			start := time.Now()
			for range 3 {
				if err := a.wait(ctx); err != nil {
					t.Fatalf("no token from a repaired bucket: %v", err)
				}
			}
			// An empty bucket at 590/min: three tokens in about 0.3 s.
			if d := time.Since(start); d > time.Second {
				t.Errorf("three tokens took %v", d)
			}
			if n := a.shared.Load().repairs.Load(); n != 1 {
				t.Errorf("%d repairs, want 1", n)
			}
			data, err := os.ReadFile(filepath.Join(dir, "acct.state"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := decodeState(data, time.Now()); err != nil {
				t.Errorf("the state file is still broken after use: %q", data)
			}
		})
	}
}

const sharedHolderEnv = "NEON_APICLIENT_SHARED_HOLDER"

// sharedBucketHolderProcess is the process that
// TestSharedBucketSurvivesAHolderKilledMidWrite starts (re-executing the test
// binary with sharedHolderEnv set to the bucket's directory; TestMain runs
// this instead of the tests) and kills. It takes the bucket's lock, writes
// half a line, says so and waits.
func sharedBucketHolderProcess(dir string) {
	f, err := openFileStore(context.Background(), dir, "acct", newBucketParams(10, 10), realClock{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = f.update(context.Background(), func(*bucketState) bool {
		if _, err := f.state.WriteAt([]byte("v1 -4 17"), 0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Stdout.WriteString("holding\n")
		select {}
	})
}

func TestMain(m *testing.M) {
	if dir := os.Getenv(sharedHolderEnv); dir != "" {
		sharedBucketHolderProcess(dir)
	}
	os.Exit(m.Run())
}

// A process killed with SIGKILL while it holds the bucket's lock, half-way
// through writing the state, blocks nobody: the lock dies with it, and the
// next process repairs the state and gets its token at once.
func TestSharedBucketSurvivesAHolderKilledMidWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a Unix signal")
	}
	dir := t.TempDir()
	a := sharedAccount(t, dir, "acct", 600, realClock{})

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), sharedHolderEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ready <- sc.Scan() && sc.Text() == "holding"
		for sc.Scan() {
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the holder process did not take the lock")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the holder process did not start")
	}

	// While it lives, the lock is its: a caller with a deadline gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := a.wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting on a held lock: err = %v, want the deadline", err)
	}
	if ok, err := a.sharedStatus(); !ok || err != nil {
		t.Fatalf("a busy lock dropped sharing: %v, %v", ok, err)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err == nil {
		t.Fatal("the holder process ended by itself")
	}
	start := time.Now()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if err := a.wait(ctx2); err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	t.Logf("token %v after the holder was killed", time.Since(start).Round(time.Millisecond))
	if d := time.Since(start); d > time.Second {
		t.Errorf("token took %v after the holder was killed, want promptly", d)
	}
	if n := a.shared.Load().repairs.Load(); n != 1 {
		t.Errorf("%d repairs of the half-written state, want 1", n)
	}
}

// Clients of one API address and key share a bucket, named by a hash: the
// key appears in no file name and no file content. Another key is another
// bucket.
func TestClientsShareABucketPerAccount(t *testing.T) {
	dir := t.TempDir()
	srv := newStubClient(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"projects":[]}`)) })
	newClient := func(key string) *Client {
		c, err := New(Options{BaseURL: srv.baseURL.String(), APIKey: key, RateLimit: RateLimit{Shared: true, SharedDir: dir}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	const key = "napi_secret_key_0123456789"
	a, b, other := newClient(key), newClient(key), newClient("napi_another_key")
	for _, c := range []*Client{a, b, other} {
		if _, err := c.ListProjects(context.Background(), ListProjectsOptions{}); err != nil {
			t.Fatal(err)
		}
		if ok, err := c.SharedAccountLimit(); !ok || err != nil {
			t.Fatalf("SharedAccountLimit = %v, %v; want true, nil", ok, err)
		}
	}
	if a.limiter.account.shared.Load().state.Name() != b.limiter.account.shared.Load().state.Name() {
		t.Error("two clients of one account use different buckets")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 4 {
		t.Errorf("%d files, want a lock and a state file for each of 2 accounts", len(entries))
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(e.Name(), "secret") || strings.Contains(string(data), "secret") || strings.Contains(string(data), "another") {
			t.Errorf("%s reveals an API key", e.Name())
		}
		if info, _ := e.Info(); runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", e.Name(), info.Mode().Perm())
		}
	}
}

// When the bucket's files cannot be used, the client paces itself alone and
// says why.
func TestSharedBucketFallsBackAndSaysWhy(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := newStubClient(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"projects":[]}`)) })
	c, err := New(Options{BaseURL: srv.baseURL.String(), APIKey: "k", RateLimit: RateLimit{Shared: true, SharedDir: notADir}})
	if err != nil {
		t.Fatal(err)
	}
	ok, err := c.SharedAccountLimit()
	if ok || err == nil || !strings.Contains(err.Error(), "paces itself alone") {
		t.Fatalf("SharedAccountLimit = %v, %v; want false and the reason", ok, err)
	}
	if _, err := c.ListProjects(context.Background(), ListProjectsOptions{}); err != nil {
		t.Errorf("a request after the fallback: %v", err)
	}

	// Not asked for, or nothing to share: no sharing and nothing to report.
	for _, rl := range []RateLimit{{}, {Shared: true, RequestsPerMinute: -1}} {
		c, err := New(Options{BaseURL: srv.baseURL.String(), APIKey: "k", RateLimit: rl})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := c.SharedAccountLimit(); ok || err != nil {
			t.Errorf("%+v: SharedAccountLimit = %v, %v; want false, nil", rl, ok, err)
		}
	}
}
