package neonauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The calls that change Neon Auth. Each forgets the shared reads it makes
// stale once it is answered, so no read that starts after it sees what was
// read before it; the scope's auth provider goes into the requests that name
// one.

// CreateIntegration enables Neon Auth on the scope with its auth provider
// and, when given, the database whose neon_auth schema holds the users and
// (project-level endpoints only: the branch-scoped ones have no such field)
// the role of authenticated users. It forgets everything read of the scope;
// after a 409, which changed nothing but proves that Neon Auth is there, only
// a held read of the integration that lists none (it predates the 409). Once
// it succeeds, the scope counts as enabled by this process: nothing
// on it was inherited.
//
// An answer lost on the way leaves the client to find the integration there
// afterwards (Recovered), which a branch that inherited Neon Auth shows as
// much as one that this request enabled: the lost answer may have been a
// 409. On a branch that inherited an integration of the auth provider (see
// Inherited: its parent has one) the create therefore answers a
// LostOnInheritedError, the 409 the API would have given, so that the
// caller decides on it as on any inherited integration, and destroy never
// disables Neon Auth that the branch may have had before.
func (svc *Service) CreateIntegration(ctx context.Context, s Scope, databaseName, roleName string) (*apiclient.IntegrationCredentials, error) {
	body := apiclient.CreateIntegrationRequest{AuthProvider: s.AuthProvider, DatabaseName: databaseName}
	if s.Family == apiclient.FamilyProject {
		body.RoleName = roleName
	}
	creds, err := svc.client.CreateIntegration(ctx, s.Scope, body)
	if errors.Is(err, apiclient.ErrConflict) {
		svc.reads.integrations.keepIf(keyOf(s), func(its []apiclient.Integration) bool { return len(its) > 0 })
	} else {
		svc.forgetScope(s)
	}
	if err == nil && creds.Recovered && s.Family == apiclient.FamilyBranch {
		if to := svc.Inherited(ctx, s, Object{Kind: KindIntegration, Key: s.AuthProvider}); to.Allowed() {
			return nil, &LostOnInheritedError{BranchID: s.BranchID, ParentID: to.Parent, AuthProvider: s.AuthProvider}
		}
	}
	if err == nil {
		svc.enabled.add(keyOf(s))
	}
	return creds, err
}

// LostOnInheritedError is the create of an integration whose answer was
// lost on a branch that inherited one of the same auth provider: whether
// the request enabled it or was refused, the integration is the branch's
// inherited one. It is an apiclient.ErrConflict.
type LostOnInheritedError struct {
	BranchID, ParentID, AuthProvider string
}

func (e *LostOnInheritedError) Error() string {
	return fmt.Sprintf("the answer was lost in transit, and branch %s now has Neon Auth (%s), as has branch %s, which it was created "+
		"from, so it counts as inherited", e.BranchID, e.AuthProvider, e.ParentID)
}

// Is makes the error an apiclient.ErrConflict.
func (e *LostOnInheritedError) Is(target error) bool { return target == apiclient.ErrConflict }

// IntegrationSettings are the settings of an integration that only the
// branch-scoped API has; nil leaves one as it is.
type IntegrationSettings struct {
	Name           *string
	AllowLocalhost *bool
}

// SetIntegrationSettings sends the settings given, the name first, each
// whatever became of the other, and returns the error of each (nil when it
// was not sent or succeeded). It forgets what each one sent makes stale:
// the integration's listing (its name) and allow_localhost in the bundle.
func (svc *Service) SetIntegrationSettings(ctx context.Context, s Scope, set IntegrationSettings) (nameErr, allowErr error) {
	if set.Name != nil {
		var name string
		name, nameErr = svc.client.SetIntegrationName(ctx, s.Scope, *set.Name)
		if nameErr != nil {
			svc.reads.integrations.invalidate(keyOf(s))
		} else {
			// The listing read before is the same but for the name: later
			// readers (the other resources resolving the auth provider)
			// are served it with the new name instead of reading it again.
			svc.reads.integrations.amend(keyOf(s), func(its []apiclient.Integration) []apiclient.Integration {
				its = slices.Clone(its)
				for i := range its {
					its[i].Name = &name
				}
				return its
			})
		}
	}
	if set.AllowLocalhost != nil {
		_, allowErr = svc.client.SetAllowLocalhost(ctx, s.Scope, *set.AllowLocalhost)
		svc.forgetPart(s, apiclient.PartAllowLocalhost)
	}
	return nameErr, allowErr
}

