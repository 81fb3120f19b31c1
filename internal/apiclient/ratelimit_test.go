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
// request "leaves" when wait returns, reaches a simulated server half a
// latency later, which answers it by one reading of the documented limits,
// and its answer comes back through answered after the other half. Nothing
// here depends on how fast the machine is.
//
// The contract: a run alone meets no 429 from an account that counts by
// windows, and at most one from an account that counts by the bucket; once
// the account has shown its reading, the run goes as fast as that reading
// allows; a 429 the bucket does not explain (other clients) cuts the pace.

// sent is one attempt as the server saw it.
type sent struct {
	at     time.Time // when it left
	route  string
	status int // the answer the server gave it
}

// arrival is one request as the caller hands it to the limiter: offset after
// the start and its route.
type arrival struct {
	after time.Duration
	route string
}

// server is the API's side of the limits: it answers a request arriving on
// route at a time. A refused request counts nowhere.
type server interface {
	answer(route string, at time.Time) (status int, retryAfter time.Duration)
}

// retryAfterOf is a wait as a Retry-After: whole seconds, at least one.
func retryAfterOf(d time.Duration) time.Duration {
	return time.Duration(max(1, math.Ceil(d.Seconds()))) * time.Second
}

// bucketServer counts by token buckets: the account's filled at 700/min
// holding 40, each route's at 40/s holding 40.
type bucketServer struct {
	mu      sync.Mutex
	account *rate.Limiter
	routes  map[string]*rate.Limiter
}

func newBucketServer() *bucketServer {
	return &bucketServer{account: rate.NewLimiter(rate.Limit(float64(DefaultAccountRequestsPerMinute)/60), documentedBurst),
		routes: map[string]*rate.Limiter{}}
}

func (s *bucketServer) answer(route string, at time.Time) (int, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.routes[route]
	if !ok {
		r = rate.NewLimiter(DefaultRouteRequestsPerSecond, DefaultRouteRequestsPerSecond)
		s.routes[route] = r
	}
	var wait time.Duration
	for _, b := range []*rate.Limiter{s.account, r} {
		if tokens := b.TokensAt(at); tokens < 1 {
			wait = max(wait, time.Duration((1-tokens)/float64(b.Limit())*float64(time.Second)))
		}
	}
	if wait > 0 {
		return http.StatusTooManyRequests, retryAfterOf(wait)
	}
	s.account.AllowN(at, 1)
	r.AllowN(at, 1)
	return http.StatusOK, 0
}

// windowsServer counts by sliding windows: at most 700 in any minute on the
// account, at most 40 in any second on a route (minute and second as long as
// the fields say).
type windowsServer struct {
	mu             sync.Mutex
	minute, second time.Duration
	account        []time.Time
	routes         map[string][]time.Time
}

func newWindowsServer() *windowsServer {
	return &windowsServer{minute: time.Minute, second: time.Second, routes: map[string][]time.Time{}}
}

// full is how long until one more request at t keeps ts within n per span.
func full(ts []time.Time, n int, span time.Duration, t time.Time) time.Duration {
	i, _ := slices.BinarySearchFunc(ts, t.Add(-span), func(a, b time.Time) int {
		if !a.After(b) {
			return -1
		}
		return 1
	})
	if len(ts)-i < n {
		return 0
	}
	return ts[len(ts)-n].Add(span).Sub(t)
}

func (s *windowsServer) answer(route string, at time.Time) (int, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	wait := max(full(s.account, DefaultAccountRequestsPerMinute, s.minute, at),
		full(s.routes[route], DefaultRouteRequestsPerSecond, s.second, at))
	if wait > 0 {
		return http.StatusTooManyRequests, retryAfterOf(wait)
	}
	s.account = append(s.account, at)
	s.routes[route] = append(s.routes[route], at)
	return http.StatusOK, 0
}

