package acctest

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

// APICheck is a check of the API under test, usable as a state check (it
// runs after the step's apply) and, through its method, as CheckDestroy.
type APICheck func() error

func (f APICheck) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f()
}

// Scope is the test's branch in the family of the test's mode. (A check of
// another branch works on a copy of the env with that BranchID.)
func (e *Env) Scope() apiclient.Scope {
	f := apiclient.FamilyProject
	if e.Mode == ModeBranch {
		f = apiclient.FamilyBranch
	}
	return apiclient.Scope{ProjectID: e.ProjectID, BranchID: e.BranchID, Family: f}
}

// AuthProvider is what a new integration gets in this mode when the
// configuration does not say.
func (e *Env) AuthProvider() string { return neonauth.DefaultAuthProvider(e.Scope().Family) }

// Must fails the test on an error of a set-up or drift step.
func (e *Env) Must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// EnableAuth enables Neon Auth on the test's branch behind Terraform's back,
// through the mode's own endpoints, with the given auth provider or else the
// mode's default: the resources under test are then the only ones in the
// configuration, and their destroy can be checked on a live integration.
func (e *Env) EnableAuth(authProvider ...string) {
	e.t.Helper()
	p := e.AuthProvider()
	if len(authProvider) > 0 {
		p = authProvider[0]
	}
	_, err := e.Client().CreateIntegration(context.Background(), e.Scope(), apiclient.CreateIntegrationRequest{AuthProvider: p})
	e.Must(err)
}

// RecreateAuth deletes and re-creates the Neon Auth of the test's branch
// behind Terraform's back: a new integration, with nothing of the old one.
func (e *Env) RecreateAuth() {
	e.t.Helper()
	its, err := e.Client().ListIntegrations(context.Background(), e.Scope())
	e.Must(err)
	for _, it := range its {
		e.Must(e.Client().DeleteIntegration(context.Background(), e.Scope(), string(it.AuthProvider), false))
	}
	e.EnableAuth(string(its[0].AuthProvider))
}

// AuthKept and AuthGone say what a CheckDestroy (Destroyed) expects of the
// test's branch: Neon Auth made outside the configuration outlives the
// destroy; Neon Auth the configuration enabled is gone with it.
const (
	AuthKept = true
	AuthGone = false
)