// DeleteIntegration disables Neon Auth of the scope's auth provider,
// dropping the neon_auth schema when deleteData is set. It forgets
// everything read of the scope.
func (svc *Service) DeleteIntegration(ctx context.Context, s Scope, deleteData bool) error {
	err := svc.client.DeleteIntegration(ctx, s.Scope, s.AuthProvider, deleteData)
	svc.forgetScope(s)
	return err
}

// CreateSDKKeys mints a key pair for the scope's integration (Stack Auth).
func (svc *Service) CreateSDKKeys(ctx context.Context, s Scope) (*apiclient.IntegrationCredentials, error) {
	return svc.client.CreateSDKKeys(ctx, s.Scope, s.AuthProvider)
}

// TransferOwnership requests the transfer of the scope's managed auth
// project to its owner. The integration's listing (its owner, its transfer
// status) is forgotten whatever the answer: a listing read before may
// predate the request or its confirmation, and a failed request may still
// have been applied.
func (svc *Service) TransferOwnership(ctx context.Context, s Scope) (*apiclient.TransferOwnership, error) {
	t, err := svc.client.TransferOwnership(ctx, s.Scope, s.AuthProvider)
	svc.reads.integrations.invalidate(keyOf(s))
	return t, err
}

// AddDomain whitelists a domain (canonical) for the scope's auth provider.
// recovered: the response was lost and the domain was found listed. It
// forgets the scope's whitelist.
func (svc *Service) AddDomain(ctx context.Context, s Scope, domain string) (recovered bool, err error) {
	recovered, err = svc.client.AddDomain(ctx, s.Scope, apiclient.AddDomainRequest{
		Domain: domain, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(s.AuthProvider)})
	svc.forgetDomains(s)
	return recovered, err
}

// ErrNotSent is the outcome of an add that AddDomains did not send because
// another add of the same call had failed for a reason that is not that
// domain's own (a key refused, Neon Auth gone), which would fail every add.
var ErrNotSent = errors.New("not sent: an earlier add to the same whitelist failed")

// domainsOwn reports whether an add's error is about its domain alone: the
// domain is listed already (409), or the API refused it (400). Those leave
// the other adds of the same call to be sent.
func domainsOwn(err error) bool {
	return errors.Is(err, apiclient.ErrConflict) || errors.Is(err, apiclient.ErrBadRequest)
}

// AddDomains whitelists domains (canonical) for the scope's auth provider,
// concurrently: each add is a request of its own (the API adds one domain
// per request), at most one route's documented burst of them in flight,
// each paced by the client's rate limit like any request. It returns the
// outcome of each domain, in the order given: nil when it was added (or
// found listed after its answer was lost), its error otherwise; ErrNotSent
// for a domain whose turn came after an add had failed, the context's error
// for one whose turn the context's end cut short. It forgets the scope's
// whitelist.
func (svc *Service) AddDomains(ctx context.Context, s Scope, domains []string) []error {
	errs := make([]error, len(domains))
	slots := semaphore.NewWeighted(apiclient.DefaultRouteRequestsPerSecond)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for i, d := range domains {
		if err := slots.Acquire(ctx, 1); err != nil {
			errs[i] = err
			continue
		}
		if failed.Load() {
			slots.Release(1)
			errs[i] = ErrNotSent
			continue
		}
		wg.Go(func() {
			defer slots.Release(1)
			_, errs[i] = svc.client.AddDomain(ctx, s.Scope, apiclient.AddDomainRequest{
				Domain: d, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(s.AuthProvider)})
			if errs[i] != nil && !domainsOwn(errs[i]) {
				failed.Store(true)
			}
		})
	}
	wg.Wait()
	svc.forgetDomains(s)
	return errs
}

