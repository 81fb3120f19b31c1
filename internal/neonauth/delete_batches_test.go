package neonauth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// recordedSends is a fake DELETE …/auth/domains that remembers each request.
type recordedSends struct {
	mu      sync.Mutex
	batches map[batchKey][][]string
	err     error
	release chan struct{} // when set, sends block until it is closed
	delay   time.Duration // how long a request takes (a rate-limited one waits)
	flying  atomic.Int32  // requests in flight now
	most    atomic.Int32  // the most requests in flight at once
}

func (r *recordedSends) send(_ context.Context, k batchKey, domains []string) error {
	n := r.flying.Add(1)
	defer r.flying.Add(-1)
	for m := r.most.Load(); n > m && !r.most.CompareAndSwap(m, n); m = r.most.Load() {
	}
	if r.release != nil {
		<-r.release
	}
	time.Sleep(r.delay)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.batches == nil {
		r.batches = map[batchKey][][]string{}
	}
	r.batches[k] = append(r.batches[k], slices.Clone(domains))
	return r.err
}

// testBatches gathers generously, so that goroutines started in a loop join
// one batch even on a loaded machine.
func testBatches(r *recordedSends) *deleteBatches {
	b := newDeleteBatches(r.send)
	b.quiet, b.maxGather = 200*time.Millisecond, 5*time.Second
	return b
}

// deleteAll runs one delete per domain at once and returns their outcomes.
func deleteAll(ctx context.Context, b *deleteBatches, k batchKey, domains []string) []error {
	errs := make([]error, len(domains))
	var wg sync.WaitGroup
	for i, d := range domains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = b.delete(ctx, k, d)
		}()
	}
	wg.Wait()
	return errs
}

var (
	batchKeyA = batchKey{scope: apiclient.Scope{ProjectID: "p-a", BranchID: "br-a"}, authProvider: "stack"}
	batchKeyB = batchKey{scope: apiclient.Scope{ProjectID: "p-b", BranchID: "br-b"}, authProvider: "stack"}
)

func domainNames(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("https://%s%d.example.com", prefix, i)
	}
	return out
}

// Ten deletes of one scope at once are one request with all ten domains.
func TestUnitDeleteBatches_concurrentDeletesOfOneScopeAreOneRequest(t *testing.T) {
	r := &recordedSends{}
	domains := domainNames(10, "d")
	for i, err := range deleteAll(context.Background(), testBatches(r), batchKeyA, domains) {
		if err != nil {
			t.Errorf("delete of %s: %v", domains[i], err)
		}
	}
	got := r.batches[batchKeyA]
	if len(got) != 1 {
		t.Fatalf("%d requests %v, want 1", len(got), got)
	}
	slices.Sort(got[0])
	slices.Sort(domains)
	if !slices.Equal(got[0], domains) {
		t.Fatalf("the request held %v, want %v", got[0], domains)
	}
}

// Scopes (project, branch, auth provider) never share a request.
func TestUnitDeleteBatches_scopesAreSeparate(t *testing.T) {
	r := &recordedSends{}
	b := testBatches(r)
	otherProvider := batchKeyA
	otherProvider.authProvider = "better_auth"
	var wg sync.WaitGroup
	for _, k := range []batchKey{batchKeyA, batchKeyB, otherProvider} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			deleteAll(context.Background(), b, k, domainNames(3, k.scope.ProjectID+k.authProvider))
		}()
	}
	wg.Wait()
	for _, k := range []batchKey{batchKeyA, batchKeyB, otherProvider} {
		if got := r.batches[k]; len(got) != 1 || len(got[0]) != 3 {
			t.Errorf("%v: requests %v, want one with its 3 domains", k, got)
		}
	}
}

// The outcome of the request is every member's outcome.
func TestUnitDeleteBatches_anErrorReachesEveryMember(t *testing.T) {
	boom := errors.New("HTTP 500")
	r := &recordedSends{err: boom}
	for i, err := range deleteAll(context.Background(), testBatches(r), batchKeyA, domainNames(4, "e")) {
		if !errors.Is(err, boom) {
			t.Errorf("member %d: %v, want the request's error", i, err)
		}
	}
}

