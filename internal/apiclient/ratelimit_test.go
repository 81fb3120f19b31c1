package apiclient

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"
)

// The limiter's specification, in simulated time (testing/synctest): a
// request "leaves" when wait returns, and its answer comes back through
// answered after a latency the test chooses. Nothing here depends on how
// fast the machine is.

// sent is one request as the server would see it.
type sent struct {
	at     time.Time
	route  string
	status int // the answer the server gave it
}

// arrival is one request as the caller hands it to the limiter: offset after
// the start, its route, the answer the server gives it.
type arrival struct {
	after      time.Duration
	route      string
	status     int
	retryAfter time.Duration
}

// run sends arrivals through l, each answered latency after it leaves, and
// returns when each left, in order. Call inside a synctest bubble.
func run(t *testing.T, l *limiter, arrivals []arrival, latency time.Duration) []sent {
	t.Helper()
	var mu sync.Mutex
	var out []sent
	var wg sync.WaitGroup
	for _, a := range arrivals {
		wg.Go(func() {
			time.Sleep(a.after)
			if err := l.wait(context.Background(), a.route); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			out = append(out, sent{time.Now(), a.route, a.status})
			mu.Unlock()
			time.Sleep(latency)
			l.answered(a.status, a.retryAfter)
		})
	}
	wg.Wait()
	slices.SortFunc(out, func(a, b sent) int { return a.at.Compare(b.at) })
	return out
}

// together is n requests on route arriving at once, all answered 200.
func together(n int, route string) []arrival {
	as := make([]arrival, n)
	for i := range as {
		as[i] = arrival{route: route, status: http.StatusOK}
	}
	return as
}

// randomArrivals is a random arrival pattern of 20–1,520 requests on 1–4
// routes: bursts, steady streams and pauses. With p429, that share of the
// answers is a 429 with a Retry-After of 0–2 s.
func randomArrivals(rng *rand.Rand, p429 float64) []arrival {
	routes := []string{"POST /a", "GET /b", "DELETE /c", "PATCH /d"}[:1+rng.IntN(4)]
	var as []arrival
	var at time.Duration
	for range 1 + rng.IntN(6) {
		n := 20 + rng.IntN(250)
		gap := time.Duration(rng.IntN(120)) * time.Millisecond
		for range n {
			a := arrival{after: at, route: routes[rng.IntN(len(routes))], status: http.StatusOK}
			if rng.Float64() < p429 {
				a.status, a.retryAfter = http.StatusTooManyRequests, time.Duration(rng.IntN(3))*time.Second
			}
			as = append(as, a)
			at += time.Duration(rng.Float64() * float64(gap))
		}
		at += time.Duration(rng.IntN(5000)) * time.Millisecond
	}
	return as
}

// mostInWindow is the most requests of ts (ascending) in any half-open
// window of span.
func mostInWindow(ts []time.Time, span time.Duration) int {
	most, j := 0, 0
	for i := range ts {
		for !ts[j].Add(span).After(ts[i]) {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}

// conformsToBucket reports whether ts (ascending) all pass a token bucket
// filled at rate per second holding burst, starting full.
func conformsToBucket(ts []time.Time, rate, burst float64) bool {
	tokens, last := burst, time.Time{}
	for i, t := range ts {
		if i > 0 {
			tokens = min(burst, tokens+t.Sub(last).Seconds()*rate)
		}
		if tokens < 1-1e-9 {
			return false
		}
		tokens, last = tokens-1, t
	}
	return true
}

func timesOf(ss []sent, route string) []time.Time {
	var ts []time.Time
	for _, s := range ss {
		if route == "" || s.route == route {
			ts = append(ts, s.at)
		}
	}
	return ts
}

// checkTheDocumentedLimits fails the test when the schedule breaks any
// reading of the documented limits (ratelimit.go): 700 in any minute and the
// emulator's account bucket (700/min holding 40), 40 in any second on a
// route.
func checkTheDocumentedLimits(t *testing.T, out []sent) {
	t.Helper()
	all := timesOf(out, "")
	if n := mostInWindow(all, time.Minute); n > DefaultAccountRequestsPerMinute {
		t.Errorf("%d requests in one minute on the account", n)
	}
	if !conformsToBucket(all, float64(DefaultAccountRequestsPerMinute)/60, documentedBurst) {
		t.Errorf("the account's requests do not pass a bucket of 700/min holding %d", documentedBurst)
	}
	routes := map[string]bool{}
	for _, s := range out {
		routes[s.route] = true
	}
	for r := range routes {
		if n := mostInWindow(timesOf(out, r), time.Second); n > DefaultRouteRequestsPerSecond {
			t.Errorf("%d requests in one second on %s", n, r)
		}
	}
}

// Under random arrival patterns, with and without 429s, no schedule the
// limiter lets out breaks a reading of the documented limits.
func TestTheDocumentedLimitsAreNeverExceeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 2))
	for i := range 60 {
		as := randomArrivals(rng, []float64{0, 0, 0.02}[i%3])
		latency := time.Duration(rng.IntN(80)) * time.Millisecond
		synctest.Test(t, func(t *testing.T) {
			out := run(t, newLimiter(RateLimit{}, "account"), as, latency)
			if len(out) != len(as) {
				t.Fatalf("%d of %d requests left", len(out), len(as))
			}
			checkTheDocumentedLimits(t, out)
		})
	}
}

