package neonauth

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// How a scope is resolved: an omitted branch (the production branch, once
// per project), an omitted auth provider (the integration's), and the
// branches of a project as the provider looks them up.

// Resolve is the scope of an object placed on projectID's branchID under
// authProvider, in the service's family. An omitted branch ("") is the
// production branch, resolved once per project: the branch-scoped family
// names it in every path, and both families record it. An omitted auth
// provider stays "" (see WithIntegrationProvider). The scope is returned
// with the error too, for the project it names.
func (svc *Service) Resolve(ctx context.Context, projectID, branchID, authProvider string) (Scope, error) {
	s := Scope{Scope: apiclient.Scope{ProjectID: projectID, BranchID: branchID, Family: svc.family}, AuthProvider: authProvider}
	if s.BranchID == "" {
		id, err := svc.ProductionBranch(ctx, s.ProjectID)
		if err != nil {
			return s, fmt.Errorf("looking up the production branch of project %s: %w", s.ProjectID, err)
		}
		s.BranchID = id
	}
	return s, nil
}

// WithIntegrationProvider fills an auth provider the scope leaves open with
// the provider of the scope's one integration. It answers Present with the
// scope filled; Unknown with the error of an integration read that failed;
// and after a 404 or an empty list, NotVisible (with why) for a project this
// key cannot see, or else Gone: there is no integration to take it from
// (with ErrBranchGone or ErrProjectGone when its branch or project went).
func (svc *Service) WithIntegrationProvider(ctx context.Context, s Scope) (Scope, Presence, error) {
	if s.AuthProvider != "" {
		return s, Present, nil
	}
	its, err := svc.Integrations(ctx, s)
	switch {
	case err != nil && !isNotFound(err):
		return s, Unknown, err
	case err != nil || len(its) == 0:
		switch p, perr := svc.Absence(ctx, s, nil); p {
		case NotVisible:
			return s, NotVisible, perr
		case Gone:
			return s, Gone, perr
		}
		return s, Gone, nil
	}
	s.AuthProvider = string(its[0].AuthProvider)
	return s, Present, nil
}

// ProductionBranch is the id of the project's production branch.
func (svc *Service) ProductionBranch(ctx context.Context, projectID string) (string, error) {
	svc.production.mu.Lock()
	id, ok := svc.production.ids[projectID]
	svc.production.mu.Unlock()
	if ok {
		return id, nil
	}
	branches, err := svc.Branches(ctx, projectID)
	if err != nil {
		return "", err
	}
	b, err := apiclient.ProductionBranch(projectID, branches)
	if err != nil {
		return "", err
	}
	svc.production.mu.Lock()
	if svc.production.ids == nil {
		svc.production.ids = map[string]string{}
	}
	svc.production.ids[projectID] = b.ID
	svc.production.mu.Unlock()
	return b.ID, nil
}

// KnownProduction is the id of the project's production branch when this
// process has resolved it already; "" otherwise. It sends nothing.
func (svc *Service) KnownProduction(projectID string) string {
	svc.production.mu.Lock()
	defer svc.production.mu.Unlock()
	return svc.production.ids[projectID]
}

// Branch is a branch of a project as the branch list shows it; nil when the
// list lacks it. A list read earlier in the run (shared for the read's max
// age) may predate a branch created since, by another resource or another
// provider in the same apply, so a branch missing from it is looked for in a
// list read after this call began before it is declared missing.
func (svc *Service) Branch(ctx context.Context, projectID, branchID string) (*apiclient.Branch, error) {
	if svc.gone.has(projectID, branchID) {
		return nil, nil
	}
	since := time.Now()
	bs, err := svc.Branches(ctx, projectID)
	if err != nil {
		return nil, err
	}
	if b := findBranch(bs, branchID); b != nil {
		return b, nil
	}
	bs, err = svc.reads.branches.getSince(ctx, readKey{projectID: projectID}, since, func(ctx context.Context) ([]apiclient.Branch, error) {
		return svc.client.ListBranches(ctx, projectID)
	})
	if err != nil {
		return nil, err
	}
	return svc.branchOrGone(bs, projectID, branchID), nil
}

// BranchMissing reports, after a 404 of the branch-scoped API, whether the
// scope's branch is missing from a list of its project's branches read
// afresh (or was found missing before: see goneBranches): a branch of
// another project, or one that no longer exists. A list that cannot be read
// reports nothing missing.
func (svc *Service) BranchMissing(ctx context.Context, s Scope) bool {
	if s.Family != apiclient.FamilyBranch || s.BranchID == "" {
		return false
	}
	if svc.gone.has(s.ProjectID, s.BranchID) {
		return true
	}
	svc.reads.branches.invalidate(readKey{projectID: s.ProjectID})
	branches, err := svc.Branches(ctx, s.ProjectID)
	return err == nil && svc.branchOrGone(branches, s.ProjectID, s.BranchID) == nil
}

// branchOrGone is findBranch for a list read after the check began: a
// branch it lacks is remembered as gone.
func (svc *Service) branchOrGone(bs []apiclient.Branch, projectID, branchID string) *apiclient.Branch {
	b := findBranch(bs, branchID)
	if b == nil {
		svc.gone.add(projectID, branchID)
	}
	return b
}

// findBranch is the branch of bs with id branchID; nil when there is none.
func findBranch(bs []apiclient.Branch, branchID string) *apiclient.Branch {
	if i := slices.IndexFunc(bs, func(b apiclient.Branch) bool { return b.ID == branchID }); i >= 0 {
		b := bs[i]
		return &b
	}
	return nil
}
