package emulator

import (
	"fmt"
	"slices"
)

// Out-of-band changes of the Go API (inspect.go) that only this package's
// tests make, so they are not compiled into the emulator.

// mutateBranchAuth changes a branch's Neon Auth out of band: f gets a copy of
// the state, which replaces the stored one when f returns (its project and
// branch ids cannot change).
func (e *Emulator) mutateBranchAuth(projectID, branchID string, f func(*BranchAuth)) error {
	return e.onBranchAuth(projectID, branchID, true, func(a *BranchAuth) error {
		c := a.clone()
		f(&c)
		c.ProjectID, c.BranchID = a.ProjectID, a.BranchID
		c.normalize()
		*a = c
		return nil
	})
}

// disableBranchAuth removes Neon Auth from a branch ("": the production
// branch), with everything configured on it.
func (e *Emulator) disableBranchAuth(projectID, branchID string) error {
	return e.onBranchAuth(projectID, branchID, true, func(a *BranchAuth) error {
		e.st.project(projectID).branch(a.BranchID).Auth = nil
		return nil
	})
}

// removeDomain removes a whitelisted domain of the production branch
// (compared in canonical form).
func (e *Emulator) removeDomain(projectID, domain string) error {
	canonical, err := canonicalOrigin(domain)
	if err != nil {
		canonical = domain
	}
	return e.onBranchAuth(projectID, "", true, func(a *BranchAuth) error {
		i := a.domainIndex(canonical)
		if i < 0 {
			return fmt.Errorf("%w: domain %q in project %q", ErrNotFound, domain, projectID)
		}
		a.Domains = slices.Delete(a.Domains, i, i+1)
		return nil
	})
}