// crowded is a server whose account other clients spend: a share of the
// requests are refused, with a Retry-After of 0–2 s.
type crowded struct {
	server
	mu    sync.Mutex
	rng   *rand.Rand
	share float64
	n     int // refused for the others
}

func (s *crowded) answer(route string, at time.Time) (int, time.Duration) {
	s.mu.Lock()
	refuse, ra := s.rng.Float64() < s.share, time.Duration(s.rng.IntN(3))*time.Second
	if refuse {
		s.n++
	}
	s.mu.Unlock()
	if refuse {
		return http.StatusTooManyRequests, ra
	}
	return s.server.answer(route, at)
}

// run sends arrivals through l to srv, each arriving latency/2 after it
// leaves and answered latency/2 later; a 429 is sent again after its
// Retry-After, as the retry layer does. It returns every attempt, in the
// order they left. Call inside a synctest bubble.
func run(t *testing.T, l *limiter, arrivals []arrival, latency time.Duration, srv server) []sent {
	t.Helper()
	var mu sync.Mutex
	var out []sent
	var wg sync.WaitGroup
	for _, a := range arrivals {
		wg.Go(func() {
			time.Sleep(a.after)
			for {
				tn, err := l.wait(context.Background(), a.route)
				if err != nil {
					t.Error(err)
					return
				}
				time.Sleep(latency / 2)
				status, retryAfter := srv.answer(a.route, time.Now())
				mu.Lock()
				out = append(out, sent{tn.left, a.route, status})
				mu.Unlock()
				time.Sleep(latency - latency/2)
				l.answered(tn, status, retryAfter)
				if status != http.StatusTooManyRequests {
					return
				}
				time.Sleep(retryAfter)
			}
		})
	}
	wg.Wait()
	slices.SortFunc(out, func(a, b sent) int { return a.at.Compare(b.at) })
	return out
}

// newTestLimiter is a limiter whose machine's memory is the test's own.
func newTestLimiter(t *testing.T, rl RateLimit) *limiter {
	if rl.SharedDir == "" {
		rl.SharedDir = t.TempDir()
	}
	return newLimiter(rl, "account")
}

// together is n requests on route arriving at once.
func together(n int, route string) []arrival {
	as := make([]arrival, n)
	for i := range as {
		as[i] = arrival{route: route}
	}
	return as
}

// spread is n requests arriving at once on four routes, so that the
// account's limit binds before any route's.
func spread(n int) []arrival {
	as := together(n, "")
	for i := range as {
		as[i].route = "POST /" + string(rune('a'+i%4))
	}
	return as
}

