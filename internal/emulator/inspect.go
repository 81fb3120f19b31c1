package emulator

import (
	"fmt"
	"slices"
)

// This file is the Go API for tests: state inspection and out-of-band changes
// (drift). Everything returned is a copy. Changes are persisted like API
// mutations. Errors wrap ErrNotFound, ErrConflict or ErrInvalid.

// CreateProject creates a project with its default branch "main", database
// "neondb" and role "neondb_owner". An empty name becomes the project id.
func (e *Emulator) CreateProject(name string) (Project, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.addProject(name, now())
	return p.Project, e.saveLocked()
}

// DeleteProject deletes a project; its project-scoped keys stop working.
func (e *Emulator) DeleteProject(projectID string) error {
	return e.mutate(projectID, func(p *projectState) error {
		e.st.removeProject(projectID)
		return nil
	})
}

// ProjectIDs lists the project ids in creation order.
func (e *Emulator) ProjectIDs() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	ids := make([]string, 0, len(e.st.Projects))
	for _, p := range e.st.Projects {
		ids = append(ids, p.Project.ID)
	}
	return ids
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

// AddBranch adds a non-default branch (a child of the default branch with the
// same databases and roles).
func (e *Emulator) AddBranch(projectID, name string) (string, error) {
	var id string
	err := e.mutate(projectID, func(p *projectState) error {
		id = e.st.addBranch(p, name, false, now()).ID
		return nil
	})
	return id, err
}

// Branches returns the project's branches.
func (e *Emulator) Branches(projectID string) []Branch {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.project(projectID)
	if p == nil {
		return nil
	}
	out := make([]Branch, 0, len(p.Branches))
	for _, b := range p.Branches {
		c := *b
		c.Databases = slices.Clone(b.Databases)
		c.Roles = slices.Clone(b.Roles)
		out = append(out, c)
	}
	return out
}

// Integrations returns the project's active integrations with their latest
// credentials.
func (e *Emulator) Integrations(projectID string) []Integration {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.project(projectID)
	if p == nil {
		return nil
	}
	out := make([]Integration, 0, len(p.Integrations))
	for _, in := range p.Integrations {
		out = append(out, in.Integration)
	}
	return out
}

// DeleteIntegration removes an integration with its OAuth providers, domains,
// users, email configuration and pending transfer.
func (e *Emulator) DeleteIntegration(projectID, authProvider string) error {
	return e.mutate(projectID, func(p *projectState) error {
		if !p.removeIntegration(authProvider) {
			return errIntegration(projectID, authProvider)
		}
		return nil
	})
}

// OAuthProviders returns the OAuth providers of the project's stack integration.
func (e *Emulator) OAuthProviders(projectID string) []OAuthProvider {
	var out []OAuthProvider
	_ = e.inspect(projectID, func(in *integrationState) error {
		out = slices.Clone(in.OAuthProviders)
		return nil
	})
	return out
}

// PutOAuthProvider adds or replaces an OAuth provider. An empty Type becomes
// "standard" when credentials are set, else "shared".
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
	return e.mutateIntegration(projectID, func(in *integrationState) error {
		if i := in.oauthProvider(p.ID); i >= 0 {
			in.OAuthProviders[i] = p
		} else {
			in.OAuthProviders = append(in.OAuthProviders, p)
		}
		return nil
	})
}

// DeleteOAuthProvider removes an OAuth provider.
func (e *Emulator) DeleteOAuthProvider(projectID, id string) error {
	return e.mutateIntegration(projectID, func(in *integrationState) error {
		i := in.oauthProvider(id)
		if i < 0 {
			return fmt.Errorf("%w: OAuth provider %q in project %q", ErrNotFound, id, projectID)
		}
		in.OAuthProviders = slices.Delete(in.OAuthProviders, i, i+1)
		return nil
	})
}

// Domains returns the whitelisted domains of the project's stack integration.
func (e *Emulator) Domains(projectID string) []Domain {
	var out []Domain
	_ = e.inspect(projectID, func(in *integrationState) error {
		out = slices.Clone(in.Domains)
		return nil
	})
	return out
}