// DeleteDomain removes a domain (canonical) of the scope's auth provider in
// one request with whichever others of the scope are being deleted at the
// same time (see deleteBatches), and returns the outcome of that request;
// nothing is sent for a domain a neon_auth_domains of this process holds
// (see HoldDomains). It forgets the scope's whitelist.
func (svc *Service) DeleteDomain(ctx context.Context, s Scope, domain string) error {
	send, done := svc.releaseDomains(s, EachDomain, []string{domain})
	if len(send) == 0 {
		done(nil)
		return nil // a neon_auth_domains of this apply holds it now
	}
	err := svc.domainDeletes.delete(ctx, batchKey{scope: s.Scope, authProvider: s.AuthProvider}, domain)
	done(err)
	svc.forgetDomains(s)
	return err
}

// DeleteDomains removes domains of the scope's auth provider in one
// request, leaving out those neon_auth_domain resources of this process hold
// (see HoldDomains). It forgets the scope's whitelist.
func (svc *Service) DeleteDomains(ctx context.Context, s Scope, domains []string) error {
	send, done := svc.releaseDomains(s, WholeList, domains)
	if len(send) == 0 {
		done(nil)
		return nil // neon_auth_domain resources of this apply hold them now
	}
	err := svc.client.DeleteDomains(ctx, s.Scope, s.AuthProvider, send)
	done(err)
	svc.forgetDomains(s)
	return err
}

// AddOAuthProvider adds an OAuth provider to the scope. In branch mode the
// OAuth providers read before are the same but for the one added, which the
// API answered as the branch-scoped reads show it: later readers (the create
// of another OAuth provider, which looks for its own among them first) are
// served them with it instead of reading them again. Otherwise (project
// mode, whose list shows less than the answer; an answer lost; a failure)
// it forgets the scope's OAuth providers.
func (svc *Service) AddOAuthProvider(ctx context.Context, s Scope, req apiclient.AddOAuthProviderRequest) (*apiclient.OAuthProvider, error) {
	p, err := svc.client.AddOAuthProvider(ctx, s.Scope, req)
	if err != nil || p.Recovered || s.Family != apiclient.FamilyBranch {
		svc.forgetOAuthProviders(s)
		return p, err
	}
	with := func(ps []apiclient.OAuthProvider) []apiclient.OAuthProvider {
		others := slices.DeleteFunc(slices.Clone(ps), func(o apiclient.OAuthProvider) bool { return o.ID == p.ID })
		return append(others, *p)
	}
	svc.reads.oauth.amend(keyOf(s), with)
	svc.reads.plugins.amend(keyOf(s), func(b *apiclient.Plugins) *apiclient.Plugins {
		var ps []apiclient.OAuthProvider
		if ok, err := b.Part(apiclient.PartOAuthProviders, &ps); err != nil || !ok {
			return b.Without(apiclient.PartOAuthProviders)
		}
		if amended, err := b.With(apiclient.PartOAuthProviders, with(ps)); err == nil {
			return amended
		}
		return b.Without(apiclient.PartOAuthProviders)
	})
	return p, err
}

// UpdateOAuthProvider sends new credentials or a tenant for an OAuth
// provider of the scope. It forgets the scope's OAuth providers.
func (svc *Service) UpdateOAuthProvider(ctx context.Context, s Scope, id string, req apiclient.UpdateOAuthProviderRequest) (*apiclient.OAuthProvider, error) {
	p, err := svc.client.UpdateOAuthProvider(ctx, s.Scope, id, req)
	svc.forgetOAuthProviders(s)
	return p, err
}

// DeleteOAuthProvider removes an OAuth provider of the scope. It forgets
// the scope's OAuth providers.
func (svc *Service) DeleteOAuthProvider(ctx context.Context, s Scope, id string) error {
	err := svc.client.DeleteOAuthProvider(ctx, s.Scope, id)
	svc.forgetOAuthProviders(s)
	return err
}

// UpdateEmailServer sets the scope's email server. It forgets the email
// provider in the scope's bundle.
func (svc *Service) UpdateEmailServer(ctx context.Context, s Scope, server apiclient.EmailServer) error {
	_, err := svc.client.UpdateEmailServer(ctx, s.Scope, server)
	svc.forgetPart(s, apiclient.PartEmailProvider)
	return err
}

