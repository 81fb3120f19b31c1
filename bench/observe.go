package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// observer sits in front of the emulator and records, per phase, what its
// counters by route template cannot tell: requests by actual path (which
// project and branch), when each request arrived and was answered, and how
// many domains each batched domain delete carried.
type observer struct {
	mu       sync.Mutex
	since    time.Time
	paths    map[string]int
	served   []time.Duration
	inFlight []interval
	batches  []int
}

// interval is when one request was in flight at the server: from its
// arrival to its answer (the emulator's latency included), as offsets from
// the reset.
type interval struct{ start, end time.Duration }

// observation is a copy of what an observer recorded.
type observation struct {
	paths    map[string]int  // requests by "METHOD /path" (below /api/v2)
	served   []time.Duration // answers other than 429, as offsets from the reset
	inFlight []interval      // every API request, 429s included, in the order answered
	batches  []int           // domains of each successful DELETE …/auth/domains
}

func (o *observer) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.since, o.paths, o.served, o.inFlight, o.batches = time.Now(), map[string]int{}, nil, nil, nil
}

func (o *observer) snapshot() observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return observation{paths: maps.Clone(o.paths), served: slices.Clone(o.served), inFlight: slices.Clone(o.inFlight),
		batches: slices.Clone(o.batches)}
}

func (o *observer) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, api := strings.CutPrefix(r.URL.Path, "/api/v2/")
		if !api {
			next.ServeHTTP(w, r)
			return
		}
		batch := -1
		if r.Method == http.MethodDelete && strings.HasSuffix(rest, "/auth/domains") {
			batch = domainsInBody(r)
		}
		sw := &emulator.StatusRecorder{ResponseWriter: w}
		arrived := time.Now()
		next.ServeHTTP(sw, r)
		answered := time.Now()

		o.mu.Lock()
		defer o.mu.Unlock()
		o.paths[r.Method+" /"+rest]++
		o.inFlight = append(o.inFlight, interval{start: arrived.Sub(o.since), end: answered.Sub(o.since)})
		if sw.Status() != http.StatusTooManyRequests {
			o.served = append(o.served, time.Since(o.since))
		}
		if batch >= 0 && sw.Status()/100 == 2 {
			o.batches = append(o.batches, batch)
		}
	})
}

// domainsInBody counts the domains of a batched delete's body and leaves the
// body for the emulator to read; -1 when it cannot be read.
func domainsInBody(r *http.Request) int {
	body, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return -1
	}
	var v struct {
		Domains []json.RawMessage `json:"domains"`
	}
	if json.Unmarshal(body, &v) != nil {
		return -1
	}
	return len(v.Domains)
}

// servedPer buckets the served answers by window from the phase's start.
func (ob observation) servedPer(window time.Duration) []int {
	var out []int
	for _, t := range ob.served {
		i := int(t / window)
		for len(out) <= i {
			out = append(out, 0)
		}
		out[i]++
	}
	return out
}

// chain is a critical path: requests each of which arrived after the one
// before it was answered, so that each could have waited on the one before.
type chain struct {
	requests int           // how many
	busy     time.Duration // their time in flight, summed
}

// criticalPath is the longest chain of the phase's requests: the most
// requests of which each arrived after the previous one was answered, and
// of the chains that long, the one with the most time in flight. However
// many requests a phase sends at once, its wall time is at least the
// critical path's time in flight: at a round trip of L, requests × L. A
// request's interval is what the server saw, so requests that merely did
// not overlap count as a chain too (at a round trip of a millisecond, most
// do); with a round trip of tens of milliseconds, requests sent together
// overlap and only those that waited on one another line up.
func (ob observation) criticalPath() chain {
	in := slices.SortedFunc(slices.Values(ob.inFlight), func(a, b interval) int { return cmp.Compare(a.end, b.end) })
	best := make([]chain, len(in)) // best[i]: the longest chain that ends with in[i]
	var out chain
	for i, r := range in {
		best[i] = chain{requests: 1, busy: r.end - r.start}
		for j := range i {
			if in[j].end > r.start {
				continue // answered after r arrived: r did not wait on it
			}
			if c := (chain{requests: best[j].requests + 1, busy: best[j].busy + r.end - r.start}); c.longer(best[i]) {
				best[i] = c
			}
		}
		if best[i].longer(out) {
			out = best[i]
		}
	}
	return out
}

// longer orders chains by requests, then by time in flight.
func (c chain) longer(than chain) bool {
	return c.requests > than.requests || c.requests == than.requests && c.busy > than.busy
}

// String is "K requests, T s".
func (c chain) String() string {
	return fmt.Sprintf("%d (%.2f s)", c.requests, c.busy.Seconds())
}
