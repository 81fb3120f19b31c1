package apiclient

// Request and response shapes of the platform API v2. Field names mirror
// internal/apispec/auth-api.md for the project-level endpoints; where that
// document says "not shown", and for the branch-scoped endpoints, the OpenAPI
// document in internal/apispec decides.

// Auth providers of a Neon Auth integration.
const (
	AuthProviderStack      = "stack"       // Stack Auth (deprecated by Neon; the only one of the project-level API at first)
	AuthProviderBetterAuth = "better_auth" // Better Auth, recommended by Neon
	AuthProviderMock       = "mock"        // for testing only
)

// AuthProviders are the auth providers the API documents
// (NeonAuthSupportedAuthProvider; Neon removed stack_v2 in June 2026), in the
// order the provider's validators and descriptions name them.
var AuthProviders = []string{AuthProviderStack, AuthProviderBetterAuth, AuthProviderMock}

// Email server and OAuth provider types.
const (
	TypeShared   = "shared"
	TypeStandard = "standard"
)

// CreateIntegrationRequest is what enabling Neon Auth on a scope takes.
// Empty fields are not sent: the API then uses the branch's default database.
type CreateIntegrationRequest struct {
	AuthProvider string
	DatabaseName string
	// RoleName is sent only by the project-level family (the branch-scoped
	// endpoint has no such field).
	RoleName string
}

// createIntegrationBody is the body of POST /projects/auth/create (every
// field) and of POST /projects/{project_id}/branches/{branch_id}/auth
// (auth_provider and database_name).
type createIntegrationBody struct {
	AuthProvider string `json:"auth_provider"`
	ProjectID    string `json:"project_id,omitempty"`
	BranchID     string `json:"branch_id,omitempty"`
	DatabaseName string `json:"database_name,omitempty"`
	RoleName     string `json:"role_name,omitempty"`
}

// IntegrationCredentials is returned by enabling Neon Auth and by minting SDK
// keys. It holds secrets: its String method never prints them.
type IntegrationCredentials struct {
	AuthProvider          string `json:"auth_provider"`
	AuthProviderProjectID string `json:"auth_provider_project_id"`
	PubClientKey          string `json:"pub_client_key"`
	SecretServerKey       string `json:"secret_server_key"`
	JWKSURL               string `json:"jwks_url"`
	SchemaName            string `json:"schema_name"`
	TableName             string `json:"table_name"`
	BaseURL               string `json:"base_url,omitempty"`
	// Recovered: the create's response was lost but a read-back found the
	// integration; only the fields an integration lists are set (no keys).
	Recovered bool `json:"-"`
}

// String describes the credentials without their keys.
func (c IntegrationCredentials) String() string {
	return "IntegrationCredentials{auth_provider=" + c.AuthProvider +
		", auth_provider_project_id=" + c.AuthProviderProjectID + ", keys=<redacted>}"
}

// GoString keeps %#v from printing the keys.
func (c IntegrationCredentials) GoString() string { return c.String() }

// Integration is a Neon Auth integration as the API shows it: an element of
// `data` of GET /projects/{project_id}/auth/integrations, or the body of
// GET /projects/{project_id}/branches/{branch_id}/auth.
type Integration struct {
	AuthProvider          string `json:"auth_provider"`
	AuthProviderProjectID string `json:"auth_provider_project_id"`
	BranchID              string `json:"branch_id"`
	DBName                string `json:"db_name"`
	CreatedAt             string `json:"created_at"`
	OwnedBy               string `json:"owned_by"`
	TransferStatus        string `json:"transfer_status,omitempty"`
	JWKSURL               string `json:"jwks_url"`
	BaseURL               string `json:"base_url,omitempty"`
	Name                  string `json:"name,omitempty"`
}

// Owners and transfer states of a managed auth project.
const (
	OwnedByNeon       = "neon"
	OwnedByUser       = "user"
	TransferInitiated = "initiated"
	TransferFinished  = "finished"
)

type listIntegrationsResponse struct {
	Data []Integration `json:"data"`
}

// providerBody is the body of POST /projects/auth/keys and POST
// /projects/auth/transfer_ownership.
type providerBody struct {
	ProjectID    string `json:"project_id"`
	AuthProvider string `json:"auth_provider"`
}

// deleteIntegrationBody is the optional body of disabling Neon Auth.
type deleteIntegrationBody struct {
	DeleteData bool `json:"delete_data,omitempty"`
}

// CreateUserRequest is what creating a user takes.
type CreateUserRequest struct {
	AuthProvider string
	Email        string
	Name         string
}

// createUserBody is the body of POST /projects/auth/user (every field) and of
// POST /projects/{project_id}/branches/{branch_id}/auth/users (email, name).
type createUserBody struct {
	ProjectID    string `json:"project_id,omitempty"`
	AuthProvider string `json:"auth_provider,omitempty"`
	Email        string `json:"email"`
	Name         string `json:"name,omitempty"`
}

// User is the answer of creating a user, or of setting its roles.
type User struct {
	ID string `json:"id"`
}

// TransferOwnership is the answer of requesting a transfer: a confirmation URL.
type TransferOwnership struct {
	URL string `json:"url"`
}

