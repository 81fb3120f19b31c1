package apiclient

import (
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The shapes of the platform API v2 are generated from the reference
// (package neonapi). Here are the names the client gives them, the wrappers
// that carry what a caller needs beside an answer (a lost answer recovered,
// secrets kept out of printing), the options of the calls that serve both
// endpoint families, and the enum values callers check against.

// Auth providers of a Neon Auth integration: better_auth, recommended by
// Neon; stack (Stack Auth), deprecated; mock, for testing only.
const (
	AuthProviderStack      = string(neonapi.NeonAuthSupportedAuthProviderStack)
	AuthProviderBetterAuth = string(neonapi.NeonAuthSupportedAuthProviderBetterAuth)
	AuthProviderMock       = string(neonapi.NeonAuthSupportedAuthProviderMock)
)

// The documented values of the API's enums, in the reference's order.
var (
	AuthProviders            = values(neonapi.NeonAuthSupportedAuthProviderValues)
	OAuthProviderIDs         = values(neonapi.NeonAuthOauthProviderIDValues)
	EmailVerificationMethods = values(neonapi.NeonAuthEmailVerificationMethodValues)
	CreatorRoles             = values(neonapi.NeonAuthOrganizationConfigCreatorRoleValues)
	WebhookEvents            = values(neonapi.NeonAuthWebhookConfigEnabledEventsValues)
)

// values are an enum's values as strings.
func values[E ~string](in []E) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return out
}

// Email server and OAuth provider types.
const (
	TypeShared   = string(neonapi.NeonAuthOauthProviderTypeShared)
	TypeStandard = string(neonapi.NeonAuthOauthProviderTypeStandard)
)

// Owners and transfer states of a managed auth project.
const (
	OwnedByNeon       = string(neonapi.NeonAuthProviderProjectOwnedByNeon)
	OwnedByUser       = string(neonapi.NeonAuthProviderProjectOwnedByUser)
	TransferInitiated = string(neonapi.NeonAuthProviderProjectTransferStatusInitiated)
	TransferFinished  = string(neonapi.NeonAuthProviderProjectTransferStatusFinished)
)

// Email verification methods of email-and-password sign-in.
const (
	EmailVerificationLink = string(neonapi.NeonAuthEmailVerificationMethodLink)
	EmailVerificationOTP  = string(neonapi.NeonAuthEmailVerificationMethodOTP)
)

// Integration is a Neon Auth integration as the API shows it: an element of
// `data` of GET /projects/{project_id}/auth/integrations, or the body of
// GET /projects/{project_id}/branches/{branch_id}/auth.
type Integration = neonapi.NeonAuthIntegration

// CreateIntegrationRequest is what enabling Neon Auth on a scope takes, in
// either family. Empty fields are not sent: the API then uses the branch's
// default database.
type CreateIntegrationRequest struct {
	AuthProvider string
	DatabaseName string
	// RoleName is sent only by the project-level family (the branch-scoped
	// endpoint has no such field).
	RoleName string
}

// IntegrationCredentials is the answer of enabling Neon Auth and of minting
// SDK keys. It holds secrets: its String method never prints them.
type IntegrationCredentials struct {
	neonapi.NeonAuthCreateIntegrationResponse
	// Recovered: the create's response was lost but a read-back found the
	// integration; only the fields an integration lists are set (no keys).
	Recovered bool `json:"-"`
}

// String describes the credentials without their keys.
func (c IntegrationCredentials) String() string {
	return "IntegrationCredentials{auth_provider=" + string(c.AuthProvider) +
		", auth_provider_project_id=" + c.AuthProviderProjectID + ", keys=<redacted>}"
}

// GoString keeps %#v from printing the keys.
func (c IntegrationCredentials) GoString() string { return c.String() }

// CreateUserRequest is what creating a user takes, in either family.
type CreateUserRequest struct {
	AuthProvider string
	Email        string
	Name         string
}

// User is the answer of creating a user.
type User = neonapi.NeonAuthCreateNewUserResponse

// TransferOwnership is the answer of requesting a transfer: a confirmation URL.
type TransferOwnership struct {
	neonapi.NeonAuthTransferAuthProviderProjectResponse
}

// String keeps the confirmation link out of logs.
func (t TransferOwnership) String() string { return "TransferOwnership{url=<redacted>}" }

// OAuthProvider is an element of a list of OAuth providers and the answer of
// adding or updating one. Its String method never prints the secret.
type OAuthProvider struct {
	neonapi.NeonAuthOauthProvider
	// Recovered: the add's response was lost but a read-back listed the
	// provider; only ID and Type are set.
	Recovered bool `json:"-"`
}

