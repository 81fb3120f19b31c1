package apiclient

import (
	"context"
)

// The start window: how many requests a new process has in flight before the
// account has answered it.

// startWindow holds back a process's first requests: at most initialWindow
// plus as many as the account has served it are in flight at once, until it
// has served it openAfter; from then on the window is open for good. The
// documented limits allow a new process its whole burst at once, and a lone
// process loses one round trip to the window at most: each answer lets two
// more go (TCP's slow start). A crowd of processes started together on one
// account gains: each sends its first wave into a bucket the others may have
// emptied, and the wave is as large as its window when the answers say so.
// Measured in make bench 8×50 (8 applies of 50 domains started at once): the
// first wave was most of the 429s.
type startWindow struct {
	mu       chanMutex
	inFlight int
	served   int
	open     bool
	freed    chan struct{} // closed and replaced when a request is answered
}

const (
	// initialWindow requests may be in flight before any answer.
	initialWindow = 2
	// openAfter answers served, the window holds initialWindow + openAfter
	// = 10 requests, as many as Terraform's default parallelism has in
	// flight, and it stays open from then on.
	openAfter = 8
)

func newStartWindow() *startWindow {
	return &startWindow{mu: newChanMutex(), freed: make(chan struct{})}
}

// acquire waits for a place in the window; counted reports whether the
// caller took one (and must release it). It returns ctx's error when ctx
// ends first.
func (w *startWindow) acquire(ctx context.Context) (counted bool, err error) {
	if w == nil {
		return false, nil
	}
	for {
		w.mu.Lock()
		if w.open {
			w.mu.Unlock()
			return false, nil
		}
		if w.inFlight < initialWindow+w.served {
			w.inFlight++
			w.mu.Unlock()
			return true, nil
		}
		freed := w.freed
		w.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// release gives back a place taken by acquire, once the request has its
// answer (status 0: none). An answer other than 429 or 5xx widens the window.
func (w *startWindow) release(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inFlight--
	if served(status) {
		w.served++
		w.open = w.served >= openAfter
	}
	close(w.freed)
	w.freed = make(chan struct{})
}
