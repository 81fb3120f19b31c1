package neonauth

import (
	"context"
	"errors"
	"fmt"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// The reads that many resources share during a refresh, one request per
// scope and endpoint, and what each write makes stale.

// Integrations are the scope's integrations (at most one per branch). GET
// …/branches/{branch_id}/auth answers 404 for a branch without Neon Auth, a
// branch that does not exist, and a project this key cannot see; the branch
// list tells them apart. When it can be read, the branch has no
// integration (whether it exists or not), and that is shared like any list:
// the resources planned on a branch without Neon Auth ask once. Otherwise
// the branch list's error is returned.
func (svc *Service) Integrations(ctx context.Context, s Scope) ([]apiclient.Integration, error) {
	return svc.reads.integrations.get(ctx, keyOf(s), func(ctx context.Context) ([]apiclient.Integration, error) {
		its, err := svc.client.ListIntegrations(ctx, s.Scope)
		if s.Family != apiclient.FamilyBranch || !isNotFound(err) {
			return its, err
		}
		if _, berr := svc.Branches(ctx, s.ProjectID); berr != nil {
			return nil, berr
		}
		return []apiclient.Integration{}, nil
	})
}

// Domains are the scope's redirect URI whitelist, every auth provider's.
func (svc *Service) Domains(ctx context.Context, s Scope) ([]apiclient.Domain, error) {
	return svc.reads.domains.get(ctx, keyOf(s), func(ctx context.Context) ([]apiclient.Domain, error) {
		return svc.client.ListDomains(ctx, s.Scope)
	})
}

// ListDomains is the scope's whitelist read by a request of its own, for a
// write about to be based on it.
func (svc *Service) ListDomains(ctx context.Context, s Scope) ([]apiclient.Domain, error) {
	return svc.client.ListDomains(ctx, s.Scope)
}

// Branches are the project's branches.
func (svc *Service) Branches(ctx context.Context, projectID string) ([]apiclient.Branch, error) {
	return svc.reads.branches.get(ctx, readKey{projectID: projectID}, func(ctx context.Context) ([]apiclient.Branch, error) {
		return svc.client.ListBranches(ctx, projectID)
	})
}

// The Better Auth bundle. GET …/branches/{branch_id}/auth/plugins answers a
// branch's Bundled settings (betterauth.Settings), email provider, OAuth
// providers and allow_localhost at once. In branch mode every read of one of
// those goes through the branch's shared bundle, so that a branch refreshes
// with four reads however many resources it has: GET …/auth, …/auth/domains,
// …/auth/plugins and …/auth/webhooks (the bundle does not carry the
// webhooks). A part the bundle does not carry (every member is optional in
// the reference) is read from its own endpoint, as is every part in project
// mode, which has no bundle. Every write to a part amends the bundle held
// once it is answered, so no read that starts after it sees the part from
// before it: a setting's write puts in the value the API answered with; a
// write of a part that has an endpoint of its own (the OAuth providers, the
// email provider, allow_localhost) takes that part out, so that its next
// reader reads that endpoint while the other parts are still served.

// plugins is GET …/auth/plugins: the Better Auth bundle of a branch, shared
// by everything that reads a part of it (see bundled).
func (svc *Service) plugins(ctx context.Context, s Scope) (*apiclient.Plugins, error) {
	return svc.reads.plugins.get(ctx, keyOf(s), func(ctx context.Context) (*apiclient.Plugins, error) {
		return svc.client.GetPlugins(ctx, s.Scope)
	})
}

// bundled reads one part of the scope's settings: from the shared bundle
// under name, when the bundle carries it, or else with own.
func bundled[T any](ctx context.Context, svc *Service, s Scope, name string, own func(context.Context) (T, error)) (T, error) {
	if s.Family == apiclient.FamilyBranch && name != "" {
		p, err := svc.plugins(ctx, s)
		if err != nil {
			var zero T
			return zero, err
		}
		var v T
		switch ok, err := p.Part(name, &v); {
		case err != nil:
			return v, fmt.Errorf("decoding %s of GET …/auth/plugins: %w", name, err)
		case ok:
			return v, nil
		}
	}
	return own(ctx)
}

// ErrPluginNotReported: GET …/auth/plugins answered without a plugin that
// has no endpoint of its own to read.
var ErrPluginNotReported = errors.New("the API's plugin settings do not include this plugin")

// ReadSetting reads a Better Auth setting of the scope: from the bundle
// where it carries it, else from the setting's own GET; a setting that has
// neither is ErrPluginNotReported.
func ReadSetting[T any](ctx context.Context, svc *Service, s Scope, set betterauth.Setting) (T, error) {
	name := ""
	if set.Bundled {
		name = set.Name
	}
	return bundled(ctx, svc, s, name, func(ctx context.Context) (T, error) {
		if !set.Read {
			var zero T
			return zero, ErrPluginNotReported
		}
		return apiclient.ReadSetting[T](ctx, svc.client, s.Scope, set)
	})
}

// EmailServer is the scope's email server (provider). The bundle leaves it
// out when none is configured; that absence is confirmed by the dedicated
// endpoint, whose 404 is documented, rather than taken on trust.
func (svc *Service) EmailServer(ctx context.Context, s Scope) (apiclient.EmailServer, error) {
	return bundled(ctx, svc, s, apiclient.PartEmailProvider, func(ctx context.Context) (apiclient.EmailServer, error) {
		return svc.GetEmailServer(ctx, s)
	})
}

// GetEmailServer is the scope's email server read from its dedicated
// endpoint by a request of its own; a 404 means none is configured (or no
// integration, or a project this key cannot see).
func (svc *Service) GetEmailServer(ctx context.Context, s Scope) (apiclient.EmailServer, error) {
	got, err := svc.client.GetEmailServer(ctx, s.Scope)
	if got == nil {
		return apiclient.EmailServer{}, err
	}
	return *got, err
}

// AllowLocalhost is whether the branch's Neon Auth allows localhost origins
// (branch mode only).
func (svc *Service) AllowLocalhost(ctx context.Context, s Scope) (bool, error) {
	return bundled(ctx, svc, s, apiclient.PartAllowLocalhost, func(ctx context.Context) (bool, error) {
		return svc.client.GetAllowLocalhost(ctx, s.Scope)
	})
}

// OAuthProviders are the scope's OAuth providers (id and type): from the
// bundle in branch mode, else the shared GET …/auth/oauth_providers.
func (svc *Service) OAuthProviders(ctx context.Context, s Scope) ([]apiclient.OAuthProvider, error) {
	return bundled(ctx, svc, s, apiclient.PartOAuthProviders, func(ctx context.Context) ([]apiclient.OAuthProvider, error) {
		return svc.reads.oauth.get(ctx, keyOf(s), func(ctx context.Context) ([]apiclient.OAuthProvider, error) {
			return svc.client.ListOAuthProviders(ctx, s.Scope)
		})
	})
}

// dataAPIKey is the shared-read key of a database's Data API.
func dataAPIKey(r apiclient.DataAPIRef) readKey {
	return readKey{projectID: r.ProjectID, branchID: r.BranchID, database: r.DatabaseName}
}

// DataAPI is the Data API of a branch's database, shared by its readers (a
// plan's take-over check, the create after it, a refresh). Its 404 is
// shared as well, and returned as the client's error: DataAPIAbsence tells
// what it means.
func (svc *Service) DataAPI(ctx context.Context, r apiclient.DataAPIRef) (*apiclient.DataAPI, error) {
	got, err := svc.reads.dataAPIs.get(ctx, dataAPIKey(r), func(ctx context.Context) (dataAPIRead, error) {
		api, err := svc.client.GetDataAPI(ctx, r)
		if isNotFound(err) {
			return dataAPIRead{notFound: err}, nil
		}
		return dataAPIRead{api: api}, err
	})
	if err != nil {
		return nil, err
	}
	return got.api, got.notFound
}

// GetDataAPI is the Data API read by a request of its own, for a write
// waiting on its status.
func (svc *Service) GetDataAPI(ctx context.Context, r apiclient.DataAPIRef) (*apiclient.DataAPI, error) {
	return svc.client.GetDataAPI(ctx, r)
}

// ListDatabases are the databases of a branch, read by a request of their
// own.
func (svc *Service) ListDatabases(ctx context.Context, projectID, branchID string) ([]apiclient.Database, error) {
	return svc.client.ListDatabases(ctx, projectID, branchID)
}

// JWKS are the JWKS URLs a project trusts, shared by the project's readers.
func (svc *Service) JWKS(ctx context.Context, projectID string) ([]apiclient.JWKS, error) {
	return svc.reads.jwks.get(ctx, readKey{projectID: projectID}, func(ctx context.Context) ([]apiclient.JWKS, error) {
		return svc.client.ListJWKS(ctx, projectID)
	})
}

// What a write makes stale, forgotten once the write is answered (whatever
// the answer: a failed write may still have been applied), so that the next
// read sees it.

// forgetDomains forgets the scope's whitelist.
func (svc *Service) forgetDomains(s Scope) { svc.reads.domains.invalidate(keyOf(s)) }

// forgetOAuthProviders forgets the scope's OAuth providers, in their list
// and in the bundle.
func (svc *Service) forgetOAuthProviders(s Scope) {
	svc.reads.oauth.invalidate(keyOf(s))
	svc.forgetPart(s, apiclient.PartOAuthProviders)
}

// forgetPart forgets one part of the scope's bundle that has an endpoint of
// its own: the bundle held keeps serving its other parts.
func (svc *Service) forgetPart(s Scope, name string) {
	svc.reads.plugins.amend(keyOf(s), func(p *apiclient.Plugins) *apiclient.Plugins { return p.Without(name) })
}

// forgetSettings forgets the scope's bundle of settings.
func (svc *Service) forgetSettings(s Scope) { svc.reads.plugins.invalidate(keyOf(s)) }

// forgetScope forgets everything read of the scope: enabling or disabling
// Neon Auth creates or takes its domains and OAuth providers with it.
func (svc *Service) forgetScope(s Scope) {
	k := keyOf(s)
	svc.reads.integrations.invalidate(k)
	svc.reads.oauth.invalidate(k)
	svc.reads.domains.invalidate(k)
	svc.reads.plugins.invalidate(k)
}