// A lone delete waits one quiet period, then goes alone.
func TestUnitDeleteBatches_aLoneDeleteGoesAlone(t *testing.T) {
	r := &recordedSends{}
	b := newDeleteBatches(r.send)
	if err := b.delete(context.Background(), batchKeyA, "https://only.example.com"); err != nil {
		t.Fatal(err)
	}
	if got := r.batches[batchKeyA]; len(got) != 1 || !slices.Equal(got[0], []string{"https://only.example.com"}) {
		t.Fatalf("requests %v, want one with the one domain", got)
	}
}

// Deletes that start while a batch is on its way form the next batch.
func TestUnitDeleteBatches_latecomersFormTheNextBatch(t *testing.T) {
	r := &recordedSends{release: make(chan struct{})}
	b := testBatches(r)
	first := make(chan []error, 1)
	go func() { first <- deleteAll(context.Background(), b, batchKeyA, domainNames(3, "first")) }()
	waitFor(t, func() bool { return b.gathering(batchKeyA) })
	waitFor(t, func() bool { return !b.gathering(batchKeyA) }) // closed, blocked in send
	second := make(chan []error, 1)
	go func() { second <- deleteAll(context.Background(), b, batchKeyA, domainNames(2, "second")) }()
	close(r.release)
	for _, errs := range [][]error{<-first, <-second} {
		for _, err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	}
	got := r.batches[batchKeyA]
	if len(got) != 2 || len(got[0])+len(got[1]) != 5 {
		t.Fatalf("requests %v, want two batches holding the 5 domains", got)
	}
}

// A member whose context ends stops waiting; the others still get the
// request's outcome, even when the one that ended led the batch.
func TestUnitDeleteBatches_aCancelledMemberStopsWaitingAlone(t *testing.T) {
	r := &recordedSends{release: make(chan struct{})}
	b := testBatches(r)
	leaderCtx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() { leader <- b.delete(leaderCtx, batchKeyA, "https://leader.example.com") }()
	waitFor(t, func() bool { return b.gathering(batchKeyA) })
	member := make(chan error, 1)
	go func() { member <- b.delete(context.Background(), batchKeyA, "https://member.example.com") }()
	waitFor(t, func() bool { return !b.gathering(batchKeyA) }) // closed, blocked in send
	cancel()
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v, want context.Canceled", err)
	}
	close(r.release)
	if err := <-member; err != nil {
		t.Fatalf("member: %v, want the request's success", err)
	}
	if got := r.batches[batchKeyA]; len(got) != 1 || len(got[0]) != 2 {
		t.Fatalf("requests %v, want one with both domains", got)
	}
}

// gathering reports whether a batch of k is open to newcomers.
func (b *deleteBatches) gathering(k batchKey) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	sc := b.scopes[k]
	return sc != nil && sc.pending != nil
}

// waitFor polls cond until it holds; a failure after 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
	}
}

// A scope has one request in flight at a time: deletes that arrive while it
// flies wait for its answer however long it takes, then go as one batch.
func TestUnitDeleteBatches_oneRequestInFlightPerScope(t *testing.T) {
	r := &recordedSends{release: make(chan struct{})}
	b := newDeleteBatches(r.send)
	b.quiet, b.maxGather = 20*time.Millisecond, 50*time.Millisecond
	first := make(chan []error, 1)
	go func() { first <- deleteAll(context.Background(), b, batchKeyA, domainNames(3, "first")) }()
	waitFor(t, func() bool { return r.flying.Load() == 1 })
	second := make(chan []error, 1)
	go func() { second <- deleteAll(context.Background(), b, batchKeyA, domainNames(4, "second")) }()
	waitFor(t, func() bool { return b.gathering(batchKeyA) })
	time.Sleep(4 * b.maxGather) // far past the gathering window
	if n := r.flying.Load(); n != 1 {
		t.Fatalf("%d requests in flight while the first is unanswered, want 1", n)
	}
	close(r.release)
	for _, errs := range [][]error{<-first, <-second} {
		for _, err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	}
	if got := r.batches[batchKeyA]; len(got) != 2 || len(got[0]) != 3 || len(got[1]) != 4 {
		t.Fatalf("requests %v, want the 3 first domains, then the 4 that waited", got)
	}
	if m := r.most.Load(); m != 1 {
		t.Fatalf("%d requests in flight at once, want 1", m)
	}
}

