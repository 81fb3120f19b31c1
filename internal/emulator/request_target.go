package emulator

import (
	"fmt"
	"net/http"
)

// What every handler starts from: the project and branch a request names,
// which the caller's key must be allowed to see, and the Neon Auth it
// addresses.
//
// Neon Auth is served by two families of routes over the same state:
//
//   - the project-level endpoints of internal/apispec/auth-api.md
//     (/projects/auth/..., /projects/{project_id}/auth/...; deprecated in
//     internal/apispec/neon-api-v2-2026-07-13.openapi.json), which act on
//     the project's production (default) branch;
//   - their branch-scoped successors under
//     /projects/{project_id}/branches/{branch_id}/auth, on any branch.
//
// One handler serves an operation in both families; authScope is the branch
// it resolved from the path (or, for POST /projects/auth/*, the body).

// handlerFunc handles one API request. It writes the success response itself
// and returns an *apiError (or any other error, answered with 500) on failure.
type handlerFunc func(e *Emulator, c *call) error

// visibleProject returns the project if it exists and the caller's key may
// see it; otherwise 404 "project not found" in both cases, so that a
// project-scoped key cannot tell other projects from missing ones.
// e.mu must be held.
func (e *Emulator) visibleProject(c *call, id string) (*projectState, error) {
	p := e.st.project(id)
	if p == nil || !c.key.canSee(id) {
		return nil, errProjectNotFound
	}
	return p, nil
}

// inProject runs f, under the lock, on the project of the path.
func (e *Emulator) inProject(c *call, f func(p *projectState) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	return f(p)
}

// inBranch runs f, under the lock, on the branch of the path.
func (e *Emulator) inBranch(c *call, f func(p *projectState, b *branchState) error) error {
	return e.inProject(c, func(p *projectState) error {
		b := p.branch(c.param("branch_id"))
		if b == nil {
			return errBranchNotFound
		}
		return f(p, b)
	})
}

// saved saves the state and answers status with v, encoded under the lock
// (v may share slices with the state). e.mu must be held.
func (e *Emulator) saved(c *call, status int, v any) error {
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(status, v)
}

// authScope is the branch whose Neon Auth a request addresses.
type authScope struct {
	p *projectState
	b *branchState
	// projectLevel: named through the project-level family, which speaks of
	// "the project's integration".
	projectLevel bool
}

// where names the scope at the end of messages.
func (s authScope) where() string {
	if s.projectLevel {
		return "for project " + s.p.Project.ID
	}
	return fmt.Sprintf("on branch %s of project %s", s.b.ID, s.p.Project.ID)
}

// branchFamily reports whether the request came through a branch-scoped route.
func branchFamily(c *call) bool { return c.param("branch_id") != "" }

var errBranchNotFound = &apiError{status: http.StatusNotFound, msg: "branch not found"}

// scopeOf resolves the scope of a request naming projectID: the branch of the
// path, or the production branch for the project-level family. e.mu must be
// held.
func (e *Emulator) scopeOf(c *call, projectID string) (authScope, error) {
	p, err := e.visibleProject(c, projectID)
	switch {
	case err != nil:
		return authScope{}, err
	case !branchFamily(c):
		return authScope{p: p, b: p.defaultBranch(), projectLevel: true}, nil
	}
	b := p.branch(c.param("branch_id"))
	if b == nil {
		return authScope{}, errBranchNotFound
	}
	return authScope{p: p, b: b}, nil
}

// auth returns the scope's Neon Auth, or 404 when it is not enabled.
func (s authScope) auth() (*BranchAuth, error) {
	if s.b.Auth == nil {
		if s.projectLevel {
			return nil, notFound("no auth integration found for project %s", s.p.Project.ID)
		}
		return nil, notFound("Neon Auth is not enabled on branch %s of project %s", s.b.ID, s.p.Project.ID)
	}
	return s.b.Auth, nil
}

// authWith returns the scope's Neon Auth if it uses provider, else 404: a
// request naming a provider names that integration.
func (s authScope) authWith(provider string) (*BranchAuth, error) {
	a := s.b.Auth
	if a == nil || a.AuthProvider != provider {
		return nil, notFound("integration with auth provider %s not found %s", provider, s.where())
	}
	return a, nil
}

// readAuth answers 200 with the body f builds from the Neon Auth of the
// request's path scope.
func (e *Emulator) readAuth(c *call, f authFunc) error {
	return e.serveAuth(c, authOp{status: http.StatusOK}, f)
}

// changeAuth applies f to the Neon Auth of the request's path scope, saves
// the state and answers status with the body f returns (nil: no body).
func (e *Emulator) changeAuth(c *call, status int, f authFunc) error {
	return e.serveAuth(c, authOp{status: status, save: true}, f)
}

// changeAuthWith is changeAuth for requests whose body names the auth
// provider: another provider than the scope's is a missing integration.
func (e *Emulator) changeAuthWith(c *call, provider string, status int, f authFunc) error {
	return e.serveAuth(c, authOp{status: status, save: true, provider: provider}, f)
}

// authFunc reads or changes a scope's Neon Auth and returns the response
// body (nil: none).
type authFunc func(s authScope, a *BranchAuth) (any, error)

type authOp struct {
	status   int
	save     bool
	provider string // when set, the scope's integration must use it
	project  string // the project named by the body; "" → the path's
}

func (e *Emulator) serveAuth(c *call, op authOp, f authFunc) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if op.project == "" {
		op.project = c.param("project_id")
	}
	s, err := e.scopeOf(c, op.project)
	if err != nil {
		return err
	}
	var a *BranchAuth
	if op.provider != "" {
		a, err = s.authWith(op.provider)
	} else {
		a, err = s.auth()
	}
	if err != nil {
		return err
	}
	body, err := f(s, a)
	if err != nil {
		return err
	}
	if op.save {
		if err := e.saveLocked(); err != nil {
			return err
		}
	}
	if body == nil {
		return c.empty(op.status)
	}
	// Encoded under the lock: the body may share slices with the state.
	return c.json(op.status, body)
}
