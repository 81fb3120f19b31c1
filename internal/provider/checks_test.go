package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The named checks and set-up steps the acceptance tests share, in the way
// terraform-provider-random's randomtest does it: each reads or changes the
// API under test through its public routes only, so that a test written with
// them runs against any server that follows Neon's reference. Everything
// else a test needs comes from terraform-plugin-testing itself (statecheck,
// plancheck, knownvalue).

// apiCheck is a check of the API under test, usable as a state check (it
// runs after the step's apply) and, through its method, as CheckDestroy.
type apiCheck func() error

func (f apiCheck) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f()
}

// scope is the test's branch in the family of the test's mode. (A check of
// another branch works on a copy of the env with that BranchID.)
func (e *accEnv) scope() apiclient.Scope {
	f := apiclient.FamilyProject
	if e.Mode == authAPIBranch {
		f = apiclient.FamilyBranch
	}
	return apiclient.Scope{ProjectID: e.ProjectID, BranchID: e.BranchID, Family: f}
}

// authProvider is what a new integration gets in this mode when the
// configuration does not say.
func (e *accEnv) authProvider() string { return neonauth.DefaultAuthProvider(e.scope().Family) }

// must fails the test on an error of a set-up or drift step.
func (e *accEnv) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// enableAuth enables Neon Auth on the test's branch behind Terraform's back,
// through the mode's own endpoints, with the given auth provider or else the
// mode's default: the resources under test are then the only ones in the
// configuration, and their destroy can be checked on a live integration.
func (e *accEnv) enableAuth(authProvider ...string) {
	e.t.Helper()
	p := e.authProvider()
	if len(authProvider) > 0 {
		p = authProvider[0]
	}
	_, err := e.client().CreateIntegration(context.Background(), e.scope(), apiclient.CreateIntegrationRequest{AuthProvider: p})
	e.must(err)
}

// recreateAuth deletes and re-creates the Neon Auth of the test's branch
// behind Terraform's back: a new integration, with nothing of the old one.
func (e *accEnv) recreateAuth() {
	e.t.Helper()
	its, err := e.client().ListIntegrations(context.Background(), e.scope())
	e.must(err)
	for _, it := range its {
		e.must(e.client().DeleteIntegration(context.Background(), e.scope(), string(it.AuthProvider), false))
	}
	e.enableAuth(string(its[0].AuthProvider))
}

// authKept and authGone say what a CheckDestroy (destroyed) expects of the
// test's branch: Neon Auth made outside the configuration outlives the
// destroy; Neon Auth the configuration enabled is gone with it.
const (
	authKept = true
	authGone = false
)

// destroyed is a CheckDestroy: the test's branch has Neon Auth or none, as
// keep says, and every check holds (such as expectDomains() for "no domain
// left").
func (e *accEnv) destroyed(keep bool, checks ...apiCheck) resource.TestCheckFunc {
	return func(*terraform.State) error {
		switch it := e.integration(); {
		case keep && it == nil:
			return fmt.Errorf("the branch's Neon Auth must outlive the destroy, but branch %s has none", e.BranchID)
		case !keep && it != nil:
			return fmt.Errorf("destroy left Neon Auth on branch %s: %+v", e.BranchID, it)
		}
		for _, check := range checks {
			if err := check(); err != nil {
				return err
			}
		}
		return nil
	}
}

// expectDomains checks the trusted domains of the test's branch, in any
// order.
func (e *accEnv) expectDomains(want ...string) apiCheck {
	return func() error {
		ds, err := e.client().ListDomains(context.Background(), e.scope())
		if err != nil {
			return err
		}
		got := make([]string, 0, len(ds))
		for _, d := range ds {
			got = append(got, d.Domain)
		}
		slices.Sort(got)
		if want = slices.Sorted(slices.Values(want)); !slices.Equal(got, want) {
			return fmt.Errorf("the branch's trusted domains are %q, want %q", got, want)
		}
		return nil
	}
}

// integration is the Neon Auth integration of the test's branch; nil
// without one.
func (e *accEnv) integration() *apiclient.Integration {
	e.t.Helper()
	its, err := e.client().ListIntegrations(context.Background(), e.scope())
	if errors.Is(err, apiclient.ErrNotFound) || len(its) == 0 {
		return nil
	}
	e.must(err)
	return &its[0]
}

// oauthProvider is an OAuth provider of the test's branch as listed (id,
// type, client id); false when the list lacks it.
func (e *accEnv) oauthProvider(id string) (apiclient.OAuthProvider, bool) {
	e.t.Helper()
	ps, err := e.client().ListOAuthProviders(context.Background(), e.scope())
	e.must(err)
	for _, p := range ps {
		if string(p.ID) == id {
			return p, true
		}
	}
	return apiclient.OAuthProvider{}, false
}

// emailServer is the email server of the test's branch (the password, if
// any, masked); nil when none is configured.
func (e *accEnv) emailServer() *apiclient.EmailServer {
	e.t.Helper()
	es, err := e.client().GetEmailServer(context.Background(), e.scope())
	if errors.Is(err, apiclient.ErrNotFound) {
		return nil
	}
	e.must(err)
	return es
}

// userExists tells whether the test's branch has a user with the email. No
// endpoint reads users, so it asks by creating one: a 409 says the email is
// taken; a user created instead is deleted again.
func (e *accEnv) userExists(email string) bool {
	e.t.Helper()
	ctx, c := context.Background(), e.client()
	u, err := c.CreateUser(ctx, e.scope(), apiclient.CreateUserRequest{AuthProvider: string(e.integration().AuthProvider), Email: email})
	if errors.Is(err, apiclient.ErrConflict) {
		return true
	}
	e.must(err)
	e.must(c.DeleteUser(ctx, e.scope(), u.ID))
	return false
}