// randomArrivals is a random arrival pattern of 20–1,520 requests on 1–4
// routes: bursts, steady streams and pauses.
func randomArrivals(rng *rand.Rand) []arrival {
	routes := []string{"POST /a", "GET /b", "DELETE /c", "PATCH /d"}[:1+rng.IntN(4)]
	var as []arrival
	var at time.Duration
	for range 1 + rng.IntN(6) {
		n := 20 + rng.IntN(250)
		gap := time.Duration(rng.IntN(120)) * time.Millisecond
		for range n {
			as = append(as, arrival{after: at, route: routes[rng.IntN(len(routes))]})
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

func refused(ss []sent) int {
	n := 0
	for _, s := range ss {
		if s.status == http.StatusTooManyRequests {
			n++
		}
	}
	return n
}

// checkTheWindows fails the test when the schedule breaks the windows: 700
// in any minute on the account, 40 in any second on a route. Every reading
// allows no more.
func checkTheWindows(t *testing.T, out []sent) {
	t.Helper()
	if n := mostInWindow(timesOf(out, ""), time.Minute); n > DefaultAccountRequestsPerMinute {
		t.Errorf("%d requests in one minute on the account", n)
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

// Under random arrival patterns, a run alone meets no 429 from an account
// that counts by windows and at most one from an account that counts by the
// bucket; with other clients refusing 2 % of its requests besides, it still
// keeps every window.
func TestALoneRunMeetsNo429FromTheWindowsAndOneAtMostFromTheBucket(t *testing.T) {
	rng := rand.New(rand.NewPCG(123, 2))
	for i := range 60 {
		as := randomArrivals(rng)
		latency := time.Duration(rng.IntN(80)) * time.Millisecond
		synctest.Test(t, func(t *testing.T) {
			l := newTestLimiter(t, RateLimit{})
			switch i % 3 {
			case 0:
				if out := run(t, l, as, latency, newWindowsServer()); refused(out) != 0 {
					t.Errorf("windows, %d requests at %v: %d × 429", len(as), latency, refused(out))
				}
			case 1:
				if out := run(t, l, as, latency, newBucketServer()); refused(out) > 1 {
					t.Errorf("bucket, %d requests at %v: %d × 429", len(as), latency, refused(out))
				}
			case 2:
				srv := &crowded{server: newWindowsServer(), rng: rand.New(rand.NewPCG(uint64(i), 7)), share: 0.02}
				out := run(t, l, as, latency, srv)
				checkTheWindows(t, out)
				if n := refused(out) - srv.n; n != 0 {
					t.Errorf("crowded windows, %d requests at %v: %d × 429 from the windows", len(as), latency, n)
				}
			}
		})
	}
}

// A run alone on the account sends its first requests at once: an apply of
// 16 requests waits for nothing, whatever the server's latency.
func TestALoneRunWaitsForNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		out := run(t, newTestLimiter(t, RateLimit{}), together(16, "POST /domains"), 200*time.Millisecond, newBucketServer())
		if last := out[len(out)-1].at.Sub(start); last != 0 {
			t.Errorf("the last of 16 requests left after %v, want at once", last)
		}
	})
}

// couldLeaveEarlier is the first request from index from on that could have
// left a millisecond earlier while ts still passed allowed; -1 when none.
func couldLeaveEarlier(ts []time.Time, from int, start time.Time, allowed func([]time.Time) bool) int {
	for i := from; i < len(ts); i++ {
		earlier := slices.Clone(ts)
		earlier[i] = earlier[i].Add(-time.Millisecond)
		if earlier[i].Before(start) || earlier[i].Before(ts[i-1]) {
			continue
		}
		if allowed(earlier) {
			return i
		}
	}
	return -1
}

// An account that counts by windows shows it within a few answers past the
// bucket's burst; from then on a long run goes as fast as the windows allow
// (the client's, 100 ms longer than documented) and meets no 429.
func TestAnAccountThatShowsWindowsIsPacedToThem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		out := run(t, newTestLimiter(t, RateLimit{}), together(1000, "POST /domains"), 10*time.Millisecond, newWindowsServer())
		if n := refused(out); n != 0 {
			t.Fatalf("%d × 429", n)
		}
		ts := timesOf(out, "")
		if n := mostInWindow(ts, time.Millisecond); n != documentedBurst-burstMargin {
			t.Errorf("a burst of %d at the start, want the bucket's %d", n, documentedBurst-burstMargin)
		}
		windows := func(ts []time.Time) bool {
			return mostInWindow(ts, time.Minute+minuteSlack) <= DefaultAccountRequestsPerMinute &&
				mostInWindow(ts, time.Second+routeSlack) <= DefaultRouteRequestsPerSecond
		}
		if i := couldLeaveEarlier(ts, 2*documentedBurst, start, windows); i >= 0 {
			t.Errorf("request %d left at %v; the windows let it leave 1 ms earlier", i, ts[i].Sub(start))
		}
	})
}

