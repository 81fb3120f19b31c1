package apiclient

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"
)

// simServer is the platform API's account limit as the emulator enforces it:
// a token bucket of rpm/60 per second holding at most 40, where a refused
// request takes nothing and is answered 429 with a whole-second Retry-After
// (at least 1) to when a token will be there. Answers take latency.
type simServer struct {
	mu      sync.Mutex
	bucket  *rate.Limiter
	latency time.Duration

	ok, limited atomic.Int64
	stamps      []time.Time // times of the accepted requests
}

func newSimServer(rpm int, latency time.Duration) *simServer {
	return &simServer{bucket: rate.NewLimiter(rate.Limit(float64(rpm)/60), 40), latency: latency}
}

func (s *simServer) RoundTrip(req *http.Request) (*http.Response, error) {
	time.Sleep(s.latency / 2)
	s.mu.Lock()
	now := time.Now()
	status, header := http.StatusOK, http.Header{}
	if tokens := s.bucket.TokensAt(now); tokens < 1 {
		secs := math.Max(1, math.Ceil((1-tokens)/float64(s.bucket.Limit())))
		header.Set("Retry-After", strconv.Itoa(int(secs)))
		status = http.StatusTooManyRequests
		s.limited.Add(1)
	} else {
		s.bucket.AllowN(now, 1)
		s.stamps = append(s.stamps, now)
		s.ok.Add(1)
	}
	s.mu.Unlock()
	time.Sleep(s.latency / 2)
	return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

// peakWindow is the most requests the server accepted in any window.
func (s *simServer) peakWindow(w time.Duration) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	peak := 0
	j := 0
	for i := range s.stamps {
		for s.stamps[i].Sub(s.stamps[j]) >= w {
			j++
		}
		peak = max(peak, i-j+1)
	}
	return peak
}

