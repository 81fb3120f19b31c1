package emulator

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The Neon Auth of a branch in the emulator's state: the integration and
// everything configured on it, how a branch gets one and how a new branch
// inherits its parent's.

// Fixed values of Neon Auth; the values of the API's enums are the
// reference's.
const (
	authProviderMock       = string(neonapi.NeonAuthSupportedAuthProviderMock)
	authProviderStack      = string(neonapi.NeonAuthSupportedAuthProviderStack)
	authProviderBetterAuth = string(neonapi.NeonAuthSupportedAuthProviderBetterAuth)

	ownedByNeon = string(neonapi.NeonAuthProviderProjectOwnedByNeon)
	ownedByUser = string(neonapi.NeonAuthProviderProjectOwnedByUser)

	transferInitiated = string(neonapi.NeonAuthProviderProjectTransferStatusInitiated)
	transferFinished  = string(neonapi.NeonAuthProviderProjectTransferStatusFinished)

	emailShared   = string(neonapi.SharedEmailServerTypeShared)
	emailStandard = string(neonapi.StandardEmailServerTypeStandard)

	oauthShared    = string(neonapi.NeonAuthOauthProviderTypeShared)
	oauthStandard  = string(neonapi.NeonAuthOauthProviderTypeStandard)
	oauthMicrosoft = string(neonapi.NeonAuthOauthProviderIDMicrosoft)

	usersSchema = "neon_auth"
	usersTable  = "users_sync"

	// defaultAllowLocalhost: a new integration accepts redirects to
	// localhost, so that local development works before any domain is
	// whitelisted.
	defaultAllowLocalhost = true
)

// BranchAuth is the whole Neon Auth state of one branch: the integration and
// everything configured on it. A branch has at most one. The Go API hands out
// deep copies (see BranchAuth in inspect.go).
type BranchAuth struct {
	Integration
	OAuthProviders []OAuthProvider `json:"oauth_providers"`
	Domains        []Domain        `json:"domains"`
	// Listed holds the items of a list-backed kind without a field of its
	// own (see listedKind.field), as JSON under the kind's path.
	Listed map[string]json.RawMessage `json:"listed,omitempty"`
	// EmailProvider is nil when none is configured (GET .../email_provider
	// answers 404); a new integration starts with the shared one.
	EmailProvider  *EmailServer `json:"email_provider"`
	Users          []UserRow    `json:"users"`
	AllowLocalhost bool         `json:"allow_localhost"`
	Settings
	// TestEmails are the test emails "sent" (none really is), oldest first.
	TestEmails []TestEmail `json:"test_emails,omitempty"`
}

// Integration is the Neon Auth integration of a branch, with the
// credentials minted last.
type Integration struct {
	ProjectID             string    `json:"project_id"`
	AuthProvider          string    `json:"auth_provider"` // mock, stack or better_auth
	AuthProviderProjectID string    `json:"auth_provider_project_id"`
	BranchID              string    `json:"branch_id"`
	DBName                string    `json:"db_name"`
	RoleName              string    `json:"role_name"`
	Name                  string    `json:"name"` // PATCH .../auth/config; the Neon project name at first
	CreatedAt             time.Time `json:"created_at"`
	OwnedBy               string    `json:"owned_by"`        // "neon" while managed, "user" after a confirmed transfer
	TransferStatus        string    `json:"transfer_status"` // "", "initiated" or "finished"
	BaseURL               string    `json:"base_url"`
	JWKSURL               string    `json:"jwks_url"`
	PubClientKey          string    `json:"pub_client_key"`    // latest minted; "" for better_auth
	SecretServerKey       string    `json:"secret_server_key"` // latest minted; "" for better_auth
	SchemaName            string    `json:"schema_name"`       // "neon_auth"
	TableName             string    `json:"table_name"`        // "users_sync"
}

// OAuthProvider is an OAuth provider of a Neon Auth integration.
// MicrosoftTenantID is stored but never returned by the API.
type OAuthProvider struct {
	ID                string `json:"id"`
	Type              string `json:"type"` // "shared" or "standard"
	ClientID          string `json:"client_id,omitempty"`
	ClientSecret      string `json:"client_secret,omitempty"`
	MicrosoftTenantID string `json:"microsoft_tenant_id,omitempty"`
}

