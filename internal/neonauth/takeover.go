package neonauth

import (
	"context"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Neon Auth branches with the database: a branch created from a parent
// starts with a copy of the parent's Better Auth (users, settings, OAuth
// providers, trusted domains, webhooks). What a create finds already there
// on such a branch was inherited, and is taken over instead of refused: the
// resource records what it found, applies its configuration, and destroy
// puts back what it found instead of deleting. Elsewhere — the production
// branch, a branch the provider cannot place, project mode, or with
// RefuseInherited — an object that exists outside Terraform is refused.

// Kind is the kind of object a create found already there.
type Kind string

const (
	// KindIntegration is Neon Auth itself; the key is its auth provider.
	KindIntegration Kind = "integration"
	// KindOAuthProvider is an OAuth provider; the key is its provider id.
	KindOAuthProvider Kind = "oauth_provider"
	// KindDomain is one trusted domain; the key is its canonical origin.
	KindDomain Kind = "domain"
	// KindWhitelist is the whole redirect URI whitelist; no key.
	KindWhitelist Kind = "whitelist"
	// KindUser is a user; the key is its email.
	KindUser Kind = "user"
	// KindEmailServer is the email server setting; no key.
	KindEmailServer Kind = "email_server"
	// KindSettings is a Better Auth setting; the key is its name in the
	// bundle (betterauth.Setting.Name).
	KindSettings Kind = "settings"
)

// Object names what a create found already on its branch: its kind and its
// key among the objects of that kind on the branch.
type Object struct {
	Kind Kind
	Key  string
}

// Refusal says why a found object counts as made outside Terraform.
type Refusal int

const (
	// NotRefused: the object is taken over.
	NotRefused Refusal = iota
	// RefusedProjectMode: the project-level endpoints reach only the
	// production branch, which inherits nothing.
	RefusedProjectMode
	// RefusedBySetting: the service was told to refuse inherited objects.
	RefusedBySetting
	// RefusedEnabledHere: this process enabled Neon Auth on the scope
	// itself, so nothing on it was inherited.
	RefusedEnabledHere
	// RefusedBranchUnread: the project's branches could not be read, so
	// whether the branch has a parent is unknown (TakeOver.Err says why).
	RefusedBranchUnread
	// RefusedBranchMissing: the branch is not in the project's list.
	RefusedBranchMissing
	// RefusedRootBranch: the branch has no parent (the production branch,
	// or one created schema-only), so it inherited nothing.
	RefusedRootBranch
)

// TakeOver is the decision on an object a create found already on its
// branch: take it over from Parent, or refuse it (Refused says why).
type TakeOver struct {
	// Parent is the branch the object was inherited from; "" when refused.
	Parent  string
	Refused Refusal
	// Err is why the branches could not be read (RefusedBranchUnread).
	Err error
}

// Allowed reports whether the create takes the object over.
func (t TakeOver) Allowed() bool { return t.Parent != "" }

// MayTakeOver decides what a create that found its object already on the
// scope's branch may do with it: take it over only in branch mode, unless
// told to refuse inherited objects, on a branch created from a parent whose
// Neon Auth this process did not enable itself. Any object found on such a
// branch counts as inherited, whatever found names: every caller says what
// it found, so that the decision can weigh what the parent branch holds
// without a change to the callers. Costs the project's branch list, shared
// by every resource of the run.
func (svc *Service) MayTakeOver(ctx context.Context, s Scope, found Object) TakeOver {
	switch {
	case s.Family != apiclient.FamilyBranch:
		return TakeOver{Refused: RefusedProjectMode}
	case svc.refuseInherited:
		return TakeOver{Refused: RefusedBySetting}
	case svc.enabled.has(keyOf(s)):
		return TakeOver{Refused: RefusedEnabledHere}
	}
	b, err := svc.Branch(ctx, s.ProjectID, s.BranchID)
	switch {
	case err != nil:
		return TakeOver{Refused: RefusedBranchUnread, Err: err}
	case b == nil:
		return TakeOver{Refused: RefusedBranchMissing}
	case b.Default || apiclient.Deref(b.ParentID) == "":
		return TakeOver{Refused: RefusedRootBranch}
	}
	return TakeOver{Parent: apiclient.Deref(b.ParentID)}
}
