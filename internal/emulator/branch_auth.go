package emulator

import (
	"slices"
	"strings"
	"time"
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
// (every integration has it, whatever its provider). The JSON form of each
// part is its API body.
type Settings struct {
	EmailAndPassword EmailAndPassword   `json:"email_and_password"`
	Organization     OrganizationPlugin `json:"organization"`
	MagicLink        MagicLinkPlugin    `json:"magic_link"`
	PhoneNumber      PhoneNumberPlugin  `json:"phone_number"`
	Webhooks         Webhooks           `json:"webhooks"`
}

// EmailAndPassword is NeonAuthEmailAndPasswordConfig.
type EmailAndPassword struct {
	Enabled                       bool   `json:"enabled"`
	EmailVerificationMethod       string `json:"email_verification_method"` // "link" or "otp"
	RequireEmailVerification      bool   `json:"require_email_verification"`
	AutoSignInAfterVerification   bool   `json:"auto_sign_in_after_verification"`
	SendVerificationEmailOnSignUp bool   `json:"send_verification_email_on_sign_up"`
	SendVerificationEmailOnSignIn bool   `json:"send_verification_email_on_sign_in"`
	DisableSignUp                 bool   `json:"disable_sign_up"`
}

// OrganizationPlugin is NeonAuthOrganizationConfig.
type OrganizationPlugin struct {
	Enabled             bool   `json:"enabled"`
	OrganizationLimit   int    `json:"organization_limit"`
	MembershipLimit     int    `json:"membership_limit"`
	CreatorRole         string `json:"creator_role"` // "admin" or "owner"
	SendInvitationEmail bool   `json:"send_invitation_email"`
}

// MagicLinkPlugin is NeonAuthMagicLinkConfig.
type MagicLinkPlugin struct {
	Enabled       bool `json:"enabled"`
	ExpiresIn     int  `json:"expires_in"` // minutes, 5 to 1440
	DisableSignUp bool `json:"disable_sign_up"`
}

// PhoneNumberPlugin is NeonAuthPhoneNumberConfig (allowed_attempts was
// dropped in June 2026; a state file that still has it loads without it).
type PhoneNumberPlugin struct {
	Enabled      bool `json:"enabled"`
	OTPExpiresIn int  `json:"otp_expires_in"` // seconds, 60 to 600
}

// Webhooks is NeonAuthWebhookConfig.
type Webhooks struct {
	Enabled        bool     `json:"enabled"`
	WebhookURL     string   `json:"webhook_url,omitempty"`
	EnabledEvents  []string `json:"enabled_events"`
	TimeoutSeconds int      `json:"timeout_seconds"` // 1 to 10
}

// defaultSettings are the settings of a new integration. The plugins take
// the defaults of internal/apispec/neon-api-v2-2026-07-13.openapi.json.
// The spec gives none for email and password, nor for webhooks never
// configured; the emulator's: sign-up and sign-in with email and password
// work at once, without verification (no mail needs to be delivered for a
// first user), verification by one-time code once required; no webhooks.
func defaultSettings() Settings {
	return Settings{
		EmailAndPassword: EmailAndPassword{
			Enabled:                     true,
			EmailVerificationMethod:     "otp",
			AutoSignInAfterVerification: true,
		},
		Organization: OrganizationPlugin{Enabled: true, OrganizationLimit: 10, MembershipLimit: 100, CreatorRole: "owner"},
		MagicLink:    MagicLinkPlugin{ExpiresIn: 5},
		PhoneNumber:  defaultPhoneNumber(),
		Webhooks:     defaultWebhooks(),
	}
}

func defaultPhoneNumber() PhoneNumberPlugin {
	return PhoneNumberPlugin{OTPExpiresIn: 300}
}

func defaultWebhooks() Webhooks {
	return Webhooks{EnabledEvents: []string{}, TimeoutSeconds: 5}
}

// authProviders are the values of NeonAuthSupportedAuthProvider in
// internal/apispec/neon-api-v2-2026-07-13.openapi.json (stack_v2 was removed
// in June 2026). stack is deprecated; mock is for testing only.
var authProviders = []string{authProviderMock, authProviderStack, authProviderBetterAuth}

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
	c.Webhooks.EnabledEvents = slices.Clone(a.Webhooks.EnabledEvents)
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

// normalize gives nil lists their empty value, so that lists answer [].
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
	if a.Webhooks.EnabledEvents == nil {
		a.Webhooks.EnabledEvents = []string{}
	}
}

func (a *BranchAuth) oauthProvider(id string) int {
	return slices.IndexFunc(a.OAuthProviders, func(p OAuthProvider) bool { return p.ID == id })
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
