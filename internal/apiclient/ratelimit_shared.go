package apiclient

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/time/rate"
)

// The bucket shared by the processes of one machine that use the same account
// (RateLimit.Shared: parallel applies, run-all tools, CI jobs on one runner),
// so that together they stay within the account limit; each keeps its own
// limits besides. It is two files named after a hash of the API's address and
// the API key (neither appears in a name or in the content):
//
//   - <id>.lock, only ever locked (flock on Unix, LockFileEx on Windows). The
//     operating system drops the lock of a process that dies.
//   - <id>.state, the time at which the bucket holds (or held) no token, with
//     a checksum. A state that does not check out (a writer died mid-write, a
//     stray edit, a clock stepped back) is an empty bucket: at worst one
//     burst of pacing is lost, never the ability to send.
//
// Its burst is sharedBurst and its rate the configured one less that burst
// per minute: with no window of past requests, the bucket alone keeps every
// minute of the processes together within RequestsPerMinute.
const (
	sharedBucketSubdir = "terraform-provider-neon/ratelimit" // under the user's cache directory
	sharedBurst        = 10
	// lockWait bounds how long a turn waits for the lock (held by a stopped
	// process, say) before this process paces itself alone; a busy lock is
	// tried again every lockRetry. Turns hold it for microseconds.
	lockWait  = 5 * time.Second
	lockRetry = time.Millisecond
	// maxAhead: a state further ahead of now than this is broken.
	maxAhead = time.Minute
	stateLen = 12 // Unix nanoseconds and their CRC-32
)

// accountID names an account's shared bucket.
func accountID(scheme, host, apiKey string) string {
	h := sha256.Sum256([]byte(strings.ToLower(scheme) + "://" + strings.ToLower(host) + "\x00" + apiKey))
	return hex.EncodeToString(h[:16])
}

type sharedBucket struct {
	lock  *flock.Flock
	state *os.File
	limit rate.Limit
	burst int
}

// openSharedBucket opens (creating when needed) the shared bucket of account
// id in dir ("" → the user's cache directory) for a limit of rpm.
func openSharedBucket(dir, id string, rpm int) (*sharedBucket, error) {
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(cache, filepath.FromSlash(sharedBucketSubdir))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("opening the shared bucket in %s: %w", dir, err)
	}
	st, err := os.OpenFile(filepath.Join(dir, id+".state"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the shared bucket in %s: %w", dir, err)
	}
	b := &sharedBucket{lock: flock.New(filepath.Join(dir, id+".lock"), flock.SetPermissions(0o600)), state: st}
	if b.burst = min(sharedBurst, rpm/10); b.burst < 2 {
		b.limit, b.burst = rate.Limit(float64(rpm)/60), 1 // tiny limits: even spacing, no burst
	} else {
		b.limit = rate.Limit(float64(rpm-b.burst) / 60)
	}
	// The lock must work there, and the state must be readable.
	if err := b.locked(context.Background(), func() error { _, err := b.read(time.Now()); return err }); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("opening the shared bucket in %s: %w", dir, err)
	}
	return b, nil
}

// turn takes a token at now and returns when it is due.
func (b *sharedBucket) turn(ctx context.Context, now time.Time) (at time.Time, err error) {
	err = b.locked(ctx, func() error {
		empty, err := b.read(now)
		if err != nil {
			return err
		}
		// A limiter with burst 0 holds nothing; raised at empty, it holds
		// nothing then and fills from then on.
		lim := rate.NewLimiter(b.limit, 0)
		lim.SetBurstAt(empty, b.burst)
		t := later(now, empty)
		at = t.Add(lim.ReserveN(t, 1).DelayFrom(t))
		empty = t.Add(-time.Duration(lim.TokensAt(t) / float64(b.limit) * float64(time.Second)))
		state := binary.BigEndian.AppendUint64(nil, uint64(empty.UnixNano()))
		_, err = b.state.WriteAt(binary.BigEndian.AppendUint32(state, crc32.ChecksumIEEE(state)), 0)
		return err
	})
	return at, err
}

// read is the time at which the bucket holds no token: zero when the state
// is new (a full bucket), now when it is broken (nobody knows how much of a
// burst was just spent).
func (b *sharedBucket) read(now time.Time) (time.Time, error) {
	buf := make([]byte, stateLen)
	n, err := b.state.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return time.Time{}, err
	}
	empty := time.Unix(0, int64(binary.BigEndian.Uint64(buf)))
	switch {
	case n == 0:
		return time.Time{}, nil
	case n != stateLen || binary.BigEndian.Uint32(buf[8:]) != crc32.ChecksumIEEE(buf[:8]) || empty.After(now.Add(maxAhead)):
		return now, nil
	}
	return empty, nil
}

// locked runs f holding the lock, waiting for it at most lockWait.
func (b *sharedBucket) locked(ctx context.Context, f func() error) error {
	ctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	if _, err := b.lock.TryLockContext(ctx, lockRetry); err != nil {
		return fmt.Errorf("locking %s: %w", b.lock.Path(), err)
	}
	defer func() { _ = b.lock.Unlock() }()
	return f()
}

// sharedTurn takes a turn on the shared bucket at now and returns when it
// is due. When the bucket stops working, the process leaves it for good and
// paces itself alone (the turn is now).
func (l *limiter) sharedTurn(ctx context.Context, b *sharedBucket, now time.Time) time.Time {
	at, err := b.turn(ctx, now)
	if err == nil || ctx.Err() != nil {
		return at
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.account.shared, l.account.sharedErr = nil, fmt.Errorf("the shared rate limit state stopped working: %w", err)
	return now
}

// SharedAccountLimit reports whether this client takes its requests from an
// account bucket shared with the other processes of this machine
// (RateLimit.Shared). When sharing was asked for and cannot be had, or
// stopped working, it returns false and an error saying why, while the client
// goes on pacing itself alone: a caller may show it as a warning.
func (c *Client) SharedAccountLimit() (bool, error) {
	if c.limiter.account == nil {
		return false, nil
	}
	c.limiter.mu.Lock()
	defer c.limiter.mu.Unlock()
	if err := c.limiter.account.sharedErr; err != nil {
		return false, fmt.Errorf("the account rate limit is not shared with other processes on this machine; this process paces itself alone: %w", err)
	}
	return c.limiter.account.shared != nil, nil
}
