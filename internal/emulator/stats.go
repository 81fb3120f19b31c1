package emulator

import (
	"maps"
	"sync"
)

// Request statistics by route template and outcome, read by tests and the
// benchmark.

// Stats count API requests (never control-surface requests).
type Stats struct {
	// Requests counts responses by route key ("METHOD /template", e.g.
	// "GET /projects/{project_id}/auth/domains"; "unmatched" for paths that
	// match no endpoint) and status. A lost response is counted with the
	// status the handler produced although the client never saw it.
	Requests    map[string]map[int]int `json:"requests"`
	Total       int                    `json:"total"`
	Faults      int                    `json:"faults"`       // injected status faults
	Lost        int                    `json:"lost"`         // applied-but-lost responses
	RateLimited int                    `json:"rate_limited"` // 429s of the real rate limiter
}

type outcome int

const (
	outcomeNormal outcome = iota
	outcomeFault
	outcomeLost
	outcomeRateLimited
)

type statsRecorder struct {
	mu sync.Mutex
	s  Stats
}

func newStatsRecorder() *statsRecorder {
	return &statsRecorder{s: Stats{Requests: map[string]map[int]int{}}}
}

func (r *statsRecorder) record(routeKey string, status int, o outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byStatus := r.s.Requests[routeKey]
	if byStatus == nil {
		byStatus = map[int]int{}
		r.s.Requests[routeKey] = byStatus
	}
	byStatus[status]++
	r.s.Total++
	switch o {
	case outcomeFault:
		r.s.Faults++
	case outcomeLost:
		r.s.Lost++
	case outcomeRateLimited:
		r.s.RateLimited++
	}
}

func (r *statsRecorder) snapshot() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.s
	out.Requests = make(map[string]map[int]int, len(r.s.Requests))
	for k, m := range r.s.Requests {
		out.Requests[k] = maps.Clone(m)
	}
	return out
}

func (r *statsRecorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s = Stats{Requests: map[string]map[int]int{}}
}