// Domain is a whitelisted redirect origin (stored canonicalised), held as
// the API lists it.
type Domain = neonapi.NeonAuthRedirectURIWhitelistDomain

// EmailServer is an email provider configuration. Type "shared" may carry
// only the sender fields; "standard" has all six.
type EmailServer struct {
	Type        string `json:"type"`
	Host        string `json:"host,omitempty"`
	Port        int    `json:"port,omitempty"`
	Username    string `json:"username,omitempty"`
	Password    string `json:"password,omitempty"`
	SenderEmail string `json:"sender_email,omitempty"`
	SenderName  string `json:"sender_name,omitempty"`
}

// UserRow is a row of the users_sync table, with the user's roles (set
// with PUT .../auth/users/{auth_user_id}/role; none at creation).
type UserRow struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name,omitempty"`
	Roles     []string  `json:"roles,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// TestEmail is a test email the emulator "sent" (it sends nothing): through
// the saved configuration (POST .../auth/email_provider/test) or through the
// configuration in the request (the deprecated POST .../auth/send_test_email).
type TestEmail struct {
	Recipient   string    `json:"recipient"`
	Host        string    `json:"host"`
	Port        int       `json:"port"`
	Username    string    `json:"username"`
	SenderEmail string    `json:"sender_email"`
	SenderName  string    `json:"sender_name"`
	Saved       bool      `json:"saved"` // sent with the saved configuration
	SentAt      time.Time `json:"sent_at"`
}

// hostedByNeon reports whether the provider runs inside Neon (Better Auth):
// no SDK keys, no provider project to transfer.
func hostedByNeon(provider string) bool { return provider == authProviderBetterAuth }

// checkAuthProvider refuses an auth provider the API does not know (one
// named in a path or a seed, which the reference's schemas do not check).
func checkAuthProvider(v string) error {
	if !slices.Contains(neonapi.NeonAuthSupportedAuthProviderValues, neonapi.NeonAuthSupportedAuthProvider(v)) {
		return invalid("auth_provider", "unsupported auth provider %q; supported: %s", v, authProviderList())
	}
	return nil
}

// authProviderList is the values of NeonAuthSupportedAuthProvider, in the
// reference's order, for messages.
func authProviderList() string {
	names := make([]string, 0, len(neonapi.NeonAuthSupportedAuthProviderValues))
	for _, p := range neonapi.NeonAuthSupportedAuthProviderValues {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// newBranchAuth enables Neon Auth on branch branchID of project p with
// fresh credentials and the defaults of every setting.
func newBranchAuth(p Project, branchID, provider, db, role string, at time.Time) *BranchAuth {
	a := &BranchAuth{
		Integration: Integration{
			ProjectID:             p.ID,
			AuthProvider:          provider,
			AuthProviderProjectID: uuid.NewString(),
			DBName:                db,
			RoleName:              role,
			Name:                  p.Name,
			CreatedAt:             at,
			OwnedBy:               ownedByNeon,
			SchemaName:            usersSchema,
			TableName:             usersTable,
		},
		AllowLocalhost: defaultAllowLocalhost,
		Settings:       defaultSettings(),
	}
	// A Better Auth integration starts with no email provider configured:
	// GET …/auth/email_provider answers 404 on a fresh branch (the MCP
	// server's neon-auth-settings-snapshot.ts). The others start shared.
	if provider != authProviderBetterAuth {
		a.EmailProvider = &EmailServer{Type: emailShared}
	}
	a.moveTo(p, branchID)
	a.mintKeys()
	a.normalize()
	return a
}

// moveTo gives the integration to branch branchID of p: its branch id, and
// the auth endpoint named after it. Better Auth runs per branch and
// database inside Neon; Stack Auth projects live at Stack Auth (their JWKS
// is <base_url>/.well-known/jwks.json there too).
func (a *BranchAuth) moveTo(p Project, branchID string) {
	a.BranchID = branchID
	switch a.AuthProvider {
	case authProviderBetterAuth:
		region := strings.TrimPrefix(p.RegionID, p.PlatformID+"-")
		a.BaseURL = "https://" + branchID + ".neonauth." + region + "." + p.PlatformID + ".neon.tech/" + a.DBName + "/auth"
	case authProviderMock:
		a.BaseURL = "https://mock-auth.neon.invalid/api/v1/projects/" + a.AuthProviderProjectID
	default:
		a.BaseURL = "https://api.stack-auth.com/api/v1/projects/" + a.AuthProviderProjectID
	}
	a.JWKSURL = a.BaseURL + "/.well-known/jwks.json"
}

// mintKeys replaces the SDK keys with a new distinct pair; Better Auth has none.
func (a *BranchAuth) mintKeys() {
	if hostedByNeon(a.AuthProvider) {
		a.PubClientKey, a.SecretServerKey = "", ""
		return
	}
	a.PubClientKey = "pck_" + randomHex(24)
	a.SecretServerKey = "ssk_" + randomHex(32)
}

// clone is a deep copy.
func (a *BranchAuth) clone() BranchAuth { return *clonePtr(a) }

// inheritedBy is the Neon Auth that branch childID of p, just created from
// a's branch, starts with; nil when it starts without one.
//
// Neon Auth's data lives in the branch's database (the neon_auth schema), so
// branching copies it as it is at that moment (Neon's docs,
// auth/branching-authentication): users with their ids and roles, the
// configuration (name, allow_localhost, sign-in methods, plugins, webhooks),
// the OAuth providers with their credentials, the trusted domains and the
// email provider. The copy is independent from then on, and the child has
// its own auth endpoint: its own base_url and jwks_url, and its own
// auth_provider_project_id. Test emails sent on the parent are not part of
// that data and are not copied.
//
// Only a Better Auth parent is copied (inheritsAuth).
func (a *BranchAuth) inheritedBy(p Project, childID string, at time.Time) *BranchAuth {
	c := a.clone()
	c.AuthProviderProjectID = uuid.NewString()
	c.CreatedAt = at
	c.moveTo(p, childID)
	c.TransferStatus = ""
	c.TestEmails = nil
	c.mintKeys()
	c.normalize()
	return &c
}

// UnmarshalJSON reads a branch's Neon Auth over the default settings, so
// that a setting (or a field of one) a state file written before it existed
// lacks takes the API's default rather than Go's zero value.
func (a *BranchAuth) UnmarshalJSON(data []byte) error {
	type fields BranchAuth // the same fields, without this method
	f := fields{Settings: defaultSettings()}
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*a = BranchAuth(f)
	return nil
}

// normalize gives nil lists their empty value, so that lists answer [], and
// a setting's unset fields their defaults.
func (a *BranchAuth) normalize() {
	a.OAuthProviders = orEmpty(a.OAuthProviders)
	a.Domains = orEmpty(a.Domains)
	a.Users = orEmpty(a.Users)
	a.Settings = a.normalized()
}

func (a *BranchAuth) oauthProvider(id string) int {
	return slices.IndexFunc(a.OAuthProviders, func(p OAuthProvider) bool { return p.ID == id })
}

// addDomain trusts a domain, in canonical form, for the integration's
// auth provider, unless it is trusted already.
func (a *BranchAuth) addDomain(canonical string) {
	if a.domainIndex(canonical) < 0 {
		a.Domains = append(a.Domains, Domain{Domain: canonical, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(a.AuthProvider)})
	}
}

func (a *BranchAuth) domainIndex(canonical string) int {
	return slices.IndexFunc(a.Domains, func(d Domain) bool { return d.Domain == canonical })
}

func (a *BranchAuth) userIndex(id string) int {
	return slices.IndexFunc(a.Users, func(u UserRow) bool { return u.ID == id })
}

func (a *BranchAuth) userByEmail(email string) int {
	return slices.IndexFunc(a.Users, func(u UserRow) bool { return strings.EqualFold(u.Email, email) })
}