// A run paced to the windows that meets 429s at the edge of its own minute
// (its requests took so different times on the way that the server saw them
// closer together than the client's slack allows) is not cut: it waits out
// the Retry-After and goes on at the windows' pace. 1,000 requests then take
// little more than the minute window allows, not the bucket's 80 s.
func TestA429AtTheEdgeOfItsOwnWindowsOnlyPauses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newWindowsServer()
		srv.minute = time.Minute + minuteSlack + 500*time.Millisecond
		l := newTestLimiter(t, RateLimit{})
		start := time.Now()
		out := run(t, l, spread(1000), 10*time.Millisecond, srv)
		if refused(out) == 0 {
			t.Fatal("no 429 at the minute's edge: the test proves nothing")
		}
		if took := out[len(out)-1].at.Sub(start); took > 66*time.Second {
			t.Errorf("1,000 requests took %v, want the minute window's pace (about 64 s)", took)
		}
	})
}

// An account that counts by the bucket refuses one probe; from then on a
// long run goes at the bucket's pace, without a cut or a pause, and meets no
// other 429: requests go on leaving during the probe's Retry-After, and
// 1,000 requests take no longer than the bucket allows, give or take the
// tokens the client leaves for the way (burstMargin), the probe's, and the
// second its minute window keeps for the way.
func TestAnAccountThatShowsTheBucketRefusesOneProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		l := newTestLimiter(t, RateLimit{})
		out := run(t, l, spread(1000), 10*time.Millisecond, newBucketServer())
		if n := refused(out); n != 1 {
			t.Fatalf("%d × 429, want the probe's 1", n)
		}
		i := slices.IndexFunc(out, func(s sent) bool { return s.status == http.StatusTooManyRequests })
		during := 0
		for _, s := range out[i+1:] {
			if s.at.Before(out[i].at.Add(10*time.Millisecond + time.Second)) {
				during++
			}
		}
		if during < 8 {
			t.Errorf("%d requests left during the refused probe's Retry-After of 1 s, want the bucket's 11.7 less the 3 its probes took", during)
		}
		documented := float64(DefaultAccountRequestsPerMinute) / 60
		took := out[len(out)-1].at.Sub(start)
		bound := time.Duration((1000-documentedBurst+burstMargin+1)/documented*float64(time.Second)) + minuteSlack
		if took > bound+100*time.Millisecond {
			t.Errorf("1,000 requests took %v, want at most %v (the bucket's pace, and the minute window's slack)", took, bound)
		}
		if l.account.rate() != documented {
			t.Errorf("the pace was cut to %.2f/s; the refused probe explains the 429", l.account.rate())
		}
	})
}

// A probe refused with a Retry-After longer than a bucket's token takes is
// not the bucket's doing: other clients spend the account (a full minute
// window, say). The pace cuts and every request waits out the Retry-After.
func TestAProbeRefusedForLongerThanABucketWouldIsACut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newTestLimiter(t, RateLimit{})
		srv := &refuseOnce{server: newWindowsServer(), n: documentedBurst, retryAfter: 5 * time.Second}
		out := run(t, l, spread(60), 10*time.Millisecond, srv)
		i := slices.IndexFunc(out, func(s sent) bool { return s.status == http.StatusTooManyRequests })
		if i < 0 {
			t.Fatal("no request was refused")
		}
		answer := out[i].at.Add(10 * time.Millisecond)
		for _, s := range out[i+1:] {
			if s.at.After(answer) && s.at.Before(answer.Add(5*time.Second)) {
				t.Fatalf("a request left %v after the refusal, within its Retry-After of 5 s", s.at.Sub(answer))
			}
		}
		if r, documented := l.account.rate(), float64(DefaultAccountRequestsPerMinute)/60; r >= documented {
			t.Errorf("the pace is %.2f/s, want it cut below the documented %.2f/s", r, documented)
		}
	})
}

