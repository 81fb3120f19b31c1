package main

import (
	"maps"
	"net/http"
	"strings"
	"sync"
)

// observer sits in front of the emulator and records, per phase, what its
// counters by route template cannot tell: requests by actual path (which
// project and branch).
type observer struct {
	mu    sync.Mutex
	paths map[string]int
}

// observation is a copy of what an observer recorded.
type observation struct {
	paths map[string]int // requests by "METHOD /path" (below /api/v2)
}

func (o *observer) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.paths = map[string]int{}
}

func (o *observer) snapshot() observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return observation{paths: maps.Clone(o.paths)}
}

func (o *observer) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, api := strings.CutPrefix(r.URL.Path, "/api/v2/")
		next.ServeHTTP(w, r)
		if !api {
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		o.paths[r.Method+" /"+rest]++
	})
}