// previewOrigin is the origin a platform puts into a preview branch's
// whitelist, as the Vercel integration does.
const previewOrigin = "https://pr-42.preview.example.com"

// childBranch creates a branch from the test's branch through the API, as
// a CI job or the Vercel integration makes a preview from production; it
// starts with a copy of the parent's Neon Auth, and is deleted when the
// test ends.
func (e *accEnv) childBranch(name string) string {
	e.t.Helper()
	if e.remote != nil {
		name = e.remote.name(e.t) + "-" + name
	}
	return newBranch(e.t, e.client(), e.ProjectID, e.BranchID, name)
}

// authOf is the whole Neon Auth of a branch as the public API shows it,
// for comparisons byte for byte: the integration, the trusted domains, every
// part of the Better Auth bundle, the webhooks ("none" without Neon Auth),
// and the settings of neondb's Data API, which puts it to work. Users are
// not in it: no endpoint lists them.
func (e *accEnv) authOf(branchID string) string {
	e.t.Helper()
	ctx, c := context.Background(), e.client()
	s := apiclient.Scope{ProjectID: e.ProjectID, BranchID: branchID, Family: apiclient.FamilyBranch}
	its, err := c.ListIntegrations(ctx, s)
	if errors.Is(err, apiclient.ErrNotFound) {
		return "none"
	}
	e.must(err)
	whole := map[string]any{"integrations": its}
	if api := e.dataAPIOf(branchID, "neondb"); api != nil {
		whole["data_api"] = api.Settings
	}
	domains, err := c.ListDomains(ctx, s)
	e.must(err)
	whole["domains"] = domains
	if string(its[0].AuthProvider) == apiclient.AuthProviderBetterAuth {
		bundle, err := c.GetPlugins(ctx, s)
		e.must(err)
		names := []string{apiclient.PartEmailProvider, apiclient.PartOAuthProviders, apiclient.PartAllowLocalhost}
		for _, set := range betterauth.Settings {
			names = append(names, set.Name)
		}
		for _, name := range names {
			var part json.RawMessage
			if ok, err := bundle.Part(name, &part); ok && err == nil {
				whole[name] = part
			}
		}
		webhooks, err := apiclient.ReadSetting[json.RawMessage](ctx, c, s, betterauth.Webhooks)
		e.must(err)
		whole["webhooks"] = webhooks
	}
	b, err := json.Marshal(whole)
	e.must(err)
	return string(b)
}

// dataAPIOf is the Data API of a database of a branch as the API shows it;
// nil when GET answers 404.
func (e *accEnv) dataAPIOf(branchID, database string) *apiclient.DataAPI {
	e.t.Helper()
	got, err := e.client().GetDataAPI(context.Background(), apiclient.DataAPIRef{ProjectID: e.ProjectID, BranchID: branchID, DatabaseName: database})
	if errors.Is(err, apiclient.ErrNotFound) {
		return nil
	}
	e.must(err)
	return got
}

// sameAuth checks that a branch's Neon Auth is still byte for byte what
// authOf gave earlier (want); when names the moment, for the error.
func (e *accEnv) sameAuth(branchID, want, when string) error {
	if got := e.authOf(branchID); got != want {
		return fmt.Errorf("%s, the Neon Auth of branch %s changed:\nwas %s\nnow %s", when, branchID, want, got)
	}
	return nil
}

// matchInOrder matches the parts in order anywhere in the output; spaces
// match any whitespace, since Terraform wraps long diagnostics.
func matchInOrder(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, `.*`))
}

// enableAuthWithSecrets enables Neon Auth on the test's branch behind
// Terraform's back with a trusted domain (https://app.example.com) and a
// secret of each kind, for the data sources to read without exposing them
// (noAuditSecret): the google OAuth provider with its client secret, and a
// standard email server with its password.
func (e *accEnv) enableAuthWithSecrets() {
	e.t.Helper()
	ctx, c, s := context.Background(), e.client(), e.scope()
	e.enableAuth()
	_, err := c.AddDomain(ctx, s, apiclient.AddDomainRequest{Domain: "https://app.example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider(e.authProvider())})
	e.must(err)
	_, err = c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "google", ClientID: apiclient.Ptr("audit-client"),
		ClientSecret: apiclient.Ptr("audit-oauth-secret")})
	e.must(err)
	_, err = c.UpdateEmailServer(ctx, s, apiclient.StandardEmailServer(apiclient.SMTP{Host: "smtp.example.com", Port: 587, Username: "mailer",
		Password: "audit-smtp-secret", SenderEmail: "noreply@example.com", SenderName: "Example"}))
	e.must(err)
}

// sent counts the requests a provider sends, on the client's side of the
// wire: "nothing was sent" and "nothing was written" then hold or fail on
// any target, whoever else uses the account.
type sent struct {
	next http.RoundTripper
	// all are the requests sent; writes those with another method than GET.
	all, writes atomic.Int64
}

func (s *sent) RoundTrip(r *http.Request) (*http.Response, error) {
	s.all.Add(1)
	if r.Method != http.MethodGet {
		s.writes.Add(1)
	}
	return s.next.RoundTrip(r)
}

// counted is the test's provider (see provider), remotely still validated,
// with what it sends counted.
func (e *accEnv) counted() (provider.Provider, *sent) {
	s := &sent{next: http.DefaultTransport}
	if e.validator != nil {
		s.next = e.validator.Transport(nil)
	}
	return newWithHTTPClient("test", &http.Client{Transport: s})(), s
}
