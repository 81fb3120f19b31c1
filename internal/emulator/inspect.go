package emulator

import (
	"errors"
	"fmt"
	"slices"
)

// This file is the emulator's Go API: state inspection and out-of-band
// changes (drift). Everything returned is a copy. Changes are persisted like
// API mutations. Errors wrap ErrNotFound, ErrConflict or ErrInvalid.
//
// Its methods come in two groups, in this order:
//
//   - Those that back the control surface (control.go: the /_emulator/
//     endpoints that cmd/neon-emulator serves to remote acceptance tests and
//     CI): CreateKey, RevokeKey, CreateProject, CreateBranch,
//     DefaultBranchID, BranchAuth, UsersSync, ConfirmTransfer, SetFaults,
//     CurrentFaults, Stats and ResetStats. Code that runs the emulator
//     in-process calls them too.
//   - Those only code running the emulator in-process calls (Go tests, and
//     the benchmark in bench/): SetSharedOAuthProviders, ProjectIDs,
//     AddBranch, Branches, DataAPI, Integrations, OAuthProviders,
//     PutOAuthProvider, DeleteOAuthProvider, Domains, AddDomain,
//     EmailServer, SetEmailServer, RemoveEmailProvider and DeleteUser; and
//     RefillRateLimits, in ratelimit.go.
//
// Out-of-band changes that only this package's tests make are in
// inspect_helpers_test.go, so they are not compiled into the emulator.
//
// Neon Auth lives on branches. The Neon Auth methods taking only a project id
// act on the project's production (default) branch, as the project-level
// endpoints do; BranchAuth and RemoveEmailProvider name the branch ("" also
// means the production branch).

// Errors returned by the Go API of the emulator (wrapped with details).
var (
	ErrNotFound = errors.New("emulator: not found")
	ErrConflict = errors.New("emulator: already exists")
	ErrInvalid  = errors.New("emulator: invalid argument")
)

// The control surface's methods.

// CreateKey creates an API key and returns its token. projectID is required
// for KeyProject and must be empty otherwise.
func (e *Emulator) CreateKey(kind KeyKind, projectID string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch kind {
	case KeyPersonal, KeyOrganization:
		if projectID != "" {
			return "", fmt.Errorf("%w: project_id is only for project-scoped keys", ErrInvalid)
		}
	case KeyProject:
		if e.st.project(projectID) == nil {
			return "", fmt.Errorf("%w: project %q", ErrNotFound, projectID)
		}
	default:
		return "", fmt.Errorf("%w: key type %q (want personal, organization or project)", ErrInvalid, kind)
	}
	token := newAPIKeyToken()
	e.st.ensureKey(token, kind, projectID, "control-"+string(kind), now())
	return token, e.saveLocked()
}

// RevokeKey revokes a key immediately and permanently.
func (e *Emulator) RevokeKey(token string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	k := e.st.key(token)
	if k == nil {
		return fmt.Errorf("%w: API key", ErrNotFound)
	}
	k.Revoked = true
	return e.saveLocked()
}

// CreateProject creates a project with its default branch "main", database
// "neondb" and role "neondb_owner". An empty name becomes the project id.
func (e *Emulator) CreateProject(name string) (Project, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.addProject(name, now())
	return *clonePtr(&p.Project), e.saveLocked()
}

// BranchOptions say how CreateBranch makes a branch; they are also the body
// of POST /_emulator/projects/{project_id}/branches.
type BranchOptions struct {
	// Name is the branch name; "" → the branch id. Names are unique in a
	// project.
	Name string `json:"name"`
	// ParentID is the branch it is created from; "" → the default branch.
	ParentID string `json:"parent_id"`
	// InitSource is "" or "parent-data" (a child of the parent, with a copy
	// of its Neon Auth when that is Better Auth) or "schema-only" (a root
	// branch with the parent's schema only, and no Neon Auth).
	InitSource string `json:"init_source"`
	// Domains are trusted domains added to the new branch's Neon Auth, as
	// the Vercel integration pre-sets a preview deployment's. The branch
	// must start with Neon Auth; each domain is checked and canonicalised
	// as the API does, and one the copy already has is not added twice.
	Domains []string `json:"domains"`
}