// A run alone on the account sends its first requests at once: an apply of
// 16 requests waits for nothing, whatever the server's latency.
func TestALoneRunWaitsForNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		out := run(t, newLimiter(RateLimit{}, "account"), together(16, "POST /domains"), 200*time.Millisecond)
		if last := out[len(out)-1].at.Sub(start); last != 0 {
			t.Errorf("the last of 16 requests left after %v, want at once", last)
		}
	})
}

// A long run uses the account's burst (38: two tokens short of the
// emulator's 40, for the delay between leaving and arriving), then the
// documented rate, and waits for nothing else: no request could have left
// a millisecond earlier without breaking a limit.
func TestALongRunSendsTheBurstThenTheDocumentedRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		out := run(t, newLimiter(RateLimit{}, "account"), together(1000, "POST /domains"), 0)
		checkTheDocumentedLimits(t, out)
		ts := timesOf(out, "")
		if n := mostInWindow(ts, time.Millisecond); n != documentedBurst-burstMargin {
			t.Errorf("a burst of %d at the start, want %d", n, documentedBurst-burstMargin)
		}
		for i := range ts {
			earlier := slices.Clone(ts)
			earlier[i] = earlier[i].Add(-time.Millisecond)
			if earlier[i].Before(start) {
				continue
			}
			slices.SortFunc(earlier, time.Time.Compare)
			if mostInWindow(earlier, time.Minute+windowSlack) <= DefaultAccountRequestsPerMinute &&
				mostInWindow(earlier, time.Second+windowSlack) <= DefaultRouteRequestsPerSecond &&
				conformsToBucket(earlier, float64(DefaultAccountRequestsPerMinute)/60, documentedBurst-burstMargin) {
				t.Fatalf("request %d left at %v; it could have left 1 ms earlier", i, ts[i].Sub(start))
			}
		}
	})
}

// perSecond is the pace of ts (ascending) between from and to.
func perSecond(ts []time.Time, from, to time.Time) float64 {
	n := 0
	for _, t := range ts {
		if !t.Before(from) && t.Before(to) {
			n++
		}
	}
	return float64(n) / to.Sub(from).Seconds()
}

// A 429 stops every request of the process for its Retry-After and cuts the
// pace; successes then let it climb back to the documented rate, which it
// regains within fullRecovery of the cut.
func TestA429PausesCutsThePaceAndTheRateClimbsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(RateLimit{}, "account")
		start := time.Now()
		// 100 requests served, then one answered 429 with a Retry-After of
		// 3 s, with 700 more waiting behind it.
		out := run(t, l, together(100, "POST /domains"), 10*time.Millisecond)
		as := append([]arrival{{route: "POST /domains", status: http.StatusTooManyRequests, retryAfter: 3 * time.Second}},
			together(700, "POST /domains")...)
		for i := range as[1:] {
			as[1+i].after = time.Millisecond
		}
		out = append(out, run(t, l, as, 10*time.Millisecond)...)
		checkTheDocumentedLimits(t, out)
		ts := timesOf(out, "")
		cut := out[100].at.Add(10 * time.Millisecond) // the 429's answer
		if out[100].status != http.StatusTooManyRequests {
			t.Fatalf("the 101st request to leave was answered %d", out[100].status)
		}
		for _, s := range ts {
			if s.After(cut) && s.Before(cut.Add(3*time.Second)) {
				t.Fatalf("a request left %v after the 429, within its Retry-After of 3 s", s.Sub(cut))
			}
		}
		documented := float64(DefaultAccountRequestsPerMinute) / 60
		after := cut.Add(3 * time.Second)
		if got := perSecond(ts, after, after.Add(5*time.Second)); got > 0.95*documented || got < 0.95*throttleBeta*documented {
			t.Errorf("%.1f requests/s in the 5 s after the pause, want between the cut pace %.1f and the documented %.1f",
				got, throttleBeta*documented, documented)
		}
		back := cut.Add(fullRecovery)
		if got := perSecond(ts, back, back.Add(10*time.Second)); got < 0.97*documented {
			t.Errorf("%.1f requests/s from %v after the cut, want the documented %.1f again", got, fullRecovery, documented)
		}
		if got := ts[len(ts)-1].Sub(start); got > 90*time.Second {
			t.Errorf("801 requests took %v", got)
		}
	})
}

