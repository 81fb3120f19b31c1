package apiclient

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The reading of the documented limits that the account showed this process
// (windows or bucket, see ratelimit.go), and the machine's memory of it.
//
// Neon does not say how it counts, so a process learns it from the account,
// at the cost of at most one request refused. It paces to the bucket, the
// strictest reading, and once the bucket holds no token it sends one request
// at a time beside the bucket's pace (a probe): a probe takes no token, and
// leaves probeGap after the request before it, so that those arrive first.
// While a probe is in flight, the bucket's requests wait for burstMargin
// tokens more: the probes served may have spent the margin the bucket keeps
// from the server's.
//
//   - While requests are served, the answers add up; once the account has
//     served this process more than any bucket of the documented size could
//     have (counting from when each request left to when the last answer
//     came, so that no delay on the way explains it), the account counts by
//     windows, and the process paces to the windows alone from then on.
//   - A 429 that the process's own requests explain (a bucket of the
//     documented size, full when the process started and counting each of
//     its requests, probes too, would have been out of tokens, within
//     burstMargin) with a Retry-After of at most bucketRetryAfter shows the
//     bucket. The process paces to it from then on, the probes served taken
//     from it, without a cut and without a pause (the bucket's pace waits
//     for the next token anyway), and writes the time into a file that the
//     next processes on this machine for the same account read: for
//     bucketMemory they start paced to the bucket, without probing.
//
// Another 429 (to a request the process's own could not have made refused,
// after the windows were shown, or with a longer Retry-After) says that other
// clients spend the account: the pace cuts (throttle in ratelimit_account.go),
// every request waits out the Retry-After, and the pace follows the bucket
// from then on.

// pace is which reading the account limit of a process follows.
type pace int

const (
	// paceLearning: the bucket, and beside it one probe at a time.
	paceLearning pace = iota
	// paceWindows: the account served more than a bucket allows; the
	// minute window alone.
	paceWindows
	// paceBucket: a probe was refused (or the machine remembers that one
	// was), or a 429 cut the pace; the bucket at the adaptive rate.
	paceBucket
)

// bucketMemory is how long the machine remembers that an account refused a
// probe. A process that starts within it paces to the bucket from its first
// request; the first one after it learns again, at the cost of at most one
// 429 if the account still counts by the bucket.
const bucketMemory = 15 * time.Minute

// probeGap is how long after the request before it a probe leaves: the
// requests the bucket let go arrive first, so that when the server's bucket
// is out of tokens the probe, not one of them, is refused.
const probeGap = 10 * time.Millisecond

// bucketRetryAfter is the longest Retry-After that a bucket of the documented
// size explains: its next token comes within 86 ms, which a Retry-After in
// whole seconds says as one.
const bucketRetryAfter = time.Second

// learnFromServed takes an answer served at now, while learning, to the
// request of turn t. It reports whether the answers served so far show that
// the account counts by windows, and then paces to them.
func (a *account) learnFromServed(now time.Time, t turn) bool {
	if t.probe {
		a.probed++
	}
	i, _ := slices.BinarySearchFunc(a.servedLeft, t.left, time.Time.Compare)
	a.servedLeft = slices.Insert(a.servedLeft, i, t.left)
	drop := 0
	for drop < len(a.servedLeft) && now.Sub(a.servedLeft[drop]) > time.Minute {
		drop++
	}
	a.servedLeft = a.servedLeft[drop:]
	// The most a bucket of the documented size serves between a request's
	// leaving and now: its burst, and its rate meanwhile.
	perSecond := max(a.max, float64(DefaultAccountRequestsPerMinute)/60)
	for i, s := range a.servedLeft {
		if float64(len(a.servedLeft)-i) > documentedBurst+perSecond*now.Sub(s).Seconds() {
			a.pace, a.servedLeft, a.probed = paceWindows, nil, 0
			return true
		}
	}
	return false
}

// bucketShown takes a 429 answered at now that the process's own requests
// explain: the account counts by the bucket. The probes served spent tokens
// of the server's bucket that the process's bucket did not count, its
// burstMargin among them: they are taken now, so that the process is back
// that far behind the server. Nothing is cut or paused (the refused request
// waits out its Retry-After in the retry layer), 429s to the requests
// already on their way do not cut either, and the machine remembers it.
func (a *account) bucketShown(now time.Time) {
	a.bucket.ReserveN(now, a.probed)
	a.pace, a.servedLeft, a.probed = paceBucket, nil, 0
	a.heldUntil = now.Add(throttleHold)
	a.memory.remember(now)
}

// readingMemory is the file in which the processes of this machine remember
// when an account last refused a probe: <id>.reading beside the shared
// buckets (ratelimit_shared.go), holding the time in Unix nanoseconds and
// its CRC-32. A file that cannot be read or written, or does not check out,
// is no memory: each process then learns for itself.
type readingMemory struct {
	path string // "" → none
}

func openReadingMemory(dir, id string) readingMemory {
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return readingMemory{}
		}
		dir = filepath.Join(cache, filepath.FromSlash(sharedBucketSubdir))
	}
	return readingMemory{path: filepath.Join(dir, id+".reading")}
}

// bucketsShown reports whether the account refused a probe less than
// bucketMemory before now.
func (m readingMemory) bucketsShown(now time.Time) bool {
	if m.path == "" {
		return false
	}
	buf, err := os.ReadFile(m.path)
	if err != nil || len(buf) != stateLen || binary.BigEndian.Uint32(buf[8:]) != crc32.ChecksumIEEE(buf[:8]) {
		return false
	}
	at := time.Unix(0, int64(binary.BigEndian.Uint64(buf)))
	return at.Before(now.Add(maxAhead)) && now.Sub(at) < bucketMemory
}

// remember records that the account refused a probe at now. The file is
// written whole and renamed into place, so that a reader never sees half
// of it.
func (m readingMemory) remember(now time.Time) {
	if m.path == "" || os.MkdirAll(filepath.Dir(m.path), 0o700) != nil {
		return
	}
	buf := binary.BigEndian.AppendUint64(nil, uint64(now.UnixNano()))
	buf = binary.BigEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf))
	f, err := os.CreateTemp(filepath.Dir(m.path), filepath.Base(m.path)+".*")
	if err != nil {
		return
	}
	_, werr := f.Write(buf)
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), m.path) != nil {
		_ = os.Remove(f.Name())
	}
}
