package neonauth

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Whether a 404 means an object is really gone: a successful list that lacks
// it, or a scope the key cannot see.

// Presence is what the API shows of something a request could not find.
type Presence int

const (
	// Present: a successful read lists it.
	Present Presence = iota
	// Gone: a successful read shows it absent — removed outside Terraform,
	// or its integration (or branch) went and took it along.
	Gone
	// NotVisible: the project does not exist or the key cannot see it.
	// Nothing is known of the thing, so state must not change.
	NotVisible
	// Unknown: the API did not say; the error tells why.
	Unknown
)

// Why a thing is Gone, when it went with what held it: the error that
// accompanies Gone wraps one of these (otherwise it is nil: the thing
// itself, or its integration, was removed).
var (
	// ErrBranchGone: a successful read of the project's branches lacks the
	// branch — deleted, as platforms delete a preview's branch when its
	// pull request closes.
	ErrBranchGone = errors.New("its branch no longer exists")
	// ErrProjectGone: the project answers 404, and the projects deleted
	// within their recovery window (GET /projects?recoverable=true) hold
	// it.
	ErrProjectGone = errors.New("its project was deleted")
)

// Listed reports whether a thing is listed by a fresh-enough read (see
// ListBacked.Listed).
type Listed func(context.Context) (bool, error)

// Absence decides whether something under a Neon Auth scope is really gone.
// A 404 alone never says so: it can mean the thing, its integration, its
// branch, or a project this key may not see.
//
// listed is nil for things the API cannot list (users, the email
// configuration): the 404 the caller met is then the thing's own answer,
// and an integration that is there means the thing is not.
//
// The ladder: the thing's list, then the scope's integration, then (for the
// branch-scoped family) the project's branches. The first successful read
// decides; a 404 on the way up is resolved by the next step; a project that
// answers 404 at the top is not visible, unless it is among the key's
// deleted projects (then Gone). Gone comes with ErrBranchGone or
// ErrProjectGone when the thing went with its branch or project.
func (svc *Service) Absence(ctx context.Context, s Scope, listed Listed) (Presence, error) {
	var listErr error
	if listed != nil {
		found, err := listed(ctx)
		switch {
		case err == nil && found:
			return Present, nil
		case err == nil:
			return Gone, nil
		case !isNotFound(err):
			return Unknown, err
		}
		listErr = err
	}
	it, err := svc.Integration(ctx, s)
	switch {
	case err == nil && it == nil:
		return Gone, svc.wentWith(ctx, s)
	case err == nil && listErr == nil:
		// The integration is there, so the 404 was about the thing itself.
		return Gone, nil
	case err == nil:
		// The integration is there, yet its list answered 404.
		return Unknown, listErr
	case isNotFound(err):
		return svc.ProjectAbsence(ctx, s.ProjectID, err)
	default:
		return Unknown, err
	}
}

// IntegrationPresence is the scope's integration for a Read: Present with
// it; Gone when a successful read shows none (with ErrBranchGone when the
// branch went); after a 404, NotVisible, or Gone with ErrProjectGone for a
// deleted project; Unknown with the error of a failed read.
func (svc *Service) IntegrationPresence(ctx context.Context, s Scope) (*apiclient.Integration, Presence, error) {
	it, err := svc.Integration(ctx, s)
	switch {
	case err == nil && it != nil:
		return it, Present, nil
	case err == nil:
		return nil, Gone, svc.wentWith(ctx, s)
	case isNotFound(err):
		p, err := svc.ProjectAbsence(ctx, s.ProjectID, err)
		return nil, p, err
	default:
		return nil, Unknown, err
	}
}

// wentWith is why the scope has no integration when its branch is gone
// (ErrBranchGone); nil when the branch is there, or in project mode. The
// branch list it reads is the one the integration read shared after its
// 404, so it costs no request then.
func (svc *Service) wentWith(ctx context.Context, s Scope) error {
	if s.Family != apiclient.FamilyBranch || s.BranchID == "" {
		return nil
	}
	if svc.gone.has(s.ProjectID, s.BranchID) {
		return fmt.Errorf("branch %s of project %s: %w", s.BranchID, s.ProjectID, ErrBranchGone)
	}
	// A list shared from earlier may predate the branch: it does not make
	// the branch known gone (see goneBranches).
	if bs, err := svc.Branches(ctx, s.ProjectID); err == nil && findBranch(bs, s.BranchID) == nil {
		return fmt.Errorf("branch %s of project %s: %w", s.BranchID, s.ProjectID, ErrBranchGone)
	}
	return nil
}

// ProjectAbsence decides a project that answered 404 (notFound): Gone, with
// ErrProjectGone, when the key's projects deleted within their recovery
// window hold it; otherwise NotVisible, with notFound — the project may
// exist for another key, and state must not change. A key that cannot list
// projects (a project-scoped one) leaves it NotVisible.
func (svc *Service) ProjectAbsence(ctx context.Context, projectID string, notFound error) (Presence, error) {
	deleted, err := svc.client.ListProjects(ctx, apiclient.ListProjectsOptions{Search: projectID, Recoverable: true})
	if err == nil && slices.ContainsFunc(deleted.Projects, func(p apiclient.Project) bool { return p.ID == projectID }) {
		return Gone, fmt.Errorf("project %s: %w", projectID, ErrProjectGone)
	}
	return NotVisible, notFound
}

