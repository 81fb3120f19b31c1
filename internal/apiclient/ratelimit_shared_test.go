package apiclient

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// shared_rate_limit: the processes of a machine take their turns from one
// bucket in a file.

// Whatever the limit, the shared bucket alone keeps every minute within it:
// a greedy sender never gets more than RequestsPerMinute turns in a minute.
func TestTheSharedBucketKeepsEveryMinuteWithinTheLimit(t *testing.T) {
	for _, rpm := range []int{1, 5, 60, 700, 5000} {
		b, err := openSharedBucket(t.TempDir(), "account", rpm)
		if err != nil {
			t.Fatal(err)
		}
		var turns []time.Time
		now := time.Now()
		for range 3 * rpm {
			at, err := b.turn(context.Background(), now)
			if err != nil {
				t.Fatal(err)
			}
			turns, now = append(turns, at), at
		}
		if n := mostInWindow(turns, time.Minute); n > rpm {
			t.Errorf("rpm %d: %d turns in one minute", rpm, n)
		}
		if perMin := float64(len(turns)-1) / turns[len(turns)-1].Sub(turns[0]).Minutes(); perMin < 0.9*float64(rpm) {
			t.Errorf("rpm %d: %.1f turns per minute, want at least 90 %% of the limit", rpm, perMin)
		}
	}
}

// Two processes sharing the bucket send together no more than one process
// alone may: every reading of the documented limits holds for the requests
// of both (an account that counts by the bucket refuses none of them), and
// they still use the account to the full.
func TestProcessesSharingTheBucketStayWithinTheLimitTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		rl := RateLimit{Shared: true, SharedDir: dir}
		first, second := newLimiter(rl, "account"), newLimiter(rl, "account")
		for _, l := range []*limiter{first, second} {
			if l.account.shared == nil {
				t.Fatalf("not shared: %v", l.account.sharedErr)
			}
		}
		start := time.Now()
		done := make(chan []sent)
		srv := newBucketServer()
		for _, l := range []*limiter{first, second} {
			go func() { done <- run(t, l, together(500, "POST /domains"), 20*time.Millisecond, srv) }()
		}
		out := append(<-done, <-done...)
		slices.SortFunc(out, func(a, b sent) int { return a.at.Compare(b.at) })
		checkTheWindows(t, out)
		if n := refused(out); n != 0 {
			t.Errorf("%d × 429 from the bucket", n)
		}
		took := out[len(out)-1].at.Sub(start)
		if perMin := float64(len(out)) / took.Minutes(); perMin < 0.95*DefaultAccountRequestsPerMinute {
			t.Errorf("%.0f requests per minute together, want at least 95 %% of %d", perMin, DefaultAccountRequestsPerMinute)
		}
	})
}

// The bucket of an account is named by a hash of the API's address and key,
// readable by the user alone, and holds neither.
func TestTheSharedBucketIsOnePerAccountAndHoldsNoKey(t *testing.T) {
	dir := t.TempDir()
	for _, key := range []string{"napi_first_key", "napi_second_key", "napi_first_key"} {
		c, err := New(Options{BaseURL: "http://127.0.0.1:9/api/v2/", APIKey: key, RateLimit: RateLimit{Shared: true, SharedDir: dir}})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := c.SharedAccountLimit(); !ok || err != nil {
			t.Fatalf("SharedAccountLimit() = %v, %v", ok, err)
		}
		if _, err := c.limiter.account.shared.turn(context.Background(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Errorf("%d files, want a lock and a state for each of the two keys", len(files))
	}
	for _, f := range files {
		info, err := f.Info()
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm()&0o077 != 0 || strings.Contains(f.Name()+string(data), "napi_") || strings.Contains(string(data), "127.0.0.1") {
			t.Errorf("%s (mode %v) holds the key or the address, or others may read it: %q", f.Name(), info.Mode().Perm(), data)
		}
	}
}

// A state that does not check out (a writer died mid-write, a stray edit, a
// clock stepped back) is an empty bucket: the next turn comes at the shared
// rate, not at once and not after the broken time.
func TestABrokenSharedStateIsAnEmptyBucket(t *testing.T) {
	dir := t.TempDir()
	b, err := openSharedBucket(dir, "account", DefaultAccountRequestsPerMinute)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	state := func(t time.Time, sum uint32) []byte {
		b := binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano()))
		return binary.BigEndian.AppendUint32(b, sum)
	}
	ahead := state(now.Add(time.Hour), 0)
	for _, broken := range [][]byte{
		[]byte("not a state"),
		state(now.Add(-time.Hour), 1234),                         // a wrong checksum
		state(now.Add(time.Hour), crc32.ChecksumIEEE(ahead[:8])), // far ahead: a clock stepped back
	} {
		if err := os.WriteFile(filepath.Join(dir, "account.state"), broken, 0o600); err != nil {
			t.Fatal(err)
		}
		at, err := b.turn(context.Background(), now)
		if err != nil {
			t.Fatal(err)
		}
		if want := now.Add(time.Duration(float64(time.Second) / float64(b.limit))); at.Sub(want).Abs() > time.Millisecond {
			t.Errorf("state %q: turn after %v, want %v", broken, at.Sub(now), want.Sub(now))
		}
	}
}

// A directory that cannot hold the bucket leaves the process pacing itself
// alone, and SharedAccountLimit says why.
func TestSharingThatCannotBeHadSaysWhy(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{BaseURL: "http://127.0.0.1:9/api/v2/", APIKey: "k", RateLimit: RateLimit{Shared: true, SharedDir: notADir}})
	if err != nil {
		t.Fatal(err)
	}
	ok, err := c.SharedAccountLimit()
	if ok || err == nil || !strings.Contains(err.Error(), "paces itself alone") || !strings.Contains(err.Error(), notADir) {
		t.Errorf("SharedAccountLimit() = %v, %v; want false and why", ok, err)
	}
	if _, err := c.limiter.wait(context.Background(), "GET /a"); err != nil {
		t.Errorf("the client does not send alone: %v", err)
	}
}