// simApply is one terraform apply: prefix requests one after the other (the
// reads and the parent's create before a wave of children), then workers
// (terraform's parallelism) send the rest through one client's limited
// transport, each pausing think between requests (terraform's own
// turnaround), and wait out a 429 as the retry layer does (its Retry-After
// plus up to 250 ms of jitter) before sending it again.
func simApply(t *testing.T, srv *simServer, rl RateLimit, wrap func(http.RoundTripper) http.RoundTripper, a simShape, seed uint64) {
	t.Helper()
	var tr http.RoundTripper = &limitedTransport{next: srv, limiter: newLimiter(rl)}
	if wrap != nil {
		tr = wrap(srv)
	}
	send := func(rng *rand.Rand) bool {
		for {
			req, _ := http.NewRequest(http.MethodPost, "https://api.invalid/api/v2/projects/p/auth/domains", nil)
			req.Header.Set("Authorization", "Bearer sim-key")
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return false
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusTooManyRequests {
				time.Sleep(a.think)
				return true
			}
			d, _ := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
			time.Sleep(d + time.Duration(rng.Int64N(int64(250*time.Millisecond))))
		}
	}
	rng := rand.New(rand.NewPCG(seed, 1<<20))
	for range a.prefix {
		if !send(rng) {
			return
		}
	}
	jobs := make(chan int, a.requests)
	for i := range a.requests {
		jobs <- i
	}
	close(jobs)
	var wg sync.WaitGroup
	for w := range a.workers {
		rng := rand.New(rand.NewPCG(seed, uint64(w)))
		wg.Go(func() {
			for range jobs {
				if !send(rng) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// simShape is what one simulated apply sends.
type simShape struct {
	prefix, requests, workers int
	think                     time.Duration
}

type convergence struct {
	elapsed      time.Duration
	ok, limited  int64
	share429     float64 // 429s ÷ all answers
	ratePerMin   float64 // accepted requests per minute
	peakInMinute int
}

// runConvergence runs applies of requests each, concurrently, against one
// simulated account in simulated time. wrap, when set, replaces the client's
// limited transport.
func runConvergence(t *testing.T, processes, requests int, rl RateLimit, wrap func(http.RoundTripper) http.RoundTripper) convergence {
	t.Helper()
	var c convergence
	synctest.Test(t, func(t *testing.T) {
		srv := newSimServer(DefaultAccountRequestsPerMinute, 30*time.Millisecond)
		start := time.Now()
		var wg sync.WaitGroup
		for p := range processes {
			wg.Go(func() { simApply(t, srv, rl, wrap, simShape{requests: requests, workers: 10}, uint64(p)) })
		}
		wg.Wait()
		c.elapsed = time.Since(start)
		c.ok, c.limited = srv.ok.Load(), srv.limited.Load()
		c.share429 = float64(c.limited) / float64(c.ok+c.limited)
		c.ratePerMin = float64(c.ok) / c.elapsed.Minutes()
		c.peakInMinute = srv.peakWindow(time.Minute)
	})
	return c
}

func (c convergence) String() string {
	return fmt.Sprintf("%d accepted in %v (%.0f/min), %d × 429 (%.1f%%), busiest minute %d",
		c.ok, c.elapsed.Round(100*time.Millisecond), c.ratePerMin, c.limited, 100*c.share429, c.peakInMinute)
}

// fixedPacing is the account limit as it was before it adapted: every
// process paces itself to the whole limit and ignores 429s.
type fixedPacing struct {
	next    http.RoundTripper
	account *rate.Limiter
}

func (f *fixedPacing) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := f.account.Wait(req.Context()); err != nil {
		return nil, err
	}
	return f.next.RoundTrip(req)
}

// A single apply keeps the pace it always had: the whole limit, no 429.
func TestOneProcessRunsAtTheLimitWithout429s(t *testing.T) {
	c := runConvergence(t, 1, 600, RateLimit{}, nil)
	t.Logf("1 process × 600 requests: %v", c)
	if c.limited != 0 || c.ratePerMin < 0.97*DefaultAccountRequestsPerMinute || c.peakInMinute > DefaultAccountRequestsPerMinute {
		t.Errorf("want 0 × 429, ≥ 97%% of %d/min and no minute over it; got %v", DefaultAccountRequestsPerMinute, c)
	}
}

// Processes that each pace themselves to the account limit overshoot it
// together; the adaptive limit makes them settle on shares of it, with few
// 429s and the account still used to the full.
func TestProcessesOnOneAccountSettleOnShares(t *testing.T) {
	for _, tc := range []struct {
		processes int
		max429    float64
	}{{2, 0.05}, {4, 0.08}, {8, 0.15}} {
		c := runConvergence(t, tc.processes, 600, RateLimit{}, nil)
		fixed := runConvergence(t, tc.processes, 600, RateLimit{}, func(next http.RoundTripper) http.RoundTripper {
			return &fixedPacing{next: next, account: rate.NewLimiter(rate.Limit(float64(DefaultAccountRequestsPerMinute-sharedBurst)/60), sharedBurst)}
		})
		t.Logf("%d processes × 600 requests: adaptive: %v; fixed pacing: %v", tc.processes, c, fixed)
		if c.share429 > tc.max429 {
			t.Errorf("%d processes: %.1f%% of answers were 429, want ≤ %.0f%%", tc.processes, 100*c.share429, 100*tc.max429)
		}
		// The target for runs sharing an account is ≥ 80 % of the limit
		// (bench/BASELINE.md); the simulation, without Terraform's own
		// turnaround, must keep a margin above it. Two processes settle
		// at 626–648/min since the limiter spends the documented burst.
		if c.ratePerMin < 0.85*DefaultAccountRequestsPerMinute {
			t.Errorf("%d processes: %.0f requests/min together, want ≥ 85%% of %d", tc.processes, c.ratePerMin, DefaultAccountRequestsPerMinute)
		}
	}
}

// Processes sharing one bucket on this machine stay within the limit
// together: no 429 at all, and the account used to the full.
func TestProcessesSharingABucketStayWithinTheLimit(t *testing.T) {
	for _, n := range []int{2, 4, 8} {
		c := runConvergence(t, n, 600, RateLimit{Shared: true, SharedDir: t.TempDir()}, nil)
		t.Logf("%d processes × 600 requests on a shared bucket: %v", n, c)
		if c.limited != 0 || c.peakInMinute > DefaultAccountRequestsPerMinute || c.ratePerMin < 0.97*DefaultAccountRequestsPerMinute {
			t.Errorf("%d processes: want 0 × 429, no minute over %d and ≥ 97%% of it; got %v", n, DefaultAccountRequestsPerMinute, c)
		}
	}
}

// Short applies started within a few seconds of each other on one account,
// as make bench's concurrent cases run them (the reads and the parent's
// create, then a wave of children with terraform's parallelism): the first
// process takes the burst, the others' first waves meet an empty bucket.
// Their first 429s tell them how little of the account they were served, so
// shares are found in one cut instead of six, and their first waves are no
// larger than the answers so far allow (startWindow). Measured over six
// seeds, without them (cuts of 30 % from the rate allowed, first waves
// of 10): 15.6 % of answers 429 for 8 × 50, 8.7 % for 4 × 100.
func TestShortAppliesStartedTogetherShareTheAccount(t *testing.T) {
	for _, tc := range []struct {
		processes, requests int
		max429              float64
	}{{8, 50, 0.115}, {4, 100, 0.065}} {
		var ok, limited int64
		var busy time.Duration
		for seed := range uint64(6) {
			synctest.Test(t, func(t *testing.T) {
				srv := newSimServer(DefaultAccountRequestsPerMinute, 30*time.Millisecond)
				rng := rand.New(rand.NewPCG(seed, 99))
				start := time.Now()
				var wg sync.WaitGroup
				for p := range tc.processes {
					late := time.Duration(rng.Int64N(int64(3 * time.Second)))
					shape := simShape{prefix: 3, requests: tc.requests, workers: 10, think: 40 * time.Millisecond}
					wg.Go(func() {
						time.Sleep(late)
						simApply(t, srv, RateLimit{}, nil, shape, seed*100+uint64(p))
					})
				}
				wg.Wait()
				busy += time.Since(start)
				ok += srv.ok.Load()
				limited += srv.limited.Load()
			})
		}
		share := float64(limited) / float64(ok+limited)
		perMin := float64(ok) / busy.Minutes()
		t.Logf("%d × %d requests, 6 runs: %d accepted, %d × 429 (%.1f%%), %.0f/min from the first start to the last answer",
			tc.processes, tc.requests+3, ok, limited, 100*share, perMin)
		if share > tc.max429 {
			t.Errorf("%d × %d: %.1f%% of answers were 429, want ≤ %.0f%%", tc.processes, tc.requests, 100*share, 100*tc.max429)
		}
		// The bench target for runs sharing an account (bench/BASELINE.md).
		if perMin < 0.8*DefaultAccountRequestsPerMinute {
			t.Errorf("%d × %d: %.0f requests/min together, want ≥ 80%% of %d", tc.processes, tc.requests, perMin, DefaultAccountRequestsPerMinute)
		}
	}
}