// SingletonAbsence decides what a 404 means for a singleton that exists
// whenever the scope's Neon Auth does (the sign-in settings, the plugins):
// only the integration read (GET …/auth, the one endpoint whose 404 means
// "Neon Auth not enabled") tells. Other auth endpoints answer 404 for their
// own reasons — an unknown OAuth provider, or a path Neon moved — so while
// the integration is there, the singleton's 404 is not absence: it is
// returned as Unknown with notFound, and state must not change.
func (svc *Service) SingletonAbsence(ctx context.Context, s Scope, notFound error) (Presence, error) {
	it, err := svc.Integration(ctx, s)
	switch {
	case err == nil && it == nil:
		return Gone, svc.wentWith(ctx, s)
	case err == nil:
		return Unknown, fmt.Errorf("%w (Neon Auth is enabled on the %s, so this 404 is the endpoint's own answer, not the "+
			"settings' absence; an endpoint Neon moved answers so: check for a newer release of the provider)", notFound, s.Scope)
	case isNotFound(err):
		return svc.ProjectAbsence(ctx, s.ProjectID, err)
	default:
		return Unknown, err
	}
}

// Integration is the scope's integration with its auth provider (any auth
// provider when the scope names none), nil when a successful read shows
// none. An error that is a 404 means the project is not visible; any other
// error that the API did not say.
func (svc *Service) Integration(ctx context.Context, s Scope) (*apiclient.Integration, error) {
	its, err := svc.Integrations(ctx, s)
	if err != nil {
		return nil, err
	}
	if i := slices.IndexFunc(its, func(it apiclient.Integration) bool {
		return s.AuthProvider == "" || string(it.AuthProvider) == s.AuthProvider
	}); i >= 0 {
		return &its[i], nil
	}
	return nil, nil
}

// DataAPIAbsence decides what the 404 of a Data API's own GET means. There
// is no list of Data APIs: GET …/data-api/{database_name} is the only read,
// and it answers 404 alike for a database without a Data API, a database or
// branch that does not exist, and a project this key cannot see. So the 404
// counts as gone only once the path's parents are read: the branch's
// databases, listed — with the database, the 404 was the Data API's own;
// without it, the Data API went with its database. When the databases answer
// 404 too, the project's branches decide: a list without the branch means
// the Data API went with it (ErrBranchGone); a 404 there, a project this key
// cannot see (NotVisible), and state must not change, unless the project is
// among the key's deleted ones (Gone, ErrProjectGone). Any other failure is
// Unknown.
func (svc *Service) DataAPIAbsence(ctx context.Context, r apiclient.DataAPIRef) (Presence, error) {
	_, err := svc.client.ListDatabases(ctx, r.ProjectID, r.BranchID)
	switch {
	case err == nil:
		return Gone, nil
	case !isNotFound(err):
		return Unknown, err
	}
	if svc.gone.has(r.ProjectID, r.BranchID) {
		return Gone, fmt.Errorf("branch %s of project %s: %w", r.BranchID, r.ProjectID, ErrBranchGone)
	}
	// Read afresh: a list held from earlier may predate the branch.
	bs, err := svc.client.ListBranches(ctx, r.ProjectID)
	switch {
	case err == nil && svc.branchOrGone(bs, r.ProjectID, r.BranchID) == nil:
		return Gone, fmt.Errorf("branch %s of project %s: %w", r.BranchID, r.ProjectID, ErrBranchGone)
	case err == nil:
		// The branch is listed, yet its databases answered 404.
		return Unknown, fmt.Errorf("branch %s of project %s is listed, but its databases answered 404", r.BranchID, r.ProjectID)
	case isNotFound(err):
		return svc.ProjectAbsence(ctx, r.ProjectID, err)
	default:
		return Unknown, err
	}
}

// JWKSPresence is whether a project still trusts the JWKS with the id,
// from a successful list (found holds it when present). A 404 of the list
// is a project this key cannot see, and nothing is known of the JWKS —
// unless the project is among the key's deleted ones (Gone, ErrProjectGone).
func (svc *Service) JWKSPresence(ctx context.Context, projectID, jwksID string) (p Presence, found *apiclient.JWKS, err error) {
	all, err := svc.JWKS(ctx, projectID)
	switch {
	case isNotFound(err):
		p, err := svc.ProjectAbsence(ctx, projectID, err)
		return p, nil, err
	case err != nil:
		return Unknown, nil, err
	}
	if i := slices.IndexFunc(all, func(j apiclient.JWKS) bool { return j.ID == jwksID }); i >= 0 {
		return Present, &all[i], nil
	}
	return Gone, nil, nil
}

// EnabledIntegrations are the scope's integrations; none when a 404 says
// Neon Auth is not enabled there.
func (svc *Service) EnabledIntegrations(ctx context.Context, s Scope) ([]apiclient.Integration, error) {
	its, err := svc.Integrations(ctx, s)
	if isNotFound(err) {
		return nil, nil
	}
	return its, err
}