// AddDomain whitelists an origin (validated and canonicalised like the API does).
func (e *Emulator) AddDomain(projectID, domain string) error {
	canonical, err := canonicalOrigin(domain)
	if err != nil {
		return fmt.Errorf("%w: domain %q %w", ErrInvalid, domain, err)
	}
	return e.mutateIntegration(projectID, func(in *integrationState) error {
		if in.domainIndex(canonical) >= 0 {
			return fmt.Errorf("%w: domain %q", ErrConflict, canonical)
		}
		in.Domains = append(in.Domains, Domain{Domain: canonical, AuthProvider: authProviderStack})
		return nil
	})
}

// RemoveDomain removes a whitelisted domain (compared in canonical form).
func (e *Emulator) RemoveDomain(projectID, domain string) error {
	canonical, err := canonicalOrigin(domain)
	if err != nil {
		canonical = domain
	}
	return e.mutateIntegration(projectID, func(in *integrationState) error {
		i := in.domainIndex(canonical)
		if i < 0 {
			return fmt.Errorf("%w: domain %q in project %q", ErrNotFound, domain, projectID)
		}
		in.Domains = slices.Delete(in.Domains, i, i+1)
		return nil
	})
}

// EmailServer returns the full email server configuration, password included.
func (e *Emulator) EmailServer(projectID string) (EmailServer, error) {
	var out EmailServer
	err := e.inspect(projectID, func(in *integrationState) error {
		out = in.Email
		return nil
	})
	return out, err
}

// SetEmailServer stores an email server configuration as given (Type must be
// "shared" or "standard").
func (e *Emulator) SetEmailServer(projectID string, c EmailServer) error {
	if c.Type != emailShared && c.Type != emailStandard {
		return fmt.Errorf("%w: email server type %q", ErrInvalid, c.Type)
	}
	return e.mutateIntegration(projectID, func(in *integrationState) error {
		in.Email = c
		return nil
	})
}

// UsersSync returns the rows of the project's users_sync table.
func (e *Emulator) UsersSync(projectID string) []UserRow {
	var out []UserRow
	_ = e.inspect(projectID, func(in *integrationState) error {
		out = slices.Clone(in.Users)
		return nil
	})
	return out
}

// DeleteUser deletes a user of the project's auth project.
func (e *Emulator) DeleteUser(projectID, userID string) error {
	return e.mutateIntegration(projectID, func(in *integrationState) error {
		i := in.userIndex(userID)
		if i < 0 {
			return fmt.Errorf("%w: user %q in project %q", ErrNotFound, userID, projectID)
		}
		in.Users = slices.Delete(in.Users, i, i+1)
		return nil
	})
}

// ConfirmTransfer stands in for the browser step of an ownership transfer:
// it fails unless a transfer was requested (endpoint 7) first, and sets
// owned_by to "user".
func (e *Emulator) ConfirmTransfer(projectID, authProvider string) error {
	return e.mutate(projectID, func(p *projectState) error {
		in := p.integration(authProvider)
		if in == nil {
			return errIntegration(projectID, authProvider)
		}
		if in.TransferStatus != transferInitiated {
			return fmt.Errorf("%w: no ownership transfer was requested for project %q", ErrInvalid, projectID)
		}
		in.TransferStatus = transferFinished
		in.TransferCode = ""
		in.OwnedBy = ownedByUser
		return nil
	})
}

func errProject(projectID string) error {
	return fmt.Errorf("%w: project %q", ErrNotFound, projectID)
}

func errIntegration(projectID, provider string) error {
	return fmt.Errorf("%w: integration with auth provider %q in project %q", ErrNotFound, provider, projectID)
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

// mutateIntegration runs f on the project's stack integration and persists.
func (e *Emulator) mutateIntegration(projectID string, f func(in *integrationState) error) error {
	return e.mutate(projectID, func(p *projectState) error {
		in := p.integration(authProviderStack)
		if in == nil {
			return errIntegration(projectID, authProviderStack)
		}
		return f(in)
	})
}

// inspect runs f on the project's stack integration without persisting.
func (e *Emulator) inspect(projectID string, f func(in *integrationState) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.project(projectID)
	if p == nil {
		return errProject(projectID)
	}
	in := p.integration(authProviderStack)
	if in == nil {
		return errIntegration(projectID, authProviderStack)
	}
	return f(in)
}
