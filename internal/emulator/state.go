package emulator

import (
	"fmt"
	"strings"
	"time"
)

// Fixed values of the emulated platform.
const (
	authProviderStack = "stack"

	defaultBranchName   = "main"
	defaultDatabaseName = "neondb"
	defaultRoleName     = "neondb_owner"

	ownedByNeon = "neon"
	ownedByUser = "user"

	transferInitiated = "initiated"
	transferFinished  = "finished"

	emailShared   = "shared"
	emailStandard = "standard"

	oauthShared   = "shared"
	oauthStandard = "standard"

	usersSchema = "neon_auth"
	usersTable  = "users_sync"
)

// Project is a database project, with the fields of the project list.
type Project struct {
	ID                          string    `json:"id"`
	PlatformID                  string    `json:"platform_id"`
	RegionID                    string    `json:"region_id"`
	Name                        string    `json:"name"`
	Provisioner                 string    `json:"provisioner"`
	PGVersion                   int       `json:"pg_version"`
	Locked                      bool      `json:"locked"`
	CPUUsedSec                  int64     `json:"cpu_used_sec"`
	ActiveTime                  int64     `json:"active_time"`
	CreatedAt                   time.Time `json:"created_at"`
	UpdatedAt                   time.Time `json:"updated_at"`
	ProxyHost                   string    `json:"proxy_host"`
	BranchLogicalSizeLimit      int64     `json:"branch_logical_size_limit"`
	BranchLogicalSizeLimitBytes int64     `json:"branch_logical_size_limit_bytes"`
	StorePasswords              bool      `json:"store_passwords"`
	CreationSource              string    `json:"creation_source"`
	OwnerID                     string    `json:"owner_id"`
	OrgID                       string    `json:"org_id"`
}

// Branch is a branch of a project with its databases and roles.
type Branch struct {
	ID        string     `json:"id"`
	ProjectID string     `json:"project_id"`
	ParentID  string     `json:"parent_id,omitempty"`
	Name      string     `json:"name"`
	Default   bool       `json:"default"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	Databases []Database `json:"databases"`
	Roles     []string   `json:"roles"`
}

// Database is a database on a branch.
type Database struct {
	Name      string `json:"name"`
	OwnerName string `json:"owner_name"`
}

// Integration is an active auth integration, with the credentials minted last.
type Integration struct {
	ProjectID             string    `json:"project_id"`
	AuthProvider          string    `json:"auth_provider"`
	AuthProviderProjectID string    `json:"auth_provider_project_id"`
	BranchID              string    `json:"branch_id"`
	DBName                string    `json:"db_name"`
	RoleName              string    `json:"role_name"`
	CreatedAt             time.Time `json:"created_at"`
	OwnedBy               string    `json:"owned_by"`        // "neon" while managed, "user" after a confirmed transfer
	TransferStatus        string    `json:"transfer_status"` // "", "initiated" or "finished"
	JWKSURL               string    `json:"jwks_url"`
	PubClientKey          string    `json:"pub_client_key"`    // latest minted
	SecretServerKey       string    `json:"secret_server_key"` // latest minted
	SchemaName            string    `json:"schema_name"`       // "neon_auth"
	TableName             string    `json:"table_name"`        // "users_sync"
}

// OAuthProvider is an OAuth provider of the auth project.
type OAuthProvider struct {
	ID           string `json:"id"`
	Type         string `json:"type"` // "shared" or "standard"
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
}

// Domain is a whitelisted redirect origin (stored canonicalised).
type Domain struct {
	Domain       string `json:"domain"`
	AuthProvider string `json:"auth_provider"`
}

// EmailServer is the email server configuration. Type "shared" has no other field.
type EmailServer struct {
	Type        string `json:"type"`
	Host        string `json:"host,omitempty"`
	Port        int    `json:"port,omitempty"`
	Username    string `json:"username,omitempty"`
	Password    string `json:"password,omitempty"`
	SenderEmail string `json:"sender_email,omitempty"`
	SenderName  string `json:"sender_name,omitempty"`
}

// UserRow is a row of the users_sync table.
type UserRow struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name,omitempty"`
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

const stateVersion = 1

type projectState struct {
	Seq          uint64              `json:"seq"`
	Project      Project             `json:"project"`
	Branches     []*Branch           `json:"branches"`
	Integrations []*integrationState `json:"integrations"` // active ones
}

type integrationState struct {
	Integration
	TransferCode   string          `json:"transfer_code,omitempty"`
	OAuthProviders []OAuthProvider `json:"oauth_providers"`
	Domains        []Domain        `json:"domains"`
	Email          EmailServer     `json:"email_server"`
	Users          []UserRow       `json:"users"`
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
// "neondb" and role "neondb_owner".
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
			RegionID:                    "aws-us-east-2",
			Name:                        name,
			Provisioner:                 "k8s-pod",
			PGVersion:                   17,
			CreatedAt:                   at,
			UpdatedAt:                   at,
			ProxyHost:                   "us-east-2.aws.neon.tech",
			BranchLogicalSizeLimit:      512,
			BranchLogicalSizeLimitBytes: 512 << 20,
			StorePasswords:              true,
			CreationSource:              "console",
			OwnerID:                     s.OwnerID,
			OrgID:                       s.OrgID,
		},
	}
	s.Projects = append(s.Projects, p)
	s.addBranch(p, defaultBranchName, true, at)
	return p
}