// A refused probe is remembered on the machine for bucketMemory: a new
// process on the account paces to the bucket from its first request and
// meets no 429; one on another account, or one started after bucketMemory,
// learns for itself.
func TestTheMachineRemembersARefusedProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rl := RateLimit{SharedDir: t.TempDir()}
		refusals := func(account string) int {
			return refused(run(t, newLimiter(rl, account), together(200, "POST /domains"), 10*time.Millisecond, newBucketServer()))
		}
		if n := refusals("account"); n != 1 {
			t.Fatalf("the first process met %d × 429, want the probe's 1", n)
		}
		if n := refusals("account"); n != 0 {
			t.Errorf("the next process on the account met %d × 429, want none", n)
		}
		if n := refusals("another account"); n != 1 {
			t.Errorf("a process on another account met %d × 429, want its own probe's 1", n)
		}
		time.Sleep(bucketMemory)
		if n := refusals("account"); n != 1 {
			t.Errorf("a process after %v met %d × 429, want a probe's 1", bucketMemory, n)
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

// refuseOnce is an account that counts by windows where another client
// spends the account once, at the nth request: it is refused with a
// Retry-After.
type refuseOnce struct {
	server
	mu         sync.Mutex
	n          int
	retryAfter time.Duration
}

func (s *refuseOnce) answer(route string, at time.Time) (int, time.Duration) {
	s.mu.Lock()
	s.n--
	last := s.n == 0
	s.mu.Unlock()
	if last {
		return http.StatusTooManyRequests, s.retryAfter
	}
	return s.server.answer(route, at)
}

// A 429 that neither the bucket nor the process's own windows explain (its
// requests spread over routes, far from any window's edge) stops every
// request of the process for its Retry-After and cuts the pace to the
// bucket's; successes then let it
// climb back to the documented rate, which it regains within fullRecovery
// of the cut.
func TestA429PausesCutsThePaceAndTheRateClimbsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newTestLimiter(t, RateLimit{})
		start := time.Now()
		// 100 requests served, then one refused with a Retry-After of 3 s,
		// with 700 more waiting behind it.
		srv := &refuseOnce{server: newWindowsServer(), n: 101, retryAfter: 3 * time.Second}
		out := run(t, l, spread(100), 10*time.Millisecond, srv)
		as := spread(701)
		for i := range as[1:] {
			as[1+i].after = time.Millisecond
		}
		out = append(out, run(t, l, as, 10*time.Millisecond, srv)...)
		checkTheWindows(t, out)
		i := slices.IndexFunc(out, func(s sent) bool { return s.status == http.StatusTooManyRequests })
		if i != 100 {
			t.Fatalf("the 429 answered request %d", i)
		}
		ts := timesOf(out, "")
		cut := out[i].at.Add(10 * time.Millisecond) // the 429's answer
		for _, s := range ts {
			if s.After(cut) && s.Before(cut.Add(3*time.Second)) {
				t.Fatalf("a request left %v after the 429, within its Retry-After of 3 s", s.Sub(cut))
			}
		}
		documented := float64(DefaultAccountRequestsPerMinute) / 60
		after := cut.Add(3 * time.Second)
		if !conformsToBucket(ts[slices.IndexFunc(ts, cut.Before):], documented, documentedBurst) {
			t.Error("after the cut, the requests do not pass a bucket of 700/min holding 40")
		}
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
		l := newTestLimiter(t, RateLimit{})
		// Served 20 requests in its first 6 s (an account holding 40 and
		// filled at 700/min could have served it 110).
		run(t, l, together(20, "GET /a"), 0, newBucketServer())
		time.Sleep(6 * time.Second)
		l.answered(turn{left: time.Now()}, http.StatusTooManyRequests, time.Second)
		served := 20 / (6 + documentedBurst/l.account.max)
		if got, want := l.account.rate(), throttleBeta*served; got < want*0.99 || got > want*1.01 {
			t.Errorf("cut to %.2f requests/s, want %.2f (β × the %.2f/s served)", got, want, served)
		}
	})
}

