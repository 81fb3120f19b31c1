package apiclient

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// steppingClock is a clock whose Sleep moves time forward at once: one
// goroutine can live through hours of pacing in milliseconds.
type steppingClock struct {
	mu  sync.Mutex
	now time.Time
}

func newSteppingClock() *steppingClock {
	return &steppingClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *steppingClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.advance(d)
	return nil
}

func (c *steppingClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// accountAt is the account limiter of a client configured for rpm, on clk.
func accountAt(t *testing.T, rpm int, clk clock) *accountLimiter {
	t.Helper()
	a := newLimiterWithClock(RateLimit{RequestsPerMinute: rpm}, clk).account
	if a == nil {
		t.Fatalf("rpm %d: no account limiter", rpm)
	}
	return a
}

// perMinute is the current fill rate in requests per minute.
func perMinute(a *accountLimiter) float64 { return float64(a.Limit()) * 60 }

func TestAccountLimitBacksOffOn429(t *testing.T) {
	clk := newSteppingClock()
	a := accountAt(t, 700, clk)
	full := perMinute(a)
	if full != 700 {
		t.Fatalf("untouched rate %.1f/min, want 700 (the account window, not the rate, keeps each minute within the limit)", full)
	}

	a.observe(http.StatusTooManyRequests, 0)
	if got, want := perMinute(a), full*throttleBeta; math.Abs(got-want) > 1e-9 {
		t.Fatalf("after a 429: %.2f/min, want %.2f (× %.1f)", got, want, throttleBeta)
	}
	clk.advance(throttleHold / 2)
	a.observe(http.StatusTooManyRequests, 0)
	if got, want := perMinute(a), full*throttleBeta; math.Abs(got-want) > 1e-9 {
		t.Errorf("a second 429 of the same congestion cut again: %.2f/min, want %.2f", got, want)
	}
	clk.advance(throttleHold)
	a.observe(http.StatusTooManyRequests, 0)
	if got, want := perMinute(a), full*throttleBeta*throttleBeta; math.Abs(got-want) > 1e-9 {
		t.Errorf("a 429 after the hold: %.2f/min, want %.2f", got, want)
	}

	// Non-stop 429s end at the floor, not at zero.
	for range 100 {
		clk.advance(throttleHold)
		a.observe(http.StatusTooManyRequests, 0)
	}
	if got, want := perMinute(a), full/floorDivisor; math.Abs(got-want) > 1e-9 {
		t.Errorf("after 100 congestions: %.2f/min, want the floor %.2f", got, want)
	}
}

// A cut that comes before the rate regained its previous peak means more
// processes share the account than when that peak was found: the curve then
// levels off lower, at (1+β)/2 of the rate before the cut, leaving them
// room (fast convergence), instead of climbing straight back to it.
func TestAccountLimitAimsLowerWhenCutBeforeRecovering(t *testing.T) {
	clk := newSteppingClock()
	a := accountAt(t, 700, clk)
	a.observe(http.StatusTooManyRequests, 0)
	clk.advance(throttleHold)
	beforeSecondCut := perMinute(a) // still the first cut's rate: no success yet
	a.observe(http.StatusTooManyRequests, 0)
	if got, want := perMinute(a), beforeSecondCut*throttleBeta; math.Abs(got-want) > 1e-9 {
		t.Fatalf("after the second cut: %.2f/min, want %.2f (× %.1f)", got, want, throttleBeta)
	}
	// Where the curve levels off: K seconds of successes after the cut.
	aim := beforeSecondCut * (1 + throttleBeta) / 2
	var k float64
	_ = a.update(context.Background(), func(s *bucketState) bool {
		k, _ = s.curve(a.p)
		return false
	})
	if kAt := math.Cbrt((aim - beforeSecondCut*throttleBeta) / 60 / a.p.cubicC); k >= kAt {
		t.Errorf("the curve levels off %.1f s after the second cut, want sooner than %.1f s (the scale of a cut from the configured rate)", k, kAt)
	}
	steps := int(k * 10)
	for range steps {
		clk.advance(100 * time.Millisecond)
		a.observe(http.StatusOK, 0)
	}
	clk.advance(time.Duration((k - float64(steps)/10) * float64(time.Second)))
	a.observe(http.StatusOK, 0)
	if got := perMinute(a); math.Abs(got-aim) > 0.01*aim {
		t.Errorf("%.1f s after the second cut the rate is %.1f/min, want it level at %.1f (not back at %.1f)", k, got, aim, beforeSecondCut)
	}
}

func TestAccountLimitRecoversOnSuccess(t *testing.T) {
	clk := newSteppingClock()
	a := accountAt(t, 700, clk)
	full := perMinute(a)
	a.observe(http.StatusTooManyRequests, 0)
	cut := perMinute(a)

	// Time alone does not raise the rate: only successes move it.
	clk.advance(time.Minute)
	if got := perMinute(a); got != cut {
		t.Fatalf("a minute without answers moved the rate from %.1f to %.1f", cut, got)
	}
	// Neither do server errors nor unanswered attempts.
	a.observe(http.StatusInternalServerError, 0)
	a.observe(0, 0)
	if got := perMinute(a); got != cut {
		t.Fatalf("5xx or no answer moved the rate from %.1f to %.1f", cut, got)
	}

	// A success a second from now: the curve stands where it was a minute
	// ago plus that second; then it keeps climbing with each second of
	// successes (4xx answers count: the account limit let them through).
	clk = newSteppingClock()
	a = accountAt(t, 700, clk)
	a.observe(http.StatusTooManyRequests, 0)
	prev := perMinute(a)
	var reached time.Duration
	for i := 1; i <= 40; i++ {
		clk.advance(time.Second)
		status := []int{http.StatusOK, http.StatusCreated, http.StatusNoContent, http.StatusNotModified, http.StatusNotFound, http.StatusConflict}[i%6]
		a.observe(status, 0)
		got := perMinute(a)
		if got < prev {
			t.Fatalf("after %d s of successes the rate fell from %.1f to %.1f", i, prev, got)
		}
		if got > full {
			t.Fatalf("after %d s of successes the rate is %.1f, above the configured %.1f", i, got, full)
		}
		if got == full && reached == 0 {
			reached = time.Duration(i) * time.Second
		}
		prev = got
	}
	if reached == 0 || reached > fullRecovery+time.Second {
		t.Errorf("back at the configured rate after %v of successes, want ≤ %v", reached, fullRecovery+time.Second)
	}
	t.Logf("one cut to %.0f/min, back at %.0f/min after %v of successes", full*throttleBeta, full, reached)

	// Half-way the curve has already regained most of the cut (CUBIC's
	// concave part).
	clk = newSteppingClock()
	a = accountAt(t, 700, clk)
	a.observe(http.StatusTooManyRequests, 0)
	clk.advance(fullRecovery / 2)
	a.observe(http.StatusOK, 0)
	if got, want := perMinute(a), full*(1-(1-throttleBeta)/8); math.Abs(got-want) > 0.5 {
		t.Errorf("half-way: %.1f/min, want %.1f (7/8 of the cut regained)", got, want)
	}
}

// Whatever the answers, the tokens granted in any minute stay within the
// configured requests per minute.
func TestAccountLimitNeverExceedsTheConfiguredRate(t *testing.T) {
	for _, rpm := range []int{60, 700, 2000} {
		clk := newSteppingClock()
		a := accountAt(t, rpm, clk)
		rng := rand.New(rand.NewPCG(1, uint64(rpm)))
		// Successes throughout; now and then (every 2 minutes on average) a
		// 429, with or without Retry-After, and (every 10 minutes) a pause
		// in the traffic of up to 2 minutes.
		next := func(mean time.Duration) time.Time {
			return clk.Now().Add(time.Duration(rng.ExpFloat64() * float64(mean)))
		}
		next429, nextIdle := next(2*time.Minute), next(10*time.Minute)
		var grants []time.Time
		end := clk.Now().Add(time.Hour)
		for clk.Now().Before(end) {
			if err := a.wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			grants = append(grants, clk.Now())
			switch now := clk.Now(); {
			case now.After(next429):
				a.observe(http.StatusTooManyRequests, time.Duration(rng.IntN(3))*time.Second)
				next429 = next(2 * time.Minute)
			case now.After(nextIdle):
				clk.advance(time.Duration(rng.IntN(120)) * time.Second)
				nextIdle = next(10 * time.Minute)
			default:
				a.observe(http.StatusOK, 0)
			}
		}
		peak, j := 0, 0
		for i := range grants {
			for grants[i].Sub(grants[j]) >= time.Minute {
				j++
			}
			peak = max(peak, i-j+1)
		}
		t.Logf("rpm %d: %d tokens in a simulated hour (%.0f%% of the limit), busiest minute %d",
			rpm, len(grants), 100*float64(len(grants))/float64(rpm*60), peak)
		if peak > rpm {
			t.Errorf("rpm %d: %d tokens granted within one minute", rpm, peak)
		}
		if peak < rpm*9/10 {
			t.Errorf("rpm %d: the busiest minute held %d tokens; the test never ran at the full rate", rpm, peak)
		}
	}
}

// A Retry-After stops every caller of the limiter until it has passed, those
// already holding a token for later included, and they then leave one by one
// at the cut rate rather than all at once. The turns they take anew during
// the pause hold through it: a caller that wakes to check its turn while the
// pause still runs keeps its place.
func TestRetryAfterPausesEveryCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := accountAt(t, 60, realClock{}) // 0.9 requests/s after a burst of 6
		for range a.Burst() {
			if err := a.wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		const callers = 4
		left := make(chan time.Duration, callers)
		for range callers {
			go func() {
				if err := a.wait(context.Background()); err != nil {
					t.Error(err)
				}
				left <- time.Since(start)
			}()
		}
		synctest.Wait() // all hold a token due within 5 s
		a.observe(http.StatusTooManyRequests, 10*time.Second)
		var got []time.Duration
		for range callers {
			got = append(got, <-left)
		}
		cut := float64(a.Limit())
		if cut > a.p.maxRate*throttleBeta {
			t.Fatalf("after the 429 the limit is %.2f/s, want at most %.2f (cut by %.1f)", cut, a.p.maxRate*throttleBeta, throttleBeta)
		}
		gap := time.Duration(math.Round(float64(time.Second) / cut)) // one token at the cut rate
		for i, d := range got {
			want := 10*time.Second + time.Duration(i)*gap
			if d < want-time.Millisecond || d > want+time.Millisecond {
				t.Errorf("caller %d left after %v, want %v (the pause, then one each %v)", i, d, want, gap.Round(time.Millisecond))
			}
		}
	})
}

func TestWaitNeverSleepsPastTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := accountAt(t, 60, realClock{})
		a.observe(http.StatusTooManyRequests, 30*time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		err := a.wait(ctx)
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errWouldPassDeadline) {
			t.Fatalf("err = %v, want the deadline error at once", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("returned after %v, want at once", d)
		}
		// It took no token: a caller without deadline leaves when the pause ends.
		if err := a.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 30*time.Second {
			t.Errorf("the next caller left after %v, want 30s", d)
		}
		// A token due just within the deadline is waited for.
		ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel2()
		if err := a.wait(ctx2); err != nil {
			t.Errorf("token due within the deadline: %v", err)
		}
	})
}

func TestCancelledContextReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := accountAt(t, 60, realClock{})
		a.observe(http.StatusTooManyRequests, 30*time.Second)

		done, cancel := context.WithCancel(context.Background())
		cancel()
		if err := a.wait(done); !errors.Is(err, context.Canceled) {
			t.Fatalf("already cancelled: err = %v", err)
		}

		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		errc := make(chan error, 1)
		go func() { errc <- a.wait(ctx) }()
		time.Sleep(5 * time.Second)
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("returned %v after the start, want at the cancel (5s)", d)
		}
		// The cancelled caller gave its token back: the next one is not
		// queued behind it.
		if err := a.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 30*time.Second {
			t.Errorf("the next caller left after %v, want 30s", d)
		}
	})
}