// WriteSetting sends a whole value of a Better Auth setting of the scope and
// returns what the API stored. It forgets the scope's bundle of settings.
func WriteSetting[T any](ctx context.Context, svc *Service, s Scope, set betterauth.Setting, v T) (T, error) {
	stored, err := apiclient.WriteSetting[T](ctx, svc.client, s.Scope, set, v)
	switch _, jerr := json.Marshal(stored); {
	case !set.Bundled:
		return stored, err // the bundle does not carry it: nothing read is stale
	case err != nil || jerr != nil:
		svc.forgetSettings(s)
		return stored, err
	}
	// The bundle read before is the same but for this setting, which the
	// API answered with: later readers (the other settings of the branch)
	// are served it with that part instead of reading it again.
	svc.reads.plugins.amend(keyOf(s), func(p *apiclient.Plugins) *apiclient.Plugins {
		amended, _ := p.With(set.Name, stored) // stored encodes: checked above
		return amended
	})
	return stored, err
}

// CreateDataAPI creates the Data API of a branch's database. It forgets the
// Data API read.
func (svc *Service) CreateDataAPI(ctx context.Context, r apiclient.DataAPIRef, req apiclient.CreateDataAPIRequest) (*apiclient.CreatedDataAPI, error) {
	created, err := svc.client.CreateDataAPI(ctx, r, req)
	svc.reads.dataAPIs.invalidate(dataAPIKey(r))
	return created, err
}

// UpdateDataAPI replaces the settings of a Data API. It forgets the Data
// API read.
func (svc *Service) UpdateDataAPI(ctx context.Context, r apiclient.DataAPIRef, settings apiclient.DataAPISettings) error {
	err := svc.client.UpdateDataAPI(ctx, r, settings)
	svc.reads.dataAPIs.invalidate(dataAPIKey(r))
	return err
}

// DeleteDataAPI deletes a Data API. It forgets the Data API read.
func (svc *Service) DeleteDataAPI(ctx context.Context, r apiclient.DataAPIRef) error {
	err := svc.client.DeleteDataAPI(ctx, r)
	svc.reads.dataAPIs.invalidate(dataAPIKey(r))
	return err
}

// AddJWKS adds a JWKS URL to a project. It forgets the project's JWKS.
func (svc *Service) AddJWKS(ctx context.Context, projectID string, req apiclient.AddJWKSRequest) (*apiclient.AddedJWKS, error) {
	added, err := svc.client.AddJWKS(ctx, projectID, req)
	svc.reads.jwks.invalidate(readKey{projectID: projectID})
	return added, err
}

// DeleteJWKS removes a JWKS URL from a project. It forgets the project's
// JWKS.
func (svc *Service) DeleteJWKS(ctx context.Context, projectID, jwksID string) error {
	err := svc.client.DeleteJWKS(ctx, projectID, jwksID)
	svc.reads.jwks.invalidate(readKey{projectID: projectID})
	return err
}

// The calls that change nothing the service reads.

// CreateUser creates a user in the scope's integration.
func (svc *Service) CreateUser(ctx context.Context, s Scope, email, name string) (*apiclient.User, error) {
	return svc.client.CreateUser(ctx, s.Scope, apiclient.CreateUserRequest{AuthProvider: s.AuthProvider, Email: email, Name: name})
}

// SetUserRoles replaces the roles of a user of the scope.
func (svc *Service) SetUserRoles(ctx context.Context, s Scope, userID string, roles []string) error {
	return svc.client.SetUserRoles(ctx, s.Scope, userID, roles)
}

// DeleteUser deletes a user of the scope.
func (svc *Service) DeleteUser(ctx context.Context, s Scope, userID string) error {
	return svc.client.DeleteUser(ctx, s.Scope, userID)
}

// SendTestEmail sends a test email through the scope's saved email server.
func (svc *Service) SendTestEmail(ctx context.Context, s Scope, recipient string) (*apiclient.TestEmailResult, error) {
	return svc.client.SendTestEmail(ctx, s.Scope, recipient)
}

// SendTestEmailWith sends a test email through an email server that is not
// saved (the deprecated send_test_email).
func (svc *Service) SendTestEmailWith(ctx context.Context, s Scope, server apiclient.EmailServer, recipient string) (*apiclient.TestEmailResult, error) {
	return svc.client.SendTestEmailWith(ctx, s.Scope, server, recipient)
}

// ListProjects lists the projects the API key can see, every page.
func (svc *Service) ListProjects(ctx context.Context, opts apiclient.ListProjectsOptions) (*apiclient.ProjectList, error) {
	return svc.client.ListProjects(ctx, opts)
}