// The account is busy while a request sent now would wait (or leave past the
// bucket as a probe): once the burst is spent, and during the pause after a
// 429; it is free again once the bucket refills. Unlimited, it is never
// busy; with a bucket shared by the machine's processes, always.
func TestTheAccountIsBusyWhileARequestWouldWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &Client{limiter: newTestLimiter(t, RateLimit{})}
		if c.AccountBusy() {
			t.Fatal("a fresh client is busy")
		}
		run(t, c.limiter, together(documentedBurst-burstMargin-1, "DELETE /domains"), 0, newBucketServer())
		if c.AccountBusy() {
			t.Fatal("busy with a token left in the burst")
		}
		run(t, c.limiter, together(1, "DELETE /domains"), 0, newBucketServer())
		if !c.AccountBusy() {
			t.Fatal("not busy once the burst is spent")
		}
		time.Sleep(time.Second)
		if c.AccountBusy() {
			t.Fatal("busy a second after the burst, with tokens refilled")
		}
		c.limiter.answered(turn{left: time.Now()}, http.StatusTooManyRequests, 2*time.Second)
		if !c.AccountBusy() {
			t.Fatal("not busy during the Retry-After of a 429")
		}
	})
	if (&Client{limiter: newTestLimiter(t, RateLimit{RequestsPerMinute: -1})}).AccountBusy() {
		t.Error("an unlimited account is busy")
	}
	shared := &Client{limiter: newTestLimiter(t, RateLimit{Shared: true})}
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

// rememberingTheBucket is a directory where the machine remembers, at now,
// that the account id refused a probe: a limiter there paces to the bucket
// from its first request.
func rememberingTheBucket(t *testing.T, id string) string {
	dir := t.TempDir()
	openReadingMemory(dir, id).remember(time.Now())
	return dir
}

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
		dir := rememberingTheBucket(t, accountID("https", "api.invalid", "test-key"))
		c, err := New(Options{BaseURL: "https://api.invalid/api/v2/", APIKey: "test-key", Retry: fastRetry,
			HTTPClient: &http.Client{Transport: answer},
			RateLimit:  RateLimit{RequestsPerMinute: 60, RouteRequestsPerSecond: -1, SharedDir: dir}})
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
		l := newLimiter(RateLimit{RequestsPerMinute: 60, SharedDir: rememberingTheBucket(t, "account")}, "account")
		for range l.account.burst {
			tn, err := l.wait(context.Background(), "GET /a")
			if err != nil {
				t.Fatal(err)
			}
			l.answered(tn, http.StatusOK, 0)
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if _, err := l.wait(ctx, "GET /a"); !errors.Is(err, errWouldPassDeadline) || time.Since(start) != 0 {
			t.Errorf("wait = %v after %v, want errWouldPassDeadline at once", err, time.Since(start))
		}
		ctx, cancel = context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		if _, err := l.wait(ctx, "GET /a"); !errors.Is(err, context.Canceled) || time.Since(start) != 200*time.Millisecond {
			t.Errorf("wait = %v after %v, want context.Canceled after 200ms", err, time.Since(start))
		}
		if _, err := l.wait(context.Background(), "GET /a"); err != nil || time.Since(start) != time.Second {
			t.Errorf("wait = %v after %v; the next turn is 1 s after the burst", err, time.Since(start))
		}
	})
}

// serverTransport answers through a client's limited transport as srv does,
// a millisecond after a request leaves, with its Retry-After in whole
// seconds.
type serverTransport struct{ srv server }

func (s serverTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	time.Sleep(time.Millisecond)
	status, retryAfter := s.srv.answer(callStateFrom(req.Context()).route, time.Now())
	resp := &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody, Request: req}
	if retryAfter > 0 {
		resp.Header.Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
	}
	return resp, nil
}

// apply sends what a Terraform apply does through a client's limited
// transport: three reads one after the other, then n creates with ten
// workers (Terraform's parallelism), each taking 20–60 ms of Terraform's own
// time after an answer and waiting out a 429 as the retry layer does (its
// Retry-After and up to 250 ms more) before sending again. It returns the
// requests answered and those refused.
func apply(t *testing.T, tr http.RoundTripper, n int, seed uint64) (ok, limited int) {
	var mu sync.Mutex
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
			mu.Lock()
			if resp.StatusCode == http.StatusTooManyRequests {
				limited++
			} else {
				ok++
			}
			mu.Unlock()
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
	return ok, limited
}