// addBranch adds a branch; a non-default branch is a child of the default
// branch and has the same databases and roles.
func (s *state) addBranch(p *projectState, name string, isDefault bool, at time.Time) *Branch {
	b := &Branch{
		ID:        "br-" + idWords(s.next()),
		ProjectID: p.Project.ID,
		Name:      name,
		Default:   isDefault,
		CreatedAt: at,
		UpdatedAt: at,
		Databases: []Database{{Name: defaultDatabaseName, OwnerName: defaultRoleName}},
		Roles:     []string{defaultRoleName},
	}
	if parent := p.defaultBranch(); parent != nil && !isDefault {
		b.ParentID = parent.ID
		b.Databases = append([]Database(nil), parent.Databases...)
		b.Roles = append([]string(nil), parent.Roles...)
	}
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

func (p *projectState) branch(id string) *Branch {
	for _, b := range p.Branches {
		if b.ID == id {
			return b
		}
	}
	return nil
}

func (p *projectState) defaultBranch() *Branch {
	for _, b := range p.Branches {
		if b.Default {
			return b
		}
	}
	return nil
}

func (p *projectState) integration(provider string) *integrationState {
	for _, in := range p.Integrations {
		if in.AuthProvider == provider {
			return in
		}
	}
	return nil
}

func (p *projectState) removeIntegration(provider string) bool {
	for i, in := range p.Integrations {
		if in.AuthProvider == provider {
			p.Integrations = append(p.Integrations[:i], p.Integrations[i+1:]...)
			return true
		}
	}
	return false
}

func (b *Branch) hasDatabase(name string) bool {
	for _, d := range b.Databases {
		if d.Name == name {
			return true
		}
	}
	return false
}

func (b *Branch) hasRole(name string) bool {
	for _, r := range b.Roles {
		if r == name {
			return true
		}
	}
	return false
}

// newIntegration creates an active integration with fresh credentials.
func newIntegration(projectID, provider, branchID, db, role string, at time.Time) *integrationState {
	apid := newUUID()
	in := &integrationState{
		Integration: Integration{
			ProjectID:             projectID,
			AuthProvider:          provider,
			AuthProviderProjectID: apid,
			BranchID:              branchID,
			DBName:                db,
			RoleName:              role,
			CreatedAt:             at,
			OwnedBy:               ownedByNeon,
			JWKSURL:               "https://api.stack-auth.com/api/v1/projects/" + apid + "/.well-known/jwks.json",
			SchemaName:            usersSchema,
			TableName:             usersTable,
		},
		OAuthProviders: []OAuthProvider{},
		Domains:        []Domain{},
		Email:          EmailServer{Type: emailShared},
		Users:          []UserRow{},
	}
	in.mintKeys()
	return in
}

// mintKeys replaces the SDK keys with a new distinct pair.
func (in *integrationState) mintKeys() {
	in.PubClientKey = "pck_" + randomHex(24)
	in.SecretServerKey = "ssk_" + randomHex(32)
}

func (in *integrationState) oauthProvider(id string) int {
	for i, p := range in.OAuthProviders {
		if p.ID == id {
			return i
		}
	}
	return -1
}

func (in *integrationState) domainIndex(canonical string) int {
	for i, d := range in.Domains {
		if d.Domain == canonical {
			return i
		}
	}
	return -1
}

func (in *integrationState) userIndex(id string) int {
	for i, u := range in.Users {
		if u.ID == id {
			return i
		}
	}
	return -1
}

func (in *integrationState) userByEmail(email string) int {
	for i, u := range in.Users {
		if strings.EqualFold(u.Email, email) {
			return i
		}
	}
	return -1
}
