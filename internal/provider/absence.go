package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Whether a 404 means an object is really gone: a successful list that lacks
// it, or a scope the key cannot see.

// presence is what the API shows of something a request could not find.
type presence int

const (
	// present: a successful read lists it.
	present presence = iota
	// gone: a successful read shows it absent — removed outside Terraform,
	// or its integration (or branch) went and took it along.
	gone
	// notVisible: the project does not exist or the key cannot see it.
	// Nothing is known of the thing, so state must not change.
	notVisible
	// unknown: the API did not say; the error tells why.
	unknown
)

// absence decides whether something under a Neon Auth scope is really gone.
// A 404 alone never says so: it can mean the thing, its
// integration, its branch, or a project this key may not see.
//
// listed reports whether the thing is listed by a fresh-enough read. It is
// nil for things the API cannot list (users, the email configuration): the
// 404 the caller met is then the thing's own answer, and an integration that
// is there means the thing is not.
//
// The ladder: the thing's list, then the scope's integration, then (for the
// branch-scoped family) the project's branches. The first successful read
// decides; a 404 on the way up is resolved by the next step; a project that
// answers 404 at the top is not visible.
func (d *providerData) absence(ctx context.Context, s authScope, listed func(context.Context) (bool, error)) (presence, error) {
	var listErr error
	if listed != nil {
		found, err := listed(ctx)
		switch {
		case err == nil && found:
			return present, nil
		case err == nil:
			return gone, nil
		case !isNotFound(err):
			return unknown, err
		}
		listErr = err
	}
	it, err := d.integration(ctx, s)
	switch {
	case err == nil && it == nil:
		return gone, nil
	case err == nil && listErr == nil:
		// The integration is there, so the 404 was about the thing itself.
		return gone, nil
	case err == nil:
		// The integration is there, yet its list answered 404.
		return unknown, listErr
	case isNotFound(err):
		return notVisible, err
	default:
		return unknown, err
	}
}

// singletonAbsence decides what a 404 means for a singleton that exists
// whenever the scope's Neon Auth does (the sign-in settings, the plugins):
// only the integration read (GET …/auth, the one endpoint whose 404 means
// "Neon Auth not enabled") tells. Other auth endpoints answer 404 for their
// own reasons — an unknown OAuth provider, or a path Neon moved — so while
// the integration is there, the singleton's 404 is not absence: it is
// returned as unknown with notFound, and state must not change.
func (d *providerData) singletonAbsence(ctx context.Context, s authScope, notFound error) (presence, error) {
	it, err := d.integration(ctx, s)
	switch {
	case err == nil && it == nil:
		return gone, nil
	case err == nil:
		return unknown, fmt.Errorf("%w (Neon Auth is enabled on the %s, so this 404 is the endpoint's own answer, not the "+
			"settings' absence; an endpoint Neon moved answers so: check for a newer release of the provider)", notFound, s.Scope)
	case isNotFound(err):
		return notVisible, err
	default:
		return unknown, err
	}
}

// integration returns the scope's integration with its auth provider (any
// auth provider when the scope names none), nil when a successful read shows
// none. An error that is a 404 means the
// project is not visible; any other error that the API did not say.
func (d *providerData) integration(ctx context.Context, s authScope) (*apiclient.Integration, error) {
	its, err := d.integrations(ctx, s.Scope)
	if err != nil {
		if s.Family != apiclient.FamilyBranch || !isNotFound(err) {
			return nil, err
		}
		// GET …/branches/{branch_id}/auth answers 404 for a branch without
		// Neon Auth, a branch that does not exist, and a project this key
		// cannot see. The branch list tells them apart: if it succeeds, the
		// integration is not there (whether the branch is or not).
		if _, berr := d.branches(ctx, s.ProjectID); berr != nil {
			return nil, berr
		}
		return nil, nil
	}
	if i := slices.IndexFunc(its, func(it apiclient.Integration) bool {
		return s.AuthProvider == "" || string(it.AuthProvider) == s.AuthProvider
	}); i >= 0 {
		return &its[i], nil
	}
	return nil, nil
}

func isNotFound(err error) bool { return errors.Is(err, apiclient.ErrNotFound) }