// CreateBranch creates a branch out of band, as POST .../branches does,
// optionally with trusted domains pre-set. Nothing is created when an
// option is refused (ErrNotFound for an unknown project or parent,
// ErrConflict for a name taken, ErrInvalid otherwise).
func (e *Emulator) CreateBranch(projectID string, o BranchOptions) (Branch, error) {
	var out Branch
	domains, err := canonicalDomains(o.Domains)
	if err != nil {
		return out, err
	}
	if o.InitSource != "" && o.InitSource != initParentData && o.InitSource != initSchemaOnly {
		return out, fmt.Errorf("%w: init_source must be %s or %s, got %q", ErrInvalid, initParentData, initSchemaOnly, o.InitSource)
	}
	err = e.mutate(projectID, func(p *projectState) error {
		parent := p.defaultBranch()
		if o.ParentID != "" {
			if parent = p.branch(o.ParentID); parent == nil {
				return fmt.Errorf("%w: parent branch %q in project %q", ErrNotFound, o.ParentID, projectID)
			}
		}
		if o.Name != "" && p.branchNamed(o.Name) {
			return fmt.Errorf("%w: a branch named %q already exists in project %q", ErrConflict, o.Name, projectID)
		}
		if len(domains) > 0 && !inheritsAuth(orZero(parent.Auth).AuthProvider, o.InitSource) {
			return fmt.Errorf("%w: domains: the new branch starts without Neon Auth (its parent %s has no Better Auth to copy), "+
				"so there is no whitelist to pre-set", ErrInvalid, parent.ID)
		}
		b := e.st.addBranch(p, parent, o.Name, o.InitSource, now())
		for _, d := range domains {
			b.Auth.addDomain(d)
		}
		out = b.copy()
		return nil
	})
	return out, err
}