// A process crowded out by others learns from its first 429 how little of
// the account it was served, and cuts to about that at once.
func TestTheFirstCutStartsFromWhatTheAccountServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(RateLimit{}, "account")
		// Served 20 requests in its first 6 s (an account holding 40 and
		// filled at 700/min could have served it 110).
		run(t, l, together(20, "GET /a"), 0)
		time.Sleep(6 * time.Second)
		l.answered(http.StatusTooManyRequests, time.Second)
		served := 20 / (6 + documentedBurst/l.account.max)
		if got, want := l.account.rate(), throttleBeta*served; got < want*0.99 || got > want*1.01 {
			t.Errorf("cut to %.2f requests/s, want %.2f (β × the %.2f/s served)", got, want, served)
		}
	})
}

// The account is busy while a request sent now would wait: once the burst
// is spent, and during the pause after a 429; it is free again once the
// bucket refills. Unlimited, it is never busy; with a bucket shared by the
// machine's processes, always.
func TestTheAccountIsBusyWhileARequestWouldWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &Client{limiter: newLimiter(RateLimit{}, "account")}
		if c.AccountBusy() {
			t.Fatal("a fresh client is busy")
		}
		run(t, c.limiter, together(documentedBurst-burstMargin-1, "DELETE /domains"), 0)
		if c.AccountBusy() {
			t.Fatal("busy with a token left in the burst")
		}
		run(t, c.limiter, together(1, "DELETE /domains"), 0)
		if !c.AccountBusy() {
			t.Fatal("not busy once the burst is spent")
		}
		time.Sleep(time.Second)
		if c.AccountBusy() {
			t.Fatal("busy a second after the burst, with tokens refilled")
		}
		c.limiter.answered(http.StatusTooManyRequests, 2*time.Second)
		if !c.AccountBusy() {
			t.Fatal("not busy during the Retry-After of a 429")
		}
	})
	if (&Client{limiter: newLimiter(RateLimit{RequestsPerMinute: -1}, "account")}).AccountBusy() {
		t.Error("an unlimited account is busy")
	}
	shared := &Client{limiter: newLimiter(RateLimit{Shared: true, SharedDir: t.TempDir()}, "account")}
	if ok, err := shared.SharedAccountLimit(); !ok || err != nil {
		t.Fatalf("shared bucket not open: %v", err)
	}
	if !shared.AccountBusy() {
		t.Error("a client sharing the machine's bucket is not busy: it cannot know what the others spent")
	}
}

// roundTripFunc is an http.RoundTripper in memory, so that synctest can
// advance time while it answers.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Through the client, a request whose turn would come after its deadline
// fails at once, and is not retried: every later turn would too.
func TestAClientRequestWhoseTurnWouldPassItsDeadlineFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var served atomic.Int32
		answer := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			served.Add(1)
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(`{"domains":[]}`)), Request: r}, nil
		})
		c, err := New(Options{BaseURL: "https://api.invalid/api/v2/", APIKey: "test-key", Retry: fastRetry,
			HTTPClient: &http.Client{Transport: answer}, RateLimit: RateLimit{RequestsPerMinute: 60, RouteRequestsPerSecond: -1}})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for range c.limiter.account.burst {
			if _, err := c.ListDomains(ctx, stubScope); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		start, before := time.Now(), served.Load()
		if _, err := c.ListDomains(ctx, stubScope); err == nil || time.Since(start) != 0 || served.Load() != before {
			t.Errorf("ListDomains = %v after %v with %d more requests served, want an error at once and none sent",
				err, time.Since(start), served.Load()-before)
		}
	})
}

// A turn that would come after the context's deadline is refused at once,
// and a cancelled context stops the wait.
func TestTheWaitEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(RateLimit{RequestsPerMinute: 60}, "account")
		for range l.account.burst {
			if err := l.wait(context.Background(), "GET /a"); err != nil {
				t.Fatal(err)
			}
			l.answered(http.StatusOK, 0)
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if err := l.wait(ctx, "GET /a"); !errors.Is(err, errWouldPassDeadline) || time.Since(start) != 0 {
			t.Errorf("wait = %v after %v, want errWouldPassDeadline at once", err, time.Since(start))
		}
		ctx, cancel = context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		if err := l.wait(ctx, "GET /a"); !errors.Is(err, context.Canceled) || time.Since(start) != 200*time.Millisecond {
			t.Errorf("wait = %v after %v, want context.Canceled after 200ms", err, time.Since(start))
		}
		if err := l.wait(context.Background(), "GET /a"); err != nil || time.Since(start) != time.Second {
			t.Errorf("wait = %v after %v; the next turn is 1 s after the burst", err, time.Since(start))
		}
	})
}

