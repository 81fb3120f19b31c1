package apiclient

// Request and response shapes of the platform API v2. Field names mirror
// auth-api.md exactly; where that document says "not shown", the published
// OpenAPI v2 document decides.

// AuthProviderStack is the only auth provider the platform supports.
const AuthProviderStack = "stack"

// Email server and OAuth provider types.
const (
	TypeShared   = "shared"
	TypeStandard = "standard"
)

// CreateIntegrationRequest is the body of endpoint 1 (POST /projects/auth/create).
type CreateIntegrationRequest struct {
	AuthProvider string `json:"auth_provider"`
	ProjectID    string `json:"project_id"`
	BranchID     string `json:"branch_id"`
	DatabaseName string `json:"database_name"`
	RoleName     string `json:"role_name"`
}

// IntegrationCredentials is returned by endpoints 1 and 3. It holds secrets:
// its String method never prints them.
type IntegrationCredentials struct {
	AuthProvider          string `json:"auth_provider"`
	AuthProviderProjectID string `json:"auth_provider_project_id"`
	PubClientKey          string `json:"pub_client_key"`
	SecretServerKey       string `json:"secret_server_key"`
	JWKSURL               string `json:"jwks_url"`
	SchemaName            string `json:"schema_name"`
	TableName             string `json:"table_name"`
}

// String describes the credentials without their keys.
func (c IntegrationCredentials) String() string {
	return "IntegrationCredentials{auth_provider=" + c.AuthProvider +
		", auth_provider_project_id=" + c.AuthProviderProjectID + ", keys=<redacted>}"
}

// GoString keeps %#v from printing the keys.
func (c IntegrationCredentials) GoString() string { return c.String() }

// Integration is one element of the `data` array of endpoint 2.
type Integration struct {
	AuthProvider          string `json:"auth_provider"`
	AuthProviderProjectID string `json:"auth_provider_project_id"`
	BranchID              string `json:"branch_id"`
	DBName                string `json:"db_name"`
	CreatedAt             string `json:"created_at"`
	OwnedBy               string `json:"owned_by"`
	JWKSURL               string `json:"jwks_url"`
}

type listIntegrationsResponse struct {
	Data []Integration `json:"data"`
}

// SDKKeysRequest is the body of endpoint 3 (POST /projects/auth/keys).
type SDKKeysRequest struct {
	ProjectID    string `json:"project_id"`
	AuthProvider string `json:"auth_provider"`
}

// DeleteIntegrationRequest is the optional body of endpoint 4.
type DeleteIntegrationRequest struct {
	DeleteData bool `json:"delete_data,omitempty"`
}

// CreateUserRequest is the body of endpoint 5 (POST /projects/auth/user).
type CreateUserRequest struct {
	ProjectID    string `json:"project_id"`
	AuthProvider string `json:"auth_provider"`
	Email        string `json:"email"`
	Name         string `json:"name,omitempty"`
}

// User is the response of endpoint 5.
type User struct {
	ID string `json:"id"`
}

// TransferOwnershipRequest is the body of endpoint 7.
type TransferOwnershipRequest struct {
	ProjectID    string `json:"project_id"`
	AuthProvider string `json:"auth_provider"`
}

// TransferOwnership is the response of endpoint 7: a confirmation URL.
type TransferOwnership struct {
	URL string `json:"url"`
}

// String keeps the confirmation link out of logs.
func (t TransferOwnership) String() string { return "TransferOwnership{url=<redacted>}" }

// OAuthProvider is an element of the list of endpoint 8 (id and type only) and
// the response of endpoints 9 and 10 (with credentials).
type OAuthProvider struct {
	ID           string `json:"id"`
	Type         string `json:"type"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
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

// AddOAuthProviderRequest is the body of endpoint 9.
type AddOAuthProviderRequest struct {
	ID           string `json:"id"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
}

// UpdateOAuthProviderRequest is the body of endpoint 10.
type UpdateOAuthProviderRequest struct {
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
}

// Domain is an entry of the redirect URI whitelist (endpoint 12).
type Domain struct {
	Domain       string `json:"domain"`
	AuthProvider string `json:"auth_provider,omitempty"`
}

type listDomainsResponse struct {
	Domains []Domain `json:"domains"`
}

// AddDomainRequest is the body of endpoint 13.
type AddDomainRequest struct {
	Domain       string `json:"domain"`
	AuthProvider string `json:"auth_provider"`
}

// DeleteDomainsRequest is the body of endpoint 14.
type DeleteDomainsRequest struct {
	AuthProvider string       `json:"auth_provider"`
	Domains      []DomainName `json:"domains"`
}

// DomainName is one element of the `domains` array of endpoint 14.
type DomainName struct {
	Domain string `json:"domain"`
}

// EmailServer is the email server configuration of endpoints 15 and 16. A read
// of a shared configuration returns only Type.
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

// Project is an element of the project list (endpoint 17).
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
	Projects   []Project   `json:"projects"`
	Pagination *pagination `json:"pagination,omitempty"`
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
}

// Branch is an element of GET /projects/{project_id}/branches.
type Branch struct {
	ID        string `json:"id"`
	ProjectID string `json:"project_id"`
	Name      string `json:"name"`
	Default   bool   `json:"default"`
	CreatedAt string `json:"created_at"`
}

type listBranchesResponse struct {
	Branches []Branch `json:"branches"`
}