// canonicalDomains checks trusted domains as the API does and returns their
// canonical forms.
func canonicalDomains(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for i, d := range in {
		c, err := canonicalOrigin(d)
		if err != nil {
			return nil, fmt.Errorf("%w: domains[%d]: %q %w", ErrInvalid, i, d, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// DefaultBranchID returns the id of the project's default branch.
func (e *Emulator) DefaultBranchID(projectID string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.project(projectID)
	if p == nil {
		return "", errProject(projectID)
	}
	return p.defaultBranch().ID, nil
}

// BranchAuth returns a deep copy of a branch's whole Neon Auth state
// (integration, OAuth providers with their stored tenant ids, domains, email
// provider, users with roles and every setting). ok is false when the
// project or branch does not exist or Neon Auth is not enabled on it.
func (e *Emulator) BranchAuth(projectID, branchID string) (auth BranchAuth, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, err := e.st.branchAuth(projectID, branchID)
	if err != nil {
		return BranchAuth{}, false
	}
	return b.Auth.clone(), true
}

// UsersSync returns the rows of the production branch's users_sync table.
func (e *Emulator) UsersSync(projectID string) []UserRow {
	var out []UserRow
	_ = e.onBranchAuth(projectID, "", false, func(a *BranchAuth) error {
		out = a.clone().Users
		return nil
	})
	return out
}

// ConfirmTransfer stands in for the browser step of an ownership transfer of
// the production branch's integration: it fails unless a transfer was
// requested (POST /projects/auth/transfer_ownership) first, and sets
// owned_by to "user".
func (e *Emulator) ConfirmTransfer(projectID, authProvider string) error {
	return e.onBranchAuth(projectID, "", true, func(a *BranchAuth) error {
		if a.AuthProvider != authProvider {
			return fmt.Errorf("%w: integration with auth provider %q in project %q", ErrNotFound, authProvider, projectID)
		}
		if a.TransferStatus != transferInitiated {
			return fmt.Errorf("%w: no ownership transfer was requested for project %q", ErrInvalid, projectID)
		}
		a.TransferStatus = transferFinished
		a.OwnedBy = ownedByUser
		return nil
	})
}

// SetFaults replaces the fault configuration and reseeds its randomness.
func (e *Emulator) SetFaults(f Faults) { e.faults.set(f) }

// CurrentFaults returns the fault configuration in force (defaults filled in).
func (e *Emulator) CurrentFaults() Faults { return e.faults.get() }

// Stats returns a copy of the counters.
func (e *Emulator) Stats() Stats { return e.stats.snapshot() }

// ResetStats sets every counter to zero.
func (e *Emulator) ResetStats() { e.stats.reset() }

// The methods only in-process callers use.

// SetSharedOAuthProviders names the OAuth providers that have the platform's
// shared keys; adding another without client credentials is refused (400,
// code INVALID_SHARED_OAUTH_PROVIDER). With no ids, every provider has them
// (the default).
func (e *Emulator) SetSharedOAuthProviders(ids ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sharedOAuth = slices.Clone(ids)
}

// ProjectIDs lists the project ids in creation order.
func (e *Emulator) ProjectIDs() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return mapped(e.st.Projects, func(p *projectState) string { return p.Project.ID })
}

// AddBranch adds a non-default branch as the API does without a body: a
// child of the default branch with copies of its databases, roles and Neon
// Auth (when that is Better Auth).
func (e *Emulator) AddBranch(projectID, name string) (string, error) {
	b, err := e.CreateBranch(projectID, BranchOptions{Name: name})
	return b.ID, err
}

// Branches returns the project's branches in creation order.
func (e *Emulator) Branches(projectID string) []Branch {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.project(projectID)
	if p == nil {
		return nil
	}
	return mapped(p.Branches, func(b *branchState) Branch { return b.copy() })
}

// DataAPI returns a copy of the Data API of a branch's database with what
// the API never shows (its auth provider and create options); ok is false
// when it has none.
func (e *Emulator) DataAPI(projectID, branchID, database string) (api DataAPI, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.project(projectID)
	if p == nil {
		return DataAPI{}, false
	}
	b := p.branch(branchID)
	if b == nil || b.dataAPI(database) == nil {
		return DataAPI{}, false
	}
	return *clonePtr(b.dataAPI(database)), true
}

// Integrations returns the production branch's integration (none or one)
// with its latest credentials.
func (e *Emulator) Integrations(projectID string) []Integration {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.project(projectID)
	if p == nil {
		return nil
	}
	out := []Integration{}
	if a := p.defaultBranch().Auth; a != nil {
		out = append(out, a.Integration)
	}
	return out
}

// OAuthProviders returns the OAuth providers of the production branch.
func (e *Emulator) OAuthProviders(projectID string) []OAuthProvider {
	var out []OAuthProvider
	_ = e.onBranchAuth(projectID, "", false, func(a *BranchAuth) error {
		out = slices.Clone(a.OAuthProviders)
		return nil
	})
	return out
}

// PutOAuthProvider adds or replaces an OAuth provider of the production
// branch. An empty Type becomes "standard" when credentials are set, else
// "shared".
func (e *Emulator) PutOAuthProvider(projectID string, p OAuthProvider) error {
	if p.ID == "" {
		return fmt.Errorf("%w: OAuth provider id is empty", ErrInvalid)
	}
	if p.Type == "" {
		p.Type = oauthShared
		if p.ClientID != "" || p.ClientSecret != "" {
			p.Type = oauthStandard
		}
	}
	return e.onBranchAuth(projectID, "", true, func(a *BranchAuth) error {
		if i := a.oauthProvider(p.ID); i >= 0 {
			a.OAuthProviders[i] = p
		} else {
			a.OAuthProviders = append(a.OAuthProviders, p)
		}
		return nil
	})
}

// DeleteOAuthProvider removes an OAuth provider of the production branch.
func (e *Emulator) DeleteOAuthProvider(projectID, id string) error {
	return e.onBranchAuth(projectID, "", true, func(a *BranchAuth) error {
		i := a.oauthProvider(id)
		if i < 0 {
			return fmt.Errorf("%w: OAuth provider %q in project %q", ErrNotFound, id, projectID)
		}
		a.OAuthProviders = slices.Delete(a.OAuthProviders, i, i+1)
		return nil
	})
}

// Domains returns the whitelisted domains of the production branch.
func (e *Emulator) Domains(projectID string) []Domain {
	var out []Domain
	_ = e.onBranchAuth(projectID, "", false, func(a *BranchAuth) error {
		out = slices.Clone(a.Domains)
		return nil
	})
	return out
}

// AddDomain whitelists an origin on the production branch (validated and
// canonicalised like the API does).
func (e *Emulator) AddDomain(projectID, domain string) error {
	canonical, err := canonicalOrigin(domain)
	if err != nil {
		return fmt.Errorf("%w: domain %q %w", ErrInvalid, domain, err)
	}
	return e.onBranchAuth(projectID, "", true, func(a *BranchAuth) error {
		if a.domainIndex(canonical) >= 0 {
			return fmt.Errorf("%w: domain %q", ErrConflict, canonical)
		}
		a.addDomain(canonical)
		return nil
	})
}

// EmailServer returns the production branch's email provider, password
// included; ErrNotFound when none is configured.
func (e *Emulator) EmailServer(projectID string) (EmailServer, error) {
	var out EmailServer
	err := e.onBranchAuth(projectID, "", false, func(a *BranchAuth) error {
		if a.EmailProvider == nil {
			return fmt.Errorf("%w: email provider of project %q", ErrNotFound, projectID)
		}
		out = *a.EmailProvider
		return nil
	})
	return out, err
}

// SetEmailServer stores the production branch's email provider as given
// (Type must be "shared" or "standard").
func (e *Emulator) SetEmailServer(projectID string, c EmailServer) error {
	if c.Type != emailShared && c.Type != emailStandard {
		return fmt.Errorf("%w: email server type %q", ErrInvalid, c.Type)
	}
	return e.onBranchAuth(projectID, "", true, func(a *BranchAuth) error {
		a.EmailProvider = &c
		return nil
	})
}

// RemoveEmailProvider removes a branch's email provider configuration:
// reading it then answers 404 until one is set again.
func (e *Emulator) RemoveEmailProvider(projectID, branchID string) error {
	return e.onBranchAuth(projectID, branchID, true, func(a *BranchAuth) error {
		a.EmailProvider = nil
		return nil
	})
}

// DeleteUser deletes a user of the production branch's Neon Auth.
func (e *Emulator) DeleteUser(projectID, userID string) error {
	return e.onBranchAuth(projectID, "", true, func(a *BranchAuth) error {
		i := a.userIndex(userID)
		if i < 0 {
			return fmt.Errorf("%w: user %q in project %q", ErrNotFound, userID, projectID)
		}
		a.Users = slices.Delete(a.Users, i, i+1)
		return nil
	})
}

func errProject(projectID string) error {
	return fmt.Errorf("%w: project %q", ErrNotFound, projectID)
}

// branchAuth returns a branch with Neon Auth enabled ("": the production
// branch), or an ErrNotFound.
func (s *state) branchAuth(projectID, branchID string) (*branchState, error) {
	p := s.project(projectID)
	if p == nil {
		return nil, errProject(projectID)
	}
	b := p.defaultBranch()
	if branchID != "" {
		b = p.branch(branchID)
	}
	if b == nil {
		return nil, fmt.Errorf("%w: branch %q in project %q", ErrNotFound, branchID, projectID)
	}
	if b.Auth == nil {
		return nil, fmt.Errorf("%w: Neon Auth on branch %q of project %q", ErrNotFound, branchID, projectID)
	}
	return b, nil
}

// mutate runs f on the project under the lock and persists if f succeeds.
func (e *Emulator) mutate(projectID string, f func(p *projectState) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.project(projectID)
	if p == nil {
		return errProject(projectID)
	}
	if err := f(p); err != nil {
		return err
	}
	return e.saveLocked()
}

// onBranchAuth runs f on a branch's Neon Auth ("": the production
// branch's) under the lock, and persists a change (save) when f succeeds.
func (e *Emulator) onBranchAuth(projectID, branchID string, save bool, f func(a *BranchAuth) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, err := e.st.branchAuth(projectID, branchID)
	if err == nil {
		err = f(b.Auth)
	}
	if err != nil || !save {
		return err
	}
	return e.saveLocked()
}