// Terraform at -parallelism=10 destroying 50 domains, with requests slower
// than the gathering window (they wait for the rate limit), and a first wave
// that split (6 deletes, then 4 more once the 6 had gone out). Each delete
// that returns lets Terraform start the next one, and those join the batch
// that waited for the answer, so the waves merge again: 6 requests for 50
// domains, not two half-size waves to the end.
func TestUnitDeleteBatches_splitWavesMergeAgain(t *testing.T) {
	r := &recordedSends{delay: 300 * time.Millisecond}
	b := newDeleteBatches(r.send)
	b.quiet = 100 * time.Millisecond // generous for a loaded machine
	queue := make(chan string, 50)
	for _, d := range domainNames(50, "wave") {
		queue <- d
	}
	close(queue)
	var wg sync.WaitGroup
	worker := func() {
		defer wg.Done()
		for d := range queue {
			if err := b.delete(context.Background(), batchKeyA, d); err != nil {
				t.Error(err)
			}
		}
	}
	wg.Add(10)
	for range 6 {
		go worker()
	}
	waitFor(t, func() bool { return r.flying.Load() == 1 }) // the first 6 are on their way
	for range 4 {
		go worker()
	}
	wg.Wait()
	got := r.batches[batchKeyA]
	total := 0
	for _, batch := range got {
		total += len(batch)
	}
	if total != 50 || len(got) > 6 {
		t.Fatalf("%d requests for %d domains (sizes %v), want at most 6 for 50", len(got), total, sizes(got))
	}
}

func sizes(batches [][]string) []int {
	out := make([]int, len(batches))
	for i, b := range batches {
		out[i] = len(b)
	}
	return out
}

