package emulator

import (
	"slices"
	"strings"
	"time"
)

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
}

// authProviders are the values of NeonAuthSupportedAuthProvider in
// internal/apispec/neon-api-v2-2026-04-25.openapi.json.
var authProviders = []string{authProviderMock, authProviderStack, authProviderStackV2, authProviderBetterAuth}

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
		EmailProvider:  &EmailServer{Type: emailShared},
		Users:          []UserRow{},
		AllowLocalhost: defaultAllowLocalhost,
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
	return c
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
