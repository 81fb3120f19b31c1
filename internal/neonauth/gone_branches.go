package neonauth

import "sync"

// goneBranches are the branches that a list of their project's branches,
// read after a 404, showed missing. Branch ids are never reused, so a
// branch deleted does not come back: once one is known gone, every later
// check of the process answers without reading the list again. On a
// branch that a platform deleted, the refresh of its N objects then reads
// the branch list once, not N times.
type goneBranches struct {
	mu  sync.Mutex
	ids map[goneKey]bool
}

type goneKey struct{ projectID, branchID string }

func (g *goneBranches) has(projectID, branchID string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ids[goneKey{projectID, branchID}]
}

func (g *goneBranches) add(projectID, branchID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ids == nil {
		g.ids = map[goneKey]bool{}
	}
	g.ids[goneKey{projectID, branchID}] = true
}