// The transport reports every answer: a 429 with Retry-After from the
// server pauses the next request of any caller.
func TestTransportFeedsAnswersToTheLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newSimServer(60, 0)
		srv.bucket.SetBurst(1)
		tr := &limitedTransport{next: srv, limiter: newLimiterWithClock(RateLimit{RequestsPerMinute: 6000, RouteRequestsPerSecond: -1}, realClock{})}
		send := func() int {
			req, _ := http.NewRequest(http.MethodGet, "https://api.invalid/api/v2/projects", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			return resp.StatusCode
		}
		start := time.Now()
		if send() != http.StatusOK || send() != http.StatusTooManyRequests {
			t.Fatal("want 200 then 429 from a server at 1/s")
		}
		// The account served this client one request, in a window that
		// could have held the documented burst (40) at 6000/min: 150/min.
		// The cut starts from the lower of that and the 6000/min the
		// client allowed itself, but never more than servedCutDepth below
		// the latter.
		from := max(60/(float64(documentedBurst)/100), 6000.0/servedCutDepth)
		if got, want := perMinute(tr.limiter.account), from*throttleBeta; math.Abs(got-want) > 1e-9 {
			t.Errorf("after the 429 the limit is %.1f/min, want %.1f (%.1f × %.0f/min)", got, want, throttleBeta, from)
		}
		if send() != http.StatusOK {
			t.Error("the request after the pause was refused")
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("the third request left after %v, want after the 1 s Retry-After", d)
		}
	})
}

// A process cut to a small share of a crowded account climbs back to the
// configured rate within fullRecovery of its last cut, once the crowd is gone
// (measured in make bench's 8×50 case: a run cut to a small share took over
// 30 s to climb back after the others had finished, and the account idled).
func TestAccountLimitRecoversFullyWithinFullRecoveryOfTheLastCut(t *testing.T) {
	clk := newSteppingClock()
	a := accountAt(t, 700, clk)
	full := perMinute(a)
	for range 6 {
		a.observe(http.StatusTooManyRequests, 0)
		clk.advance(throttleHold)
	}
	cut := perMinute(a)
	if cut > full/4 {
		t.Fatalf("after six cuts in a crowd: %.1f/min, want under a quarter of %.1f", cut, full)
	}
	half := false
	for i := range int(fullRecovery / (100 * time.Millisecond)) {
		clk.advance(100 * time.Millisecond)
		a.observe(http.StatusOK, 0)
		if !half && perMinute(a) >= full/2 {
			half = true
			t.Logf("half the configured rate %.1f s after the last cut", float64(i+1)/10)
		}
	}
	if got := perMinute(a); got < full {
		t.Errorf("%v after the last cut the rate is %.1f/min, want back at %.1f", fullRecovery+throttleHold, got, full)
	}
}
