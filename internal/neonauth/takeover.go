package neonauth

import (
	"context"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Neon Auth branches with the database: a branch created from a parent
// starts with a copy of the parent's Better Auth (users, settings, OAuth
// providers, trusted domains, webhooks). What a create finds already there
// on such a branch is taken over instead of refused only on evidence that
// the branch inherited it: its parent holds the same object (read once per
// kind and shared, never written). The resource then records what it found,
// applies its configuration, and destroy restores what it found instead of
// deleting. Anything else — an object the parent lacks, which another
// configuration, a person or a tool made on the branch; the production
// branch; a branch the provider cannot place; project mode; or with
// RefuseInherited — is refused.
//
// A trusted domain is the exception: it has nothing of its own that a
// configuration could overwrite, and platforms add them to the branches they
// make (the Vercel integration puts a preview's origin into its branch's
// whitelist). One found already there is taken over on any branch, whatever
// put it there, unless told to refuse; destroy leaves it.
//
// The evidence is the parent as it is now: the API keeps no record of the
// parent at the time the branch was made. An object the parent removed
// since is refused (it can be imported); one the parent gained since, and
// that something made on the branch too, counts as inherited.

// Kind is the kind of object a create found already there.
type Kind string

// onAnyBranch reports whether an object of the kind that a create finds is
// taken over whatever put it on the branch: a trusted domain.
func (k Kind) onAnyBranch() bool { return k == KindDomain }

const (
	// KindIntegration is Neon Auth itself; the key is its auth provider.
	KindIntegration Kind = "integration"
	// KindOAuthProvider is an OAuth provider; the key is its provider id.
	KindOAuthProvider Kind = "oauth_provider"
	// KindDomain is one trusted domain; the key is its canonical origin.
	KindDomain Kind = "domain"
	// KindUser is a user; the key is its email.
	KindUser Kind = "user"
	// KindEmailServer is the email server setting; no key.
	KindEmailServer Kind = "email_server"
	// KindSettings is a Better Auth setting; the key is its name in the
	// bundle (betterauth.Setting.Name).
	KindSettings Kind = "settings"
	// KindDataAPI is the Data API of a database; the key is the database's
	// name. It branches with the database, whatever the branch's Neon Auth.
	KindDataAPI Kind = "data_api"
)

// ofNeonAuth reports whether objects of the kind are part of a branch's
// Neon Auth (and so never inherited where this process enabled it).
func (k Kind) ofNeonAuth() bool { return k != KindDataAPI }

// Object names what a create found already on its branch: its kind and its
// key among the objects of that kind on the branch.
type Object struct {
	Kind Kind
	Key  string
	// heldBy is whether a branch holds it, for a list-backed kind (see
	// ListBacked.Object).
	heldBy func(svc *Service, s Scope) Listed
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
	// RefusedParentLacks: the parent (TakeOver.Parent) holds no such
	// object, so the branch did not inherit it.
	RefusedParentLacks
	// RefusedParentUnread: what the parent holds could not be read
	// (TakeOver.Err says why).
	RefusedParentUnread
)

// TakeOver is the decision on an object a create found already on its
// branch: take it over from Parent (or, for a kind taken over on any
// branch, as found), or refuse it (Refused says why).
type TakeOver struct {
	// Parent is the branch's parent, when the decision got as far as it.
	Parent string
	// OnAnyBranch: taken over as found, whatever put it on the branch
	// (Parent is then empty).
	OnAnyBranch bool
	Refused     Refusal
	// Err is why the branches or the parent could not be read.
	Err error
}

// Allowed reports whether the create takes the object over.
func (t TakeOver) Allowed() bool { return t.Refused == NotRefused && (t.Parent != "" || t.OnAnyBranch) }

// MayTakeOver decides what a create that found its object already on the
// scope's branch may do with it. A trusted domain is taken over on any
// branch, in either family, unless told to refuse, and costs no read. Any
// other object only in branch mode, unless told to refuse inherited
// objects, on a branch created from a parent whose Neon Auth this process
// did not enable itself, when the parent holds the same object
// (heldByParent). That costs the project's branch list and, for the kinds
// the parent must hold, one read of the parent per kind, each shared by
// every resource of the run.
func (svc *Service) MayTakeOver(ctx context.Context, s Scope, found Object) TakeOver {
	return svc.decide(ctx, s, found, svc.refuseInherited)
}

// Inherited is the decision MayTakeOver would give if the service took
// inherited objects over: whether the branch inherited found, whatever
// RefuseInherited says. A create that writes a singleton whatever it finds
// (the email server) asks it, so that with RefuseInherited it refuses what
// the branch inherited and nothing else.
func (svc *Service) Inherited(ctx context.Context, s Scope, found Object) TakeOver {
	return svc.decide(ctx, s, found, false)
}

func (svc *Service) decide(ctx context.Context, s Scope, found Object, refuse bool) TakeOver {
	switch {
	case found.Kind.onAnyBranch() && refuse:
		return TakeOver{Refused: RefusedBySetting}
	case found.Kind.onAnyBranch():
		return TakeOver{OnAnyBranch: true}
	case s.Family != apiclient.FamilyBranch:
		return TakeOver{Refused: RefusedProjectMode}
	case refuse:
		return TakeOver{Refused: RefusedBySetting}
	case found.Kind.ofNeonAuth() && svc.enabled.has(keyOf(s)):
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
	to := TakeOver{Parent: apiclient.Deref(b.ParentID)}
	switch held, err := svc.heldByParent(ctx, s, to.Parent, found); {
	case err != nil:
		to.Refused, to.Err = RefusedParentUnread, err
	case !held:
		to.Refused = RefusedParentLacks
	}
	return to
}

// heldByParent reports whether the branch parentID holds the same object as
// found on the scope's branch: the same object of a list-backed kind (an
// OAuth provider of the same id), an integration of
// the same auth provider, a Data API of the same database
// (whatever the parent's Neon Auth). A user counts as held when the
// parent has Neon Auth of the same auth provider, whose copy the branch's
// is: no endpoint lists users. The singletons — the email server, the
// settings — exist wherever Neon Auth does, so they
// count as held when the parent has Neon Auth (what destroy restores of
// them is their values). A parent without Neon Auth holds nothing.
func (svc *Service) heldByParent(ctx context.Context, s Scope, parentID string, found Object) (bool, error) {
	p := s
	p.BranchID, p.Family = parentID, apiclient.FamilyBranch
	var held bool
	var err error
	switch {
	case found.heldBy != nil:
		held, err = found.heldBy(svc, p)(ctx)
	default:
		held, err = svc.heldSingleton(ctx, p, found)
	}
	if isNotFound(err) {
		return false, nil // the parent has no Neon Auth
	}
	return held, err
}

// heldSingleton reports whether the parent scope p holds the same object as
// found, of a kind that is not list-backed.
func (svc *Service) heldSingleton(ctx context.Context, p Scope, found Object) (held bool, err error) {
	switch found.Kind {
	case KindIntegration, KindUser, KindEmailServer, KindSettings:
		if found.Kind == KindIntegration {
			p.AuthProvider = found.Key
		} else if found.Kind != KindUser {
			p.AuthProvider = "" // a singleton: Neon Auth of any auth provider
		}
		var it *apiclient.Integration
		it, err = svc.Integration(ctx, p)
		held = it != nil
	case KindDataAPI:
		var api *apiclient.DataAPI
		api, err = svc.DataAPI(ctx, apiclient.DataAPIRef{ProjectID: p.ProjectID, BranchID: p.BranchID, DatabaseName: found.Key})
		held = api != nil
	}
	return held, err
}