// Runs that each pace themselves to the account limit overshoot it together,
// whichever reading the account counts by; they settle on shares of it, with
// few 429s and the account used to the full. Runs sharing the machine's
// bucket meet no 429 at all.
func TestRunsOnOneAccountSettleOnShares(t *testing.T) {
	for _, tc := range []struct {
		runs, requests int
		shared         bool
		max429         float64
	}{{4, 200, false, 0.10}, {8, 100, false, 0.15}, {4, 200, true, 0}} {
		for _, reading := range []string{"bucket", "windows"} {
			synctest.Test(t, func(t *testing.T) {
				var srv server = newBucketServer()
				if reading == "windows" {
					srv = newWindowsServer()
				}
				rl := RateLimit{Shared: tc.shared, SharedDir: t.TempDir()}
				start := time.Now()
				var mu sync.Mutex
				var ok, limited int
				var wg sync.WaitGroup
				for r := range tc.runs {
					wg.Go(func() {
						time.Sleep(time.Duration(r) * 200 * time.Millisecond)
						o, l := apply(t, &limitedTransport{next: serverTransport{srv}, limiter: newLimiter(rl, "account")}, tc.requests, uint64(r))
						mu.Lock()
						ok, limited = ok+o, limited+l
						mu.Unlock()
					})
				}
				wg.Wait()
				share := float64(limited) / float64(ok+limited)
				perMin := float64(ok) / time.Since(start).Minutes()
				t.Logf("%s, %d × %d (shared %t): %.1f %% 429s, %.0f requests/min", reading, tc.runs, tc.requests, tc.shared, 100*share, perMin)
				if share > tc.max429 {
					t.Errorf("%s: %.1f %% of the answers were 429, want at most %.0f %%", reading, 100*share, 100*tc.max429)
				}
				if perMin < 0.8*DefaultAccountRequestsPerMinute {
					t.Errorf("%s: %.0f requests per minute together, want at least 80 %% of %d", reading, perMin, DefaultAccountRequestsPerMinute)
				}
			})
		}
	}
}

// delayed answers as srv does, latency after a request leaves (the server
// sees it half-way).
type delayed struct {
	srv     server
	latency time.Duration
}

func (d delayed) RoundTrip(req *http.Request) (*http.Response, error) {
	time.Sleep(d.latency / 2)
	status, retryAfter := d.srv.answer(callStateFrom(req.Context()).route, time.Now())
	time.Sleep(d.latency - d.latency/2)
	resp := &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody, Request: req}
	if retryAfter > 0 {
		resp.Header.Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
	}
	return resp, nil
}

// Learning that the account counts by windows costs an apply little, even
// under a round trip that spaces the probes: an apply of 200 creates at 80 ms
// takes at most half a second more than one paced to the windows from its
// first request, and meets no 429.
func TestLearningTheWindowsCostsAnApplyLittle(t *testing.T) {
	took := func(learnt bool) time.Duration {
		var d time.Duration
		synctest.Test(t, func(t *testing.T) {
			l := newTestLimiter(t, RateLimit{})
			if learnt {
				l.account.pace = paceWindows
			}
			start := time.Now()
			if _, limited := apply(t, &limitedTransport{next: delayed{newWindowsServer(), 80 * time.Millisecond}, limiter: l}, 200, 1); limited != 0 {
				t.Errorf("%d × 429", limited)
			}
			d = time.Since(start)
		})
		return d
	}
	learning, learnt := took(false), took(true)
	if learning > learnt+500*time.Millisecond {
		t.Errorf("an apply that learns the windows took %v, one paced to them from the start %v", learning, learnt)
	}
}
