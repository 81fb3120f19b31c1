package emulator

import (
	"fmt"
	"slices"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The emulator's state: projects, branches, databases, integrations and what
// Neon Auth holds on them.

// Fixed values of the emulated platform; the values of the API's enums are
// the reference's.
const (
	authProviderMock       = string(neonapi.NeonAuthSupportedAuthProviderMock)
	authProviderStack      = string(neonapi.NeonAuthSupportedAuthProviderStack)
	authProviderBetterAuth = string(neonapi.NeonAuthSupportedAuthProviderBetterAuth)

	defaultBranchName   = "main"
	defaultDatabaseName = "neondb"
	defaultRoleName     = "neondb_owner"

	ownedByNeon = string(neonapi.NeonAuthProviderProjectOwnedByNeon)
	ownedByUser = string(neonapi.NeonAuthProviderProjectOwnedByUser)

	transferInitiated = string(neonapi.NeonAuthProviderProjectTransferStatusInitiated)
	transferFinished  = string(neonapi.NeonAuthProviderProjectTransferStatusFinished)

	emailShared   = string(neonapi.SharedEmailServerTypeShared)
	emailStandard = string(neonapi.StandardEmailServerTypeStandard)

	oauthShared   = string(neonapi.NeonAuthOauthProviderTypeShared)
	oauthStandard = string(neonapi.NeonAuthOauthProviderTypeStandard)

	usersSchema = "neon_auth"
	usersTable  = "users_sync"
)

// Project is a database project as the emulator holds it and GET /projects
// lists it: the reference's ProjectListItem, whose settings and
// default_endpoint_settings are held as given (over the platform's defaults
// for settings).
type Project = neonapi.ProjectListItem

// Branch is a branch of a project with its databases and roles.
type Branch struct {
	ID        string `json:"id"`
	ProjectID string `json:"project_id"`
	ParentID  string `json:"parent_id,omitempty"`
	Name      string `json:"name"`
	Default   bool   `json:"default"`
	Protected bool   `json:"protected,omitempty"` // cannot be deleted
	// InitSource ("" = parent-data), ExpiresAt and Annotation are as given
	// at creation (POST .../branches).
	InitSource string            `json:"init_source,omitempty"`
	ExpiresAt  *time.Time        `json:"expires_at,omitempty"`
	Annotation map[string]string `json:"annotation,omitempty"`
	CreatedAt  time.Time         `json:"created_at"`
	UpdatedAt  time.Time         `json:"updated_at"`
	Databases  []Database        `json:"databases"`
	Roles      []string          `json:"roles"`
}

// Database is a database on a branch; its id is unique on the branch.
type Database struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	OwnerName string    `json:"owner_name"`
	CreatedAt time.Time `json:"created_at"`
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

// state is the whole emulated platform; it is also the state file format.
type state struct {
	Version  int             `json:"version"`
	Seq      uint64          `json:"seq"` // last sequence number handed out (ids, cursors)
	OrgID    string          `json:"org_id"`
	OwnerID  string          `json:"owner_id"`
	Keys     []*apiKey       `json:"keys"`
	Projects []*projectState `json:"projects"` // in creation order
}

// stateVersion 3 keeps the computes of branches, their roles' passwords, the
// ids of databases and the project settings; version 2 had none of them,
// version 1 kept Neon Auth per project (see migrate.go).
const stateVersion = 3

type projectState struct {
	Seq      uint64         `json:"seq"`
	Project  Project        `json:"project"`
	Branches []*branchState `json:"branches"` // in creation order
}

// branchState is a branch with its Neon Auth (nil: not enabled), its
// compute endpoints and what the emulator keeps of its roles besides their
// names (Branch.Roles): addBranch gives a new branch copies of its parent's
// (see copyRoles).
type branchState struct {
	Branch
	Seq        uint64                `json:"seq"` // orders branches created in the same second
	Auth       *BranchAuth           `json:"neon_auth,omitempty"`
	Endpoints  []*endpointState      `json:"endpoints,omitempty"`
	RoleStates map[string]*roleState `json:"role_states,omitempty"`
}

// endpointState is a compute endpoint of the branch holding it (its project
// and branch ids are the holder's; its region and host follow the project).
// Settings is EndpointSettingsData of the API reference, held as given.
type endpointState struct {
	ID                    string                        `json:"id"`
	Name                  string                        `json:"name,omitempty"`
	Type                  string                        `json:"type"` // read_write or read_only
	MinCU                 float64                       `json:"autoscaling_limit_min_cu"`
	MaxCU                 float64                       `json:"autoscaling_limit_max_cu"`
	SuspendTimeoutSeconds int64                         `json:"suspend_timeout_seconds"`
	Provisioner           string                        `json:"provisioner"`
	PoolerEnabled         bool                          `json:"pooler_enabled"`
	Disabled              bool                          `json:"disabled"`
	PasswordlessAccess    bool                          `json:"passwordless_access"`
	Settings              *neonapi.EndpointSettingsData `json:"settings,omitempty"`
	CreatedAt             time.Time                     `json:"created_at"`
	UpdatedAt             time.Time                     `json:"updated_at"`
}

// roleState is what the emulator keeps of a role besides its name.
type roleState struct {
	Password  string    `json:"password,omitempty"` // "": created with no_login
	CreatedAt time.Time `json:"created_at"`
}

func newState() *state {
	s := &state{Version: stateVersion}
	s.OrgID = "org-" + idWords(s.next())
	s.OwnerID = newUUID()
	return s
}

func (s *state) next() uint64 {
	s.Seq++
	return s.Seq
}

var (
	idAdjectives = []string{"frosty", "quiet", "bold", "shiny", "misty", "young", "aged", "sweet", "raspy", "calm", "wild", "dry", "green", "small", "proud", "late"}
	idNouns      = []string{"leaf", "wind", "cloud", "salad", "breeze", "hill", "term", "river", "sun", "moon", "field", "lake", "star", "wave", "stone", "bird"}
)

// idWords makes a deterministic "adjective-noun-00000042" from n.
func idWords(n uint64) string {
	a := idAdjectives[n%uint64(len(idAdjectives))]
	b := idNouns[(n/uint64(len(idAdjectives)))%uint64(len(idNouns))]
	return fmt.Sprintf("%s-%s-%08d", a, b, n)
}

// addProject creates a project with its default branch "main", database
// "neondb", role "neondb_owner" (with a password) and a read_write compute
// endpoint.
func (s *state) addProject(name string, at time.Time) *projectState {
	seq := s.next()
	id := idWords(seq)
	if name == "" {
		name = id
	}
	p := &projectState{
		Seq: seq,
		Project: Project{
			ID:                          id,
			PlatformID:                  "aws",
			RegionID:                    defaultRegion,
			Name:                        name,
			Provisioner:                 "k8s-pod",
			PgVersion:                   17,
			CreatedAt:                   at,
			UpdatedAt:                   at,
			ProxyHost:                   proxyHostOf(defaultRegion),
			BranchLogicalSizeLimit:      512,
			BranchLogicalSizeLimitBytes: 512 << 20,
			StorePasswords:              true,
			CreationSource:              "console",
			OwnerID:                     s.OwnerID,
			OrgID:                       new(s.OrgID),
			HistoryRetentionSeconds:     new(int32(historyRetention)),
			Settings:                    defaultProjectSettings(),
			Locked:                      new(false),
		},
	}
	s.Projects = append(s.Projects, p)
	seqB := s.next()
	b := &branchState{Seq: seqB, Branch: Branch{
		ID:        "br-" + idWords(seqB),
		ProjectID: id,
		Name:      defaultBranchName,
		Default:   true,
		CreatedAt: at,
		UpdatedAt: at,
		Databases: []Database{{ID: 1, Name: defaultDatabaseName, OwnerName: defaultRoleName, CreatedAt: at}},
		Roles:     []string{defaultRoleName},
	}}
	b.RoleStates = map[string]*roleState{defaultRoleName: {Password: newRolePassword(), CreatedAt: at}}
	p.Branches = append(p.Branches, b)
	b.Endpoints = append(b.Endpoints, s.newEndpoint(p, endpointReadWrite, at))
	return p
}

// addBranch adds a non-default branch created from parent, with copies of
// the parent's databases and roles (their passwords too, see copyRoles). An
// empty name becomes the branch id.
//
// With initSource "" or parent-data the branch is the parent's child and
// starts with an independent copy of the parent's Neon Auth, as Neon branches
// it (see BranchAuth.inheritedBy). With schema-only it is a new root branch:
// the parent only lends its schema, the branch has no parent_id and no Neon
// Auth (the data of Neon Auth, users and configuration, is not schema).
func (s *state) addBranch(p *projectState, parent *branchState, name, initSource string, at time.Time) *branchState {
	seq := s.next()
	id := "br-" + idWords(seq)
	if name == "" {
		name = id
	}
	b := &branchState{Seq: seq, Branch: Branch{
		ID:         id,
		ProjectID:  p.Project.ID,
		Name:       name,
		InitSource: initSource,
		CreatedAt:  at,
		UpdatedAt:  at,
		Databases:  slices.Clone(parent.Databases),
		Roles:      slices.Clone(parent.Roles),
	}}
	if initSource != initSchemaOnly {
		b.ParentID = parent.ID
		if parent.Auth != nil {
			b.Auth = parent.Auth.inheritedBy(p, b, at)
		}
	}
	p.copyRoles(parent, b)
	p.Branches = append(p.Branches, b)
	return b
}

func (s *state) project(id string) *projectState {
	for _, p := range s.Projects {
		if p.Project.ID == id {
			return p
		}
	}
	return nil
}

func (s *state) removeProject(id string) {
	for i, p := range s.Projects {
		if p.Project.ID == id {
			s.Projects = append(s.Projects[:i], s.Projects[i+1:]...)
			break
		}
	}
	// A project-scoped key stops working when its project leaves.
	for _, k := range s.Keys {
		if k.Kind == KeyProject && k.ProjectID == id {
			k.Revoked = true
		}
	}
}

func (p *projectState) branch(id string) *branchState {
	for _, b := range p.Branches {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// defaultBranch is the production branch; every project has one.
func (p *projectState) defaultBranch() *branchState {
	for _, b := range p.Branches {
		if b.Default {
			return b
		}
	}
	return nil
}

// renameBranch gives b a fixed id (a seed's): its children and its Neon Auth
// (its branch id, and the auth endpoint named after it) follow.
func (p *projectState) renameBranch(b *branchState, id string) {
	for _, child := range p.Branches {
		if child.ParentID == b.ID {
			child.ParentID = id
		}
	}
	b.ID = id
	if a := b.Auth; a != nil {
		a.BranchID = id
		a.BaseURL = authBaseURL(p, b, a.AuthProvider, a.AuthProviderProjectID, a.DBName)
		a.JWKSURL = a.BaseURL + "/.well-known/jwks.json"
	}
}

func (p *projectState) removeBranch(id string) {
	p.Branches = slices.DeleteFunc(p.Branches, func(b *branchState) bool { return b.ID == id })
}

func (p *projectState) hasChildren(id string) bool {
	return slices.ContainsFunc(p.Branches, func(b *branchState) bool { return b.ParentID == id })
}

func (b *Branch) database(name string) *Database {
	for i := range b.Databases {
		if b.Databases[i].Name == name {
			return &b.Databases[i]
		}
	}
	return nil
}

func (b *Branch) hasRole(name string) bool {
	return slices.Contains(b.Roles, name)
}