// Destroyed is a CheckDestroy: the test's branch has Neon Auth or none, as
// keep says, and every check holds (such as ExpectDomains() for "no domain
// left").
func (e *Env) Destroyed(keep bool, checks ...APICheck) resource.TestCheckFunc {
	return func(*terraform.State) error {
		switch it := e.Integration(); {
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

// ExpectDomains checks the trusted domains of the test's branch, in any
// order.
func (e *Env) ExpectDomains(want ...string) APICheck {
	return func() error {
		ds, err := e.Client().ListDomains(context.Background(), e.Scope())
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

// Integration is the Neon Auth integration of the test's branch; nil
// without one.
func (e *Env) Integration() *apiclient.Integration {
	e.t.Helper()
	its, err := e.Client().ListIntegrations(context.Background(), e.Scope())
	if errors.Is(err, apiclient.ErrNotFound) || len(its) == 0 {
		return nil
	}
	e.Must(err)
	return &its[0]
}

// OAuthProvider is an OAuth provider of the test's branch as listed (id,
// type, client id); false when the list lacks it.
func (e *Env) OAuthProvider(id string) (apiclient.OAuthProvider, bool) {
	e.t.Helper()
	ps, err := e.Client().ListOAuthProviders(context.Background(), e.Scope())
	e.Must(err)
	for _, p := range ps {
		if string(p.ID) == id {
			return p, true
		}
	}
	return apiclient.OAuthProvider{}, false
}

// EmailServer is the email server of the test's branch (the password, if
// any, masked); nil when none is configured.
func (e *Env) EmailServer() *apiclient.EmailServer {
	e.t.Helper()
	es, err := e.Client().GetEmailServer(context.Background(), e.Scope())
	if errors.Is(err, apiclient.ErrNotFound) {
		return nil
	}
	e.Must(err)
	return es
}

// UserExists tells whether the test's branch has a user with the email. No
// endpoint reads users, so it asks by creating one: a 409 says the email is
// taken; a user created instead is deleted again.
func (e *Env) UserExists(email string) bool {
	e.t.Helper()
	ctx, c := context.Background(), e.Client()
	u, err := c.CreateUser(ctx, e.Scope(), apiclient.CreateUserRequest{AuthProvider: string(e.Integration().AuthProvider), Email: email})
	if errors.Is(err, apiclient.ErrConflict) {
		return true
	}
	e.Must(err)
	e.Must(c.DeleteUser(ctx, e.Scope(), u.ID))
	return false
}

// PreviewOrigin is the origin a platform puts into a preview branch's
// whitelist, as the Vercel integration does.
const PreviewOrigin = "https://pr-42.preview.example.com"

// ChildBranch creates a branch from the test's branch through the API, as
// a CI job or the Vercel integration makes a preview from production; it
// starts with a copy of the parent's Neon Auth, and is deleted when the
// test ends.
func (e *Env) ChildBranch(name string) string {
	e.t.Helper()
	if e.remote != nil {
		name = e.remote.name(e.t) + "-" + name
	}
	return NewBranch(e.t, e.Client(), e.ProjectID, e.BranchID, name)
}

// AuthOf is the whole Neon Auth of a branch as the public API shows it,
// for comparisons byte for byte: the integration, the trusted domains, every
// part of the Better Auth bundle, the webhooks ("none" without Neon Auth),
// and the settings of neondb's Data API, which puts it to work. Users are
// not in it: no endpoint lists them.
func (e *Env) AuthOf(branchID string) string {
	e.t.Helper()
	ctx, c := context.Background(), e.Client()
	s := apiclient.Scope{ProjectID: e.ProjectID, BranchID: branchID, Family: apiclient.FamilyBranch}
	its, err := c.ListIntegrations(ctx, s)
	if errors.Is(err, apiclient.ErrNotFound) {
		return "none"
	}
	e.Must(err)
	whole := map[string]any{"integrations": its}
	if api := e.DataAPIOf(branchID, "neondb"); api != nil {
		whole["data_api"] = api.Settings
	}
	domains, err := c.ListDomains(ctx, s)
	e.Must(err)
	whole["domains"] = domains
	if string(its[0].AuthProvider) == apiclient.AuthProviderBetterAuth {
		bundle, err := c.GetPlugins(ctx, s)
		e.Must(err)
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
		e.Must(err)
		whole["webhooks"] = webhooks
	}
	b, err := json.Marshal(whole)
	e.Must(err)
	return string(b)
}

// DataAPIOf is the Data API of a database of a branch as the API shows it;
// nil when GET answers 404.
func (e *Env) DataAPIOf(branchID, database string) *apiclient.DataAPI {
	e.t.Helper()
	got, err := e.Client().GetDataAPI(context.Background(), apiclient.DataAPIRef{ProjectID: e.ProjectID, BranchID: branchID, DatabaseName: database})
	if errors.Is(err, apiclient.ErrNotFound) {
		return nil
	}
	e.Must(err)
	return got
}

// SameAuth checks that a branch's Neon Auth is still byte for byte what
// AuthOf gave earlier (want); when names the moment, for the error.
func (e *Env) SameAuth(branchID, want, when string) error {
	if got := e.AuthOf(branchID); got != want {
		return fmt.Errorf("%s, the Neon Auth of branch %s changed:\nwas %s\nnow %s", when, branchID, want, got)
	}
	return nil
}

// MatchInOrder matches the parts in order anywhere in the output; spaces
// match any whitespace, since Terraform wraps long diagnostics.
func MatchInOrder(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, `.*`))
}

// EnableAuthWithSecrets enables Neon Auth on the test's branch behind
// Terraform's back with a trusted domain (https://app.example.com) and a
// secret of each kind, for the data sources to read without exposing them
// (noAuditSecret): the google OAuth provider with its client secret, and a
// standard email server with its password.
func (e *Env) EnableAuthWithSecrets() {
	e.t.Helper()
	ctx, c, s := context.Background(), e.Client(), e.Scope()
	e.EnableAuth()
	_, err := c.AddDomain(ctx, s, apiclient.AddDomainRequest{Domain: "https://app.example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider(e.AuthProvider())})
	e.Must(err)
	_, err = c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "google", ClientID: apiclient.Ptr("audit-client"),
		ClientSecret: apiclient.Ptr("audit-oauth-secret")})
	e.Must(err)
	_, err = c.UpdateEmailServer(ctx, s, apiclient.StandardEmailServer(apiclient.SMTP{Host: "smtp.example.com", Port: 587, Username: "mailer",
		Password: "audit-smtp-secret", SenderEmail: "noreply@example.com", SenderName: "Example"}))
	e.Must(err)
}

// Sent counts the requests a provider sends, on the client's side of the
// wire: "nothing was sent" and "nothing was written" then hold or fail on
// any target, whoever else uses the account.
type Sent struct {
	next http.RoundTripper
	// All are the requests sent; Writes those with another method than GET.
	All, Writes atomic.Int64
}

func (s *Sent) RoundTrip(r *http.Request) (*http.Response, error) {
	s.All.Add(1)
	if r.Method != http.MethodGet {
		s.Writes.Add(1)
	}
	return s.next.RoundTrip(r)
}

// Counted is the test's provider (see Provider), remotely still validated,
// with what it sends counted.
func (e *Env) Counted() (provider.Provider, *Sent) {
	s := &Sent{next: http.DefaultTransport}
	if e.validator != nil {
		s.next = e.validator.Transport(nil)
	}
	return newProvider(&http.Client{Transport: s}), s
}
