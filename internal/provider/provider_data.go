package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// What Configure hands to every type: the API client, the API family and the
// reads they share.

// providerData is what Configure hands to every resource, data source, list
// resource and action: the API client, the API family the provider uses, and
// the reads they share. While a provider argument is unknown it holds no
// client, only the name of that argument (pending).
type providerData struct {
	client     *apiclient.Client
	pending    string
	family     apiclient.Family
	reads      sharedReads
	production productionBranches
	claims     whitelistClaims
	// inherited is inherited_auth: inheritedAdopt or inheritedRefuse.
	inherited string
	// enabled are the scopes whose Neon Auth this process enabled.
	enabled enabledHere
	// domainDeletes batches the deletes of neon_auth_domain resources.
	domainDeletes *deleteBatches
}

// sharedReads are the endpoints that many resources read at once during a
// refresh, each shared per scope (see sharedRead).
type sharedReads struct {
	integrations *sharedRead[[]apiclient.Integration]
	oauth        *sharedRead[[]apiclient.OAuthProvider]
	domains      *sharedRead[[]apiclient.Domain]
	branches     *sharedRead[[]apiclient.Branch]
	plugins      *sharedRead[*apiclient.Plugins]
}

// defaultReadMaxAge bounds how long a shared read is served: long enough for
// one refresh, short enough that a long apply sees changes.
const defaultReadMaxAge = 10 * time.Second

func newProviderData(client *apiclient.Client, family apiclient.Family, maxAge time.Duration) *providerData {
	d := &providerData{
		client: client,
		family: family,
		reads: sharedReads{
			integrations: newSharedRead[[]apiclient.Integration](maxAge),
			oauth:        newSharedRead[[]apiclient.OAuthProvider](maxAge),
			domains:      newSharedRead[[]apiclient.Domain](maxAge),
			branches:     newSharedRead[[]apiclient.Branch](maxAge),
			plugins:      newSharedRead[*apiclient.Plugins](maxAge),
		},
	}
	d.domainDeletes = newDeleteBatches(func(ctx context.Context, k batchKey, domains []string) error {
		return client.DeleteDomains(ctx, k.scope, k.authProvider, domains)
	})
	return d
}

// providerDataFrom unpacks what Configure handed over. nil ProviderData is
// normal before Configure (validation) and yields nil without a diagnostic.
func providerDataFrom(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *providerData, got %T. This is a bug in the provider; please report it.", data))
		return nil
	}
	return pd
}

// ready reports whether d holds a client: false before Configure
// (validation), while a provider argument is unknown, or for a type
// Configure did not hand its data.
func (d *providerData) ready() bool { return d != nil && d.client != nil }

// requireClient reports an error when there is no client and returns whether
// the caller may go on. Only a provider block with unknown values is blamed
// on them; a type that was handed nothing is a bug of the provider.
func requireClient(pd *providerData, diags *diag.Diagnostics) bool {
	switch {
	case pd.ready():
		return true
	case pd != nil:
		diags.AddError("Neon provider not configured",
			"The provider block had values that were not known during plan (for example an api_key from another resource; "+
				"here "+pd.pending+"), so no API client exists yet. Run apply again once those values are known, or set them "+
				"from static values or environment variables.")
	default:
		diags.AddError("Neon provider not configured",
			"This type was not handed the provider's API client. This is a bug in the provider; please report it.")
	}
	return false
}

// key is the shared-read key of a scope: the project-level endpoints always
// reach the production branch, so their key ignores the branch.
func (d *providerData) key(s apiclient.Scope) readKey {
	if s.Family == apiclient.FamilyBranch {
		return readKey{projectID: s.ProjectID, branchID: s.BranchID}
	}
	return readKey{projectID: s.ProjectID}
}

func (d *providerData) integrations(ctx context.Context, s apiclient.Scope) ([]apiclient.Integration, error) {
	return d.reads.integrations.get(ctx, d.key(s), func(ctx context.Context) ([]apiclient.Integration, error) {
		return d.client.ListIntegrations(ctx, s)
	})
}

func (d *providerData) domains(ctx context.Context, s apiclient.Scope) ([]apiclient.Domain, error) {
	return d.reads.domains.get(ctx, d.key(s), func(ctx context.Context) ([]apiclient.Domain, error) {
		return d.client.ListDomains(ctx, s)
	})
}

func (d *providerData) branches(ctx context.Context, projectID string) ([]apiclient.Branch, error) {
	return d.reads.branches.get(ctx, readKey{projectID: projectID}, func(ctx context.Context) ([]apiclient.Branch, error) {
		return d.client.ListBranches(ctx, projectID)
	})
}

// plugins is GET …/auth/plugins: the Better Auth bundle of a branch, shared
// by everything that reads a part of it (see bundled).
func (d *providerData) plugins(ctx context.Context, s apiclient.Scope) (*apiclient.Plugins, error) {
	return d.reads.plugins.get(ctx, d.key(s), func(ctx context.Context) (*apiclient.Plugins, error) {
		return d.client.GetPlugins(ctx, s)
	})
}

// Invalidation after the provider's own writes, so that the next read sees
// them.

func (d *providerData) wroteDomains(s apiclient.Scope) { d.reads.domains.invalidate(d.key(s)) }

// wroteOAuthProviders forgets the OAuth providers of a scope, in their list
// and in the bundle.
func (d *providerData) wroteOAuthProviders(s apiclient.Scope) {
	d.reads.oauth.invalidate(d.key(s))
	d.wroteSettings(s)
}

// wroteSettings forgets the aggregated settings (the bundle) of a scope.
func (d *providerData) wroteSettings(s apiclient.Scope) { d.reads.plugins.invalidate(d.key(s)) }

// wroteIntegration forgets everything read of a scope: enabling or disabling
// Neon Auth creates or takes its domains and OAuth providers with it.
func (d *providerData) wroteIntegration(s apiclient.Scope) {
	k := d.key(s)
	d.reads.integrations.invalidate(k)
	d.reads.oauth.invalidate(k)
	d.reads.domains.invalidate(k)
	d.reads.plugins.invalidate(k)
}
