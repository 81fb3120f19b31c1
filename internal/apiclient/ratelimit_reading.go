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
// strictest reading, and once the bucket holds no token it lets one request
// at a time leave past it (a probe), the others waiting for the bucket:
//
//   - while the probes are served, the answers add up; once the account has
//     served this process more than any bucket of the documented size could
//     have (counting from when each request left to when the last answer
//     came, so that no delay on the way explains it), the account counts by
//     windows, and the process paces to the windows alone from then on;
//   - a probe refused (429) with a Retry-After of at most bucketRetryAfter
//     shows the bucket: the process paces to it from then on, without a cut
//     and without a pause (its own probe explains the refusal, not other
//     clients, and the bucket's pace waits for the next token anyway), and
//     writes the time into a file that the next processes on this machine
//     for the same account read: for bucketMemory they start paced to the
//     bucket, without probing.
//
// A 429 to a request the bucket allowed, after the windows were shown, or
// with a longer Retry-After, says that other clients spend the account: the
// pace cuts (throttle in ratelimit_account.go), every request waits out the
// Retry-After, and the pace follows the bucket from then on.

// pace is which reading the account limit of a process follows.
type pace int

const (
	// paceLearning: the bucket, and past it one probe at a time.
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

// bucketRetryAfter is the longest Retry-After that a bucket of the documented
// size explains: its next token comes within 86 ms, which a Retry-After in
// whole seconds says as one.
const bucketRetryAfter = time.Second

// learnFromServed takes an answer served at now, while learning, to a
// request that left at left. It reports whether the answers served so far
// show that the account counts by windows, and then paces to them.
func (a *account) learnFromServed(now, left time.Time) bool {
	i, _ := slices.BinarySearchFunc(a.servedLeft, left, time.Time.Compare)
	a.servedLeft = slices.Insert(a.servedLeft, i, left)
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
			a.pace, a.servedLeft = paceWindows, nil
			return true
		}
	}
	return false
}

// bucketShown takes the 429 answered at now to a probe: the account counts by
// the bucket. Nothing is cut or paused (the probe waits out its Retry-After
// in the retry layer), 429s to the requests already on their way do not cut
// either, and the machine remembers it.
func (a *account) bucketShown(now time.Time) {
	a.pace, a.servedLeft = paceBucket, nil
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
