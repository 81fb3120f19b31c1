package main

import (
	"bytes"
	"encoding/json"
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
// project and branch), when each request that passed the rate limit was
// answered, and how many domains each batched domain delete carried.
type observer struct {
	mu      sync.Mutex
	since   time.Time
	paths   map[string]int
	served  []time.Duration
	batches []int
}

// observation is a copy of what an observer recorded.
type observation struct {
	paths   map[string]int  // requests by "METHOD /path" (below /api/v2)
	served  []time.Duration // answers other than 429, as offsets from the reset
	batches []int           // domains of each successful DELETE …/auth/domains
}

func (o *observer) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.since, o.paths, o.served, o.batches = time.Now(), map[string]int{}, nil, nil
}

func (o *observer) snapshot() observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return observation{paths: maps.Clone(o.paths), served: slices.Clone(o.served), batches: slices.Clone(o.batches)}
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
		next.ServeHTTP(sw, r)

		o.mu.Lock()
		defer o.mu.Unlock()
		o.paths[r.Method+" /"+rest]++
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
