package emulator

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The Neon Auth of a branch in the emulator's state: its integration, Better
// Auth settings and their defaults.

// BranchAuth is the whole Neon Auth state of one branch: the integration and
// everything configured on it. A branch has at most one. The Go API hands out
// deep copies (see BranchAuth and MutateBranchAuth in inspect.go).
type BranchAuth struct {
	Integration
	TransferCode   string          `json:"transfer_code,omitempty"` // of a requested, unconfirmed transfer
	OAuthProviders []OAuthProvider `json:"oauth_providers"`
	Domains        []Domain        `json:"domains"`
	// EmailProvider is nil when none is configured (GET .../email_provider
	// answers 404); a new integration starts with the shared one.
	EmailProvider  *EmailServer `json:"email_provider"`
	Users          []UserRow    `json:"users"`
	AllowLocalhost bool         `json:"allow_localhost"`
	Settings
	// TestEmails are the test emails "sent" (none really is), oldest first.
	TestEmails []TestEmail `json:"test_emails,omitempty"`
}

// Settings is the Better Auth configuration surface of a branch's Neon Auth
// (every integration has it, whatever its provider): one field per setting
// of internal/apispec/betterauth, of the type the API reference gives it,
// under the setting's name. It is the one place the emulator names a
// setting; everything else works from betterauth.Settings (settings.go).
type Settings struct {
	EmailAndPassword neonapi.NeonAuthEmailAndPasswordConfig `json:"email_and_password"`
	Organization     neonapi.NeonAuthOrganizationConfig     `json:"organization"`
	MagicLink        neonapi.NeonAuthMagicLinkConfig        `json:"magic_link"`
	PhoneNumber      neonapi.NeonAuthPhoneNumberConfig      `json:"phone_number"`
	Webhooks         neonapi.NeonAuthWebhookConfig          `json:"webhooks"`
}

// emulatorSettingChoices are the emulator's defaults where the API
// reference gives none (defaultSettings puts the reference's over them).
// The reference gives none for email and password, nor for webhooks never
// configured; the emulator's: sign-up and sign-in with email and password
// work at once, without verification (no mail needs to be delivered for a
// first user), verification by one-time code once required; no webhooks
// (disabled, no URL, no events).
func emulatorSettingChoices() Settings {
	return Settings{
		EmailAndPassword: neonapi.NeonAuthEmailAndPasswordConfig{
			Enabled:                     true,
			EmailVerificationMethod:     neonapi.NeonAuthEmailVerificationMethodOTP,
			AutoSignInAfterVerification: true,
		},
		Webhooks: neonapi.NeonAuthWebhookConfig{EnabledEvents: &[]neonapi.NeonAuthWebhookConfigEnabledEvents{}},
	}
}

// hostedByNeon reports whether the provider runs inside Neon (Better Auth):
// no SDK keys, no provider project to transfer.
func hostedByNeon(provider string) bool { return provider == authProviderBetterAuth }

// defaultAllowLocalhost: a new integration accepts redirects to localhost,
// so that local development works before any domain is whitelisted.
const defaultAllowLocalhost = true

// newBranchAuth enables Neon Auth on branch b of project p with fresh
// credentials and the defaults of every setting.
func newBranchAuth(p *projectState, b *branchState, provider, db, role string, at time.Time) *BranchAuth {
	apid := newUUID()
	a := &BranchAuth{
		Integration: Integration{
			ProjectID:             p.Project.ID,
			AuthProvider:          provider,
			AuthProviderProjectID: apid,
			BranchID:              b.ID,
			DBName:                db,
			RoleName:              role,
			Name:                  p.Project.Name,
			CreatedAt:             at,
			OwnedBy:               ownedByNeon,
			SchemaName:            usersSchema,
			TableName:             usersTable,
		},
		OAuthProviders: []OAuthProvider{},
		Domains:        []Domain{},
		Users:          []UserRow{},
		AllowLocalhost: defaultAllowLocalhost,
		Settings:       defaultSettings(),
	}
	// A Better Auth integration starts with no email provider configured:
	// GET …/auth/email_provider answers 404 on a fresh branch (the MCP
	// server's neon-auth-settings-snapshot.ts). The others start shared.
	if provider != authProviderBetterAuth {
		a.EmailProvider = &EmailServer{Type: emailShared}
	}
	a.BaseURL = authBaseURL(p, b, provider, apid, db)
	a.JWKSURL = a.BaseURL + "/.well-known/jwks.json"
	a.mintKeys()
	return a
}

// authBaseURL is where an integration's auth server answers. Better Auth runs
// per branch and database inside Neon; Stack Auth projects live at Stack
// Auth (their JWKS is <base_url>/.well-known/jwks.json there too).
func authBaseURL(p *projectState, b *branchState, provider, apid, db string) string {
	switch provider {
	case authProviderBetterAuth:
		region := strings.TrimPrefix(p.Project.RegionID, p.Project.PlatformID+"-")
		return "https://" + b.ID + ".neonauth." + region + "." + p.Project.PlatformID + ".neon.tech/" + db + "/auth"
	case authProviderMock:
		return "https://mock-auth.neon.invalid/api/v1/projects/" + apid
	default:
		return "https://api.stack-auth.com/api/v1/projects/" + apid
	}
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
func (a *BranchAuth) clone() BranchAuth {
	c := *a
	c.OAuthProviders = slices.Clone(a.OAuthProviders)
	c.Domains = slices.Clone(a.Domains)
	if a.EmailProvider != nil {
		ep := *a.EmailProvider
		c.EmailProvider = &ep
	}
	c.Users = make([]UserRow, len(a.Users))
	for i, u := range a.Users {
		u.Roles = slices.Clone(u.Roles)
		c.Users[i] = u
	}
	c.Settings = *clonePtr(&a.Settings)
	c.TestEmails = slices.Clone(a.TestEmails)
	return c
}

// inheritedBy is the Neon Auth that child, a branch just created from a's
// branch, starts with; nil when it starts without one.
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
// Only Better Auth branches with the database. A Stack Auth (or mock)
// integration is a project at the auth provider, outside the database: one
// per Neon project, bound to the production branch, whose SDK keys and
// ownership transfer only the production branch reaches. Neon documents no
// copy of it, and the emulator makes none: the child starts without Neon
// Auth, as before branching existed for auth.
func (a *BranchAuth) inheritedBy(p *projectState, child *branchState, at time.Time) *BranchAuth {
	if a.AuthProvider != authProviderBetterAuth {
		return nil
	}
	c := a.clone()
	c.BranchID = child.ID
	c.AuthProviderProjectID = newUUID()
	c.CreatedAt = at
	c.BaseURL = authBaseURL(p, child, c.AuthProvider, c.AuthProviderProjectID, c.DBName)
	c.JWKSURL = c.BaseURL + "/.well-known/jwks.json"
	c.TransferCode, c.TransferStatus = "", ""
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
	if a.OAuthProviders == nil {
		a.OAuthProviders = []OAuthProvider{}
	}
	if a.Domains == nil {
		a.Domains = []Domain{}
	}
	if a.Users == nil {
		a.Users = []UserRow{}
	}
	a.Settings = a.normalized()
}

func (a *BranchAuth) oauthProvider(id string) int {
	return slices.IndexFunc(a.OAuthProviders, func(p OAuthProvider) bool { return p.ID == id })
}

// addDomain trusts a domain, in canonical form, for the integration's
// auth provider.
func (a *BranchAuth) addDomain(canonical string) {
	a.Domains = append(a.Domains, Domain{Domain: canonical, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(a.AuthProvider)})
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
