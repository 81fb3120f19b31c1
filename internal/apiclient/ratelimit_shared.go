package apiclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gofrs/flock"
)

// A shared bucket lets the processes of one machine that use the same
// account (parallel applies, run-all tools, CI jobs on one runner) take their
// requests from one adaptive token bucket, so that together they stay within
// the account limit, and a 429 met by any of them slows them all.
//
// It is two files in a directory, named after a hash of the API's address and
// the API key (neither appears in a name or in the content):
//
//   - <id>.lock, only ever locked (flock on Unix, LockFileEx on Windows).
//     The operating system drops the lock of a process that dies, so a
//     process killed while holding it never blocks the others.
//   - <id>.state, the bucketState as one fixed-size line with a checksum,
//     read and rewritten in place under the lock. A line that does not
//     check out (a writer died mid-write, a stray edit) is replaced by an
//     empty bucket at the caller's configured rate: at worst one burst's
//     worth of pacing is lost, never the ability to send.

// sharedBucketSubdir is where shared buckets live, under the user's cache
// directory, when RateLimit.SharedDir is empty.
const sharedBucketSubdir = "terraform-provider-neon/ratelimit"

const (
	// stateRecordSize is the fixed length of the state line.
	stateRecordSize = 256
	// lockRetry is how often a busy lock is tried again. Updates hold it for
	// microseconds, so waiting for it is rare and short.
	lockRetry = time.Millisecond
	// clockSlack is how far past its bound a stored time may lie before the
	// state is taken as broken (a wall clock stepped back, a stray edit):
	// otherwise a clock stepped back would stall every process until it
	// caught up.
	clockSlack = time.Second
	// openWait bounds how long opening a bucket waits for its lock (held by
	// a stopped process, say) before the client paces itself alone.
	openWait = 5 * time.Second
	// maxStoredTokens bounds the stored token count either way (reservations
	// below zero are bounded by the callers waiting).
	maxStoredTokens = 1e6
)

// accountID names an account's shared bucket.
func accountID(scheme, host, apiKey string) string {
	h := sha256.Sum256([]byte(strings.ToLower(scheme) + "://" + strings.ToLower(host) + "\x00" + apiKey))
	return hex.EncodeToString(h[:16])
}

// fileStore is a shared bucket: the state file guarded by the lock file. Its
// update works as memStore's, across processes.
type fileStore struct {
	// turn keeps the goroutines of this process apart (a flock.Flock counts
	// as locked for every goroutine once one of them holds it); a channel
	// rather than a mutex, so that waiting for it heeds the context.
	turn  chan struct{}
	lock  *flock.Flock
	state *os.File
	p     bucketParams
	clock clock

	repairs atomic.Int64 // state lines found broken and replaced
}