// accountServer is the server's side of the account limit as the emulator keeps
// it: a bucket of 700/min holding 40, where a refused request takes nothing
// and is answered 429 with a whole-second Retry-After (at least 1).
type accountServer struct {
	mu          sync.Mutex
	bucket      *rate.Limiter
	ok, limited int
}

func (s *accountServer) RoundTrip(req *http.Request) (*http.Response, error) {
	time.Sleep(time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	now, resp := time.Now(), &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody, Request: req}
	if tokens := s.bucket.TokensAt(now); tokens < 1 {
		resp.StatusCode = http.StatusTooManyRequests
		resp.Header.Set("Retry-After", strconv.Itoa(int(math.Max(1, math.Ceil((1-tokens)/float64(s.bucket.Limit()))))))
		s.limited++
		return resp, nil
	}
	s.bucket.AllowN(now, 1)
	s.ok++
	return resp, nil
}

// apply sends what a Terraform apply does through a client's limited
// transport: three reads one after the other, then n creates with ten
// workers (Terraform's parallelism), each taking 20–60 ms of Terraform's own
// time after an answer and waiting out a 429 as the retry layer does (its
// Retry-After and up to 250 ms more) before sending again.
func apply(t *testing.T, tr http.RoundTripper, n int, seed uint64) {
	send := func(rng *rand.Rand) {
		for {
			req, _ := http.NewRequest(http.MethodPost, "https://api.invalid/api/v2/projects/p/auth/domains", nil)
			req = req.WithContext(withCallState(req.Context(), &callState{route: "POST /projects/{project_id}/auth/domains"}))
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusTooManyRequests {
				time.Sleep(time.Duration(20+rng.IntN(40)) * time.Millisecond)
				return
			}
			d, _ := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
			time.Sleep(d + time.Duration(rng.Int64N(int64(250*time.Millisecond))))
		}
	}
	rng := rand.New(rand.NewPCG(seed, 10))
	for range 3 {
		send(rng)
	}
	jobs := make(chan int, n)
	for i := range n {
		jobs <- i
	}
	close(jobs)
	var wg sync.WaitGroup
	for w := range 10 {
		rng := rand.New(rand.NewPCG(seed, uint64(w)))
		wg.Go(func() {
			for range jobs {
				send(rng)
			}
		})
	}
	wg.Wait()
}

// Runs that each pace themselves to the account limit overshoot it together;
// they settle on shares of it, with few 429s and the account used to the
// full. Runs sharing the machine's bucket meet no 429 at all.
func TestRunsOnOneAccountSettleOnShares(t *testing.T) {
	for _, tc := range []struct {
		runs, requests int
		shared         bool
		max429         float64
	}{{4, 200, false, 0.10}, {8, 100, false, 0.15}, {4, 200, true, 0}} {
		synctest.Test(t, func(t *testing.T) {
			srv := &accountServer{bucket: rate.NewLimiter(rate.Limit(float64(DefaultAccountRequestsPerMinute)/60), documentedBurst)}
			rl := RateLimit{Shared: tc.shared, SharedDir: t.TempDir()}
			start := time.Now()
			var wg sync.WaitGroup
			for r := range tc.runs {
				wg.Go(func() {
					time.Sleep(time.Duration(r) * 200 * time.Millisecond)
					apply(t, &limitedTransport{next: srv, limiter: newLimiter(rl, "account")}, tc.requests, uint64(r))
				})
			}
			wg.Wait()
			share := float64(srv.limited) / float64(srv.ok+srv.limited)
			perMin := float64(srv.ok) / time.Since(start).Minutes()
			t.Logf("%d × %d (shared %t): %.1f %% 429s, %.0f requests/min", tc.runs, tc.requests, tc.shared, 100*share, perMin)
			if share > tc.max429 {
				t.Errorf("%.1f %% of the answers were 429, want at most %.0f %%", 100*share, 100*tc.max429)
			}
			if perMin < 0.8*DefaultAccountRequestsPerMinute {
				t.Errorf("%.0f requests per minute together, want at least 80 %% of %d", perMin, DefaultAccountRequestsPerMinute)
			}
		})
	}
}