// After an answer, the next batch expects as many deletes as that request
// carried (Terraform starts one for each that returned): once they have all
// joined it leaves at once, without waiting out the quiet window kept for
// stragglers.
func TestUnitDeleteBatches_aFullBatchLeavesAtOnce(t *testing.T) {
	r := &recordedSends{}
	b := newDeleteBatches(r.send)
	b.quiet, b.quietAfterFlight, b.maxGather = 20*time.Millisecond, 10*time.Second, 20*time.Second
	start := time.Now()
	for wave := range 3 {
		for _, err := range deleteAll(context.Background(), b, batchKeyA, domainNames(4, fmt.Sprintf("w%d-", wave))) {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("three full waves took %v: a full batch waited for stragglers", d)
	}
	if got := r.batches[batchKeyA]; len(got) != 3 {
		t.Fatalf("requests %v, want one per wave", sizes(got))
	}
}

// Deletes that joined while a request flew wait after its answer for the
// deletes it releases: the long window after a request that left full
// (Terraform had all it expected running, and their return brings more) or
// while the account is busy (the request they save would have waited for the
// rate limit anyway); after one that left short, with the account free,
// only as long as Terraform was seen to take to bring a delete (here at
// once, so the quiet window), and they leave: the destroy is ending.
func TestUnitDeleteBatches_theLongWindowIsKeptAfterAFullRequestOrWhileTheAccountIsBusy(t *testing.T) {
	for _, c := range []struct {
		first     int
		busy      bool
		waitsLong bool
	}{
		{first: 3, busy: false, waitsLong: false},
		{first: 3, busy: true, waitsLong: true},
		{first: deleteBatchFirstFull, busy: false, waitsLong: true},
	} {
		t.Run(fmt.Sprintf("first=%d,busy=%t", c.first, c.busy), func(t *testing.T) {
			r := &recordedSends{release: make(chan struct{})}
			b := newDeleteBatches(r.send)
			b.quiet, b.quietAfterFlight, b.maxGather = 20*time.Millisecond, time.Second, 20*time.Second
			b.busy = func() bool { return c.busy }
			first := make(chan []error, 1)
			go func() { first <- deleteAll(context.Background(), b, batchKeyA, domainNames(c.first, "first")) }()
			waitFor(t, func() bool { return r.flying.Load() == 1 })
			last := make(chan []error, 1)
			go func() { last <- deleteAll(context.Background(), b, batchKeyA, domainNames(1, "last")) }()
			waitFor(t, func() bool { return b.gathering(batchKeyA) })
			close(r.release) // answered: the batch after it expects more than the 1 it holds
			answered := time.Now()
			for _, errs := range [][]error{<-first, <-last} {
				for _, err := range errs {
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			switch waited := time.Since(answered); {
			case !c.waitsLong && waited >= b.quietAfterFlight:
				t.Errorf("the last delete went %v after the answer: it waited out the long window", waited)
			case c.waitsLong && waited < b.quietAfterFlight:
				t.Errorf("the last delete went %v after the answer, before the long window of %v", waited, b.quietAfterFlight)
			}
			if got := sizes(r.batches[batchKeyA]); !slices.Equal(got, []int{c.first, 1}) {
				t.Fatalf("requests of %v domains, want %d, then the 1 that waited", got, c.first)
			}
		})
	}
}

// On a machine where Terraform takes its time to bring the deletes an
// answer releases, they still make one batch although the account is free:
// the batch waits twice as long as Terraform was seen to take.
func TestUnitDeleteBatches_aSlowTurnaroundStillMakesOneBatch(t *testing.T) {
	r := &recordedSends{release: make(chan struct{})}
	b := newDeleteBatches(r.send)
	b.quiet, b.quietAfterFlight, b.maxGather = 20*time.Millisecond, 3*time.Second, 20*time.Second
	b.busy = func() bool { return false }
	first := make(chan []error, 1)
	go func() { first <- deleteAll(context.Background(), b, batchKeyA, domainNames(3, "first")) }()
	waitFor(t, func() bool { return r.flying.Load() == 1 })
	close(r.release)
	for _, err := range <-first {
		if err != nil {
			t.Fatal(err)
		}
	}
	// The three that the answer released, each 60 ms after the one before
	// (three times the quiet window), the first 60 ms after the answer.
	var wg sync.WaitGroup
	for _, d := range domainNames(3, "released") {
		time.Sleep(60 * time.Millisecond)
		wg.Go(func() {
			if err := b.delete(context.Background(), batchKeyA, d); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := sizes(r.batches[batchKeyA]); !slices.Equal(got, []int{3, 3}) {
		t.Fatalf("requests of %v domains, want 3, then the 3 released as one", got)
	}
}

// A first batch that holds as many deletes as Terraform's default
// parallelism runs at once leaves as soon as the last joins: a small
// destroy does not wait out the quiet window.
func TestUnitDeleteBatches_aFullFirstBatchLeavesAtOnce(t *testing.T) {
	r := &recordedSends{}
	b := newDeleteBatches(r.send)
	b.quiet, b.maxGather = 10*time.Second, 20*time.Second
	start := time.Now()
	for _, err := range deleteAll(context.Background(), b, batchKeyA, domainNames(deleteBatchFirstFull, "d")) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("%d deletes took %v: the full first batch waited for quiet", deleteBatchFirstFull, d)
	}
	if got := sizes(r.batches[batchKeyA]); !slices.Equal(got, []int{deleteBatchFirstFull}) {
		t.Fatalf("requests of %v domains, want one of %d", got, deleteBatchFirstFull)
	}
}

// With batching switched off (Options.UnbatchedDeletes), every
// delete is its own request, sent at once, in parallel with the others.
func TestUnitDeleteBatches_switchedOffSendsEachAlone(t *testing.T) {
	r := &recordedSends{delay: 50 * time.Millisecond}
	b := testBatches(r)
	b.unbatched = true
	start := time.Now()
	for _, err := range deleteAll(context.Background(), b, batchKeyA, domainNames(5, "d")) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := sizes(r.batches[batchKeyA]); !slices.Equal(got, []int{1, 1, 1, 1, 1}) {
		t.Errorf("requests of %v domains, want five of one", got)
	}
	// Gathering alone would take the 200 ms quiet window of testBatches.
	if d := time.Since(start); d >= 200*time.Millisecond {
		t.Errorf("the deletes took %v: they waited to gather", d)
	}
	if r.most.Load() < 2 {
		t.Errorf("at most %d request in flight, want them in parallel", r.most.Load())
	}
}