// String keeps the confirmation link out of logs.
func (t TransferOwnership) String() string { return "TransferOwnership{url=<redacted>}" }

// OAuth provider ids the API documents.
var OAuthProviderIDs = []string{"google", "github", "microsoft", "vercel"}

// OAuthProvider is an element of a list of OAuth providers (id and type
// only) and the answer of adding or updating one (with credentials).
type OAuthProvider struct {
	ID           string `json:"id"`
	Type         string `json:"type"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	// Recovered: the add's response was lost but a read-back listed the
	// provider; only ID and Type are set.
	Recovered bool `json:"-"`
}

// String describes the provider without its client secret.
func (p OAuthProvider) String() string {
	return "OAuthProvider{id=" + p.ID + ", type=" + p.Type + ", client_id=" + p.ClientID + ", client_secret=<redacted>}"
}

// GoString keeps %#v from printing the client secret.
func (p OAuthProvider) GoString() string { return p.String() }

type listOAuthProvidersResponse struct {
	Providers []OAuthProvider `json:"providers"`
}

// AddOAuthProviderRequest is the body of adding an OAuth provider.
type AddOAuthProviderRequest struct {
	ID                string `json:"id"`
	ClientID          string `json:"client_id,omitempty"`
	ClientSecret      string `json:"client_secret,omitempty"`
	MicrosoftTenantID string `json:"microsoft_tenant_id,omitempty"`
}

// UpdateOAuthProviderRequest is the body of updating an OAuth provider.
type UpdateOAuthProviderRequest struct {
	ClientID          string `json:"client_id,omitempty"`
	ClientSecret      string `json:"client_secret,omitempty"`
	MicrosoftTenantID string `json:"microsoft_tenant_id,omitempty"`
}

// Domain is an entry of the redirect URI whitelist.
type Domain struct {
	Domain       string `json:"domain"`
	AuthProvider string `json:"auth_provider,omitempty"`
}

type listDomainsResponse struct {
	Domains []Domain `json:"domains"`
}

// AddDomainRequest is the body of adding a domain to the whitelist.
type AddDomainRequest struct {
	Domain       string `json:"domain"`
	AuthProvider string `json:"auth_provider"`
}

// deleteDomainsBody is the body of removing domains from the whitelist.
type deleteDomainsBody struct {
	AuthProvider string       `json:"auth_provider"`
	Domains      []domainName `json:"domains"`
}

type domainName struct {
	Domain string `json:"domain"`
}

// EmailServer is an email server (provider) configuration. A read of a
// shared configuration returns only Type.
type EmailServer struct {
	Type        string `json:"type"`
	Host        string `json:"host,omitempty"`
	Port        int64  `json:"port,omitempty"`
	Username    string `json:"username,omitempty"`
	Password    string `json:"password,omitempty"`
	SenderEmail string `json:"sender_email,omitempty"`
	SenderName  string `json:"sender_name,omitempty"`
}

// String describes the configuration without its password.
func (e EmailServer) String() string {
	return "EmailServer{type=" + e.Type + ", host=" + e.Host + ", username=" + e.Username + ", password=<redacted>}"
}

// GoString keeps %#v from printing the password.
func (e EmailServer) GoString() string { return e.String() }

// Project is an element of GET /projects.
type Project struct {
	CPUUsedSec             int64  `json:"cpu_used_sec"`
	ID                     string `json:"id"`
	PlatformID             string `json:"platform_id"`
	RegionID               string `json:"region_id"`
	Name                   string `json:"name"`
	Provisioner            string `json:"provisioner"`
	PgVersion              int64  `json:"pg_version"`
	Locked                 bool   `json:"locked"`
	CreatedAt              string `json:"created_at"`
	UpdatedAt              string `json:"updated_at"`
	ProxyHost              string `json:"proxy_host"`
	BranchLogicalSizeLimit int64  `json:"branch_logical_size_limit"`
}

type listProjectsResponse struct {
	Projects              []Project   `json:"projects"`
	UnavailableProjectIDs []string    `json:"unavailable_project_ids,omitempty"`
	Pagination            *pagination `json:"pagination,omitempty"`
}

type pagination struct {
	Cursor string `json:"cursor"`
}

// ListProjectsOptions narrows GET /projects.
type ListProjectsOptions struct {
	// Search filters by partial project name or id.
	Search string
	// PageSize is the `limit` of each page (1–400); 0 means 400.
	PageSize int
	// OrgID limits the list to one organization (the API's `org_id`; some
	// keys need it).
	OrgID string
}

// Branch is an element of GET /projects/{project_id}/branches.
type Branch struct {
	ID        string `json:"id"`
	ProjectID string `json:"project_id"`
	// ParentID is the branch it was created from; "" for a root branch
	// (the first branch of a project, or one created schema-only).
	ParentID  string `json:"parent_id,omitempty"`
	Name      string `json:"name"`
	Default   bool   `json:"default"`
	CreatedAt string `json:"created_at"`
}

type listBranchesResponse struct {
	Branches   []Branch `json:"branches"`
	Pagination *struct {
		Next string `json:"next"`
	} `json:"pagination,omitempty"`
}
