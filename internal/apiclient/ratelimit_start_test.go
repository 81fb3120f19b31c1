package apiclient

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// gateServer answers each request with the status the test hands it, one
// at a time, and counts the requests waiting for theirs.
type gateServer struct {
	mu       sync.Mutex
	inFlight int
	answer   chan int
}

func (s *gateServer) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.inFlight++
	s.mu.Unlock()
	status := <-s.answer
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
	return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

func (s *gateServer) waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight
}

// A new process has initialWindow requests in flight before any answer, and
// each answer the account serves lets two more go, until openAfter answers:
// then the window is open for good.
func TestFirstRequestsGoAsTheyAreAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &gateServer{answer: make(chan int)}
		tr := &limitedTransport{next: srv, limiter: newLimiter(RateLimit{})}
		const requests = 20
		var wg sync.WaitGroup
		for range requests {
			wg.Go(func() {
				req, _ := http.NewRequest(http.MethodPost, "https://api.invalid/api/v2/projects/p/auth/domains", nil)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Error(err)
					return
				}
				_ = resp.Body.Close()
			})
		}
		synctest.Wait()
		if got := srv.waiting(); got != initialWindow {
			t.Fatalf("before any answer %d requests are in flight, want %d", got, initialWindow)
		}
		for served := 1; served < openAfter; served++ {
			srv.answer <- http.StatusCreated
			time.Sleep(100 * time.Millisecond) // every request the answer let go is sent
			if got, want := srv.waiting(), initialWindow+served; got != want {
				t.Fatalf("after %d answers %d requests are in flight, want %d", served, got, want)
			}
		}
		srv.answer <- http.StatusCreated
		time.Sleep(time.Second) // every request left is sent
		if got, want := srv.waiting(), requests-openAfter; got != want {
			t.Errorf("after %d answers %d requests are in flight, want all %d left", openAfter, got, want)
		}
		for range requests - openAfter {
			srv.answer <- http.StatusCreated
		}
		wg.Wait()
	})
}

// Only answers the account served widen the window: a 429, a 5xx or no
// answer at all frees the place it held and no more.
func TestStartWindowWidensOnlyOnServedAnswers(t *testing.T) {
	w := newStartWindow()
	ctx := t.Context()
	for _, status := range []int{http.StatusTooManyRequests, http.StatusBadGateway, 0, http.StatusNotFound} {
		for range initialWindow {
			if counted, err := w.acquire(ctx); err != nil || !counted {
				t.Fatalf("status %d: acquire = %v, %v", status, counted, err)
			}
		}
		w.release(status)
		w.release(status)
	}
	if w.served != 2 || w.inFlight != 0 {
		t.Errorf("after two each of 429, 502, no answer and 404: served %d, in flight %d; want 2 (the 404s) and 0", w.served, w.inFlight)
	}
}