// String describes the provider without its client secret.
func (p OAuthProvider) String() string {
	return "OAuthProvider{id=" + string(p.ID) + ", type=" + string(p.Type) + ", client_id=" + Deref(p.ClientID) + ", client_secret=<redacted>}"
}

// GoString keeps %#v from printing the client secret.
func (p OAuthProvider) GoString() string { return p.String() }

// AddOAuthProviderRequest is the body of adding an OAuth provider.
type AddOAuthProviderRequest = neonapi.NeonAuthAddOAuthProviderRequest

// UpdateOAuthProviderRequest is the body of updating an OAuth provider.
type UpdateOAuthProviderRequest = neonapi.NeonAuthUpdateOAuthProviderRequest

// Domain is an entry of the redirect URI whitelist.
type Domain = neonapi.NeonAuthRedirectURIWhitelistDomain

// AddDomainRequest is the body of adding a domain to the whitelist.
type AddDomainRequest = neonapi.NeonAuthAddDomainToRedirectURIWhitelistRequest

// EmailServer is an email server (provider) configuration as written
// (StandardEmailServer; type shared with the sender fields at most) and as
// read: the members of the answer's standard | shared union have the same
// fields, so one shape holds either. Its String method never prints the
// password.
type EmailServer struct {
	neonapi.StandardEmailServer
}

// SharedEmailServer is the configuration of the platform's shared mail
// server.
func SharedEmailServer() EmailServer {
	var e EmailServer
	e.Type = neonapi.StandardEmailServerType(TypeShared)
	return e
}

// SMTP is the settings of a standard email server.
type SMTP struct {
	Host                                        string
	Port                                        int
	Username, Password, SenderEmail, SenderName string
}

// StandardEmailServer is the configuration of one's own SMTP server; an
// empty setting is left out of it.
func StandardEmailServer(smtp SMTP) EmailServer {
	var e EmailServer
	e.Type = neonapi.StandardEmailServerTypeStandard
	e.Host, e.Port, e.Username = Optional(smtp.Host), Optional(smtp.Port), Optional(smtp.Username)
	e.Password, e.SenderEmail, e.SenderName = Optional(smtp.Password), Optional(smtp.SenderEmail), Optional(smtp.SenderName)
	return e
}

// String describes the configuration without its password.
func (e EmailServer) String() string {
	return "EmailServer{type=" + string(e.Type) + ", host=" + Deref(e.Host) + ", username=" + Deref(e.Username) + ", password=<redacted>}"
}

// GoString keeps %#v from printing the password.
func (e EmailServer) GoString() string { return e.String() }

// Project is an element of GET /projects.
type Project = neonapi.ProjectListItem

// CreatedProject is the answer of POST /projects: the project and its
// production branch.
type CreatedProject = neonapi.CreatedProject

// ProjectDetail is a project as GET /projects/{project_id} answers it.
type ProjectDetail = neonapi.Project

// ListProjectsOptions narrows GET /projects.
type ListProjectsOptions struct {
	// Search filters by partial project name or id.
	Search string
	// PageSize is the `limit` of each page (1–400); 0 means 400.
	PageSize int
	// OrgID limits the list to one organization (the API's `org_id`; some
	// keys need it).
	OrgID string
	// Recoverable lists only deleted projects that can still be recovered
	// (the API's `recoverable`: for 7 days after their deletion).
	Recoverable bool
}

// Branch is an element of GET /projects/{project_id}/branches. ParentID is
// nil for a root branch (the first branch of a project, or one created
// schema-only).
type Branch = neonapi.Branch

// TestEmailResult is the answer of sending a test email: whether the mail
// server took it, and its complaint when it did not.
type TestEmailResult = neonapi.SendNeonAuthTestEmailResponse

// alloc is a new value of the type p points to, for inline objects of the
// reference, whose generated types have no name.
func alloc[T any](_ *T) *T { return new(T) }

// Ptr is a pointer to v, for the optional fields of request bodies.
func Ptr[T any](v T) *T { return &v }

// Deref is the value an optional field points to, or its zero value.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// Optional is a pointer to v, or nil for the zero value: an optional field
// that is sent only when set.
func Optional[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// Timestamp is how the client reports a time of the API: RFC 3339 with the
// fractions of a second it had, as the API writes it.
func Timestamp(t time.Time) string { return t.Format(time.RFC3339Nano) }