// openFileStore opens (creating when needed) the shared bucket id in dir and
// checks that the lock works there.
func openFileStore(ctx context.Context, dir, id string, p bucketParams, clk clock) (*fileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	st, err := os.OpenFile(filepath.Join(dir, id+".state"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	f := &fileStore{turn: make(chan struct{}, 1), lock: flock.New(filepath.Join(dir, id+".lock"), flock.SetPermissions(0o600)), state: st, p: p, clock: clk}
	if err := f.update(ctx, func(*bucketState) bool { return false }); err != nil {
		_ = st.Close()
		return nil, err
	}
	return f, nil
}

func (f *fileStore) update(ctx context.Context, fn func(*bucketState) bool) error {
	select {
	case f.turn <- struct{}{}:
		defer func() { <-f.turn }()
	case <-ctx.Done():
		return ctx.Err()
	}
	ok, err := f.lock.TryLock()
	if err == nil && !ok {
		ok, err = f.lock.TryLockContext(ctx, lockRetry)
	}
	if err != nil {
		return err
	}
	if !ok {
		return ctx.Err()
	}
	defer func() { _ = f.lock.Unlock() }()

	buf := make([]byte, stateRecordSize)
	n, err := f.state.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	now := f.clock.Now()
	s, err := decodeState(buf[:n], now)
	write := err != nil
	switch {
	case n == 0:
		s = freshState(f.p, now)
	case err != nil:
		// No burst: nobody knows how much of it was just spent.
		s = bucketState{Last: now}
		f.repairs.Add(1)
	}
	if fn(&s) {
		write = true
	}
	if !write {
		return nil
	}
	_, err = f.state.WriteAt(encodeState(s), 0)
	return err
}

// encodeState writes s as a fixed-size line ending in a CRC-32 of the rest.
func encodeState(s bucketState) []byte {
	body := fmt.Sprintf("v2 %s %d %d %d %s %d %d %s",
		strconv.FormatFloat(s.Tokens, 'g', -1, 64), unixNano(s.Last), unixNano(s.NotBefore),
		unixNano(s.Cut), strconv.FormatFloat(s.WMax, 'g', -1, 64), unixNano(s.Confirmed), s.Epoch,
		strconv.FormatFloat(s.Start, 'g', -1, 64))
	line := fmt.Sprintf("%s %08x", body, crc32.ChecksumIEEE([]byte(body)))
	buf := bytes.Repeat([]byte{' '}, stateRecordSize)
	copy(buf, line)
	buf[stateRecordSize-1] = '\n'
	return buf
}

var errBrokenState = errors.New("broken shared rate limit state")

// decodeState reads a line written by encodeState, refusing anything that
// does not check out or holds values no writer produces.
func decodeState(b []byte, now time.Time) (bucketState, error) {
	line, _, found := bytes.Cut(b, []byte{'\n'})
	if !found {
		return bucketState{}, errBrokenState
	}
	text := strings.TrimRight(string(line), " ")
	i := strings.LastIndexByte(text, ' ')
	if i < 0 {
		return bucketState{}, errBrokenState
	}
	body, sum := text[:i], text[i+1:]
	if want, err := strconv.ParseUint(sum, 16, 32); err != nil || uint32(want) != crc32.ChecksumIEEE([]byte(body)) {
		return bucketState{}, errBrokenState
	}
	fields := strings.Fields(body)
	if len(fields) != 9 || fields[0] != "v2" {
		return bucketState{}, errBrokenState
	}
	var s bucketState
	var ints [4]int64
	var err error
	for j, k := range []int{2, 3, 4, 6} {
		if ints[j], err = strconv.ParseInt(fields[k], 10, 64); err != nil || ints[j] < 0 {
			return bucketState{}, errBrokenState
		}
	}
	if s.Epoch, err = strconv.ParseUint(fields[7], 10, 64); err != nil {
		return bucketState{}, errBrokenState
	}
	s.Last, s.NotBefore, s.Cut, s.Confirmed = fromUnixNano(ints[0]), fromUnixNano(ints[1]), fromUnixNano(ints[2]), fromUnixNano(ints[3])
	s.Tokens, err = strconv.ParseFloat(fields[1], 64)
	if err != nil || math.IsNaN(s.Tokens) || math.Abs(s.Tokens) > maxStoredTokens {
		return bucketState{}, errBrokenState
	}
	for _, f := range []struct {
		dst *float64
		at  int
	}{{&s.WMax, 5}, {&s.Start, 8}} {
		*f.dst, err = strconv.ParseFloat(fields[f.at], 64)
		if err != nil || math.IsNaN(*f.dst) || *f.dst < 0 || math.IsInf(*f.dst, 0) {
			return bucketState{}, errBrokenState
		}
	}
	// Only a pause lies ahead of now, and the bucket's count with it.
	if s.NotBefore.After(now.Add(maxPause+clockSlack)) || s.Last.After(maxTime(now, s.NotBefore).Add(clockSlack)) ||
		s.Cut.After(now.Add(clockSlack)) || s.Confirmed.After(now.Add(clockSlack)) {
		return bucketState{}, errBrokenState
	}
	return s, nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// bindShared moves the account limiter onto the shared bucket of account id,
// once. When that fails, the limiter stays on its in-process bucket and the
// reason is kept for sharedStatus.
func (a *accountLimiter) bindShared(id string) {
	if !a.share {
		return
	}
	a.bindOnce.Do(func() {
		dir := a.sharedDir
		if dir == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				a.fallBack(err)
				return
			}
			dir = filepath.Join(cache, filepath.FromSlash(sharedBucketSubdir))
		}
		ctx, cancel := context.WithTimeout(context.Background(), openWait)
		defer cancel()
		f, err := openFileStore(ctx, dir, id, a.p, a.clock)
		if err != nil {
			a.fallBack(fmt.Errorf("opening the shared bucket in %s: %w", dir, err))
			return
		}
		a.shared.Store(f)
	})
}

// sharedStatus reports whether the bucket is shared with other processes
// and, when sharing was asked for and is not (or no longer) in effect, why.
func (a *accountLimiter) sharedStatus() (bool, error) {
	if !a.share {
		return false, nil
	}
	if e := a.shareErr.Load(); e != nil {
		return false, fmt.Errorf("the account rate limit is not shared with other processes on this machine; this process paces itself alone: %w", *e)
	}
	return a.shared.Load() != nil, nil
}
