package emulator

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The emulator's state: projects, branches with their databases, roles,
// compute endpoints and Neon Auth, and API keys; how they are made, found
// and copied to a new branch.

const (
	defaultBranchName   = "main"
	defaultDatabaseName = "neondb"
	defaultRoleName     = "neondb_owner"

	// defaultProvisioner is a new project's compute provisioner: Neon's
	// computes are virtual machines that autoscale (the reference: "Specify
	// the k8s-neonvm provisioner to create a compute endpoint that supports
	// Autoscaling"), and a project created without one reports k8s-neonvm.
	defaultProvisioner = "k8s-neonvm"

	// historyRetention is a new project's restore window: one day.
	historyRetention = 24 * 60 * 60

	// Initialisation sources of a branch (BranchCreateRequest.branch.init_source).
	initParentData = "parent-data"
	initSchemaOnly = "schema-only"
)

// KeyKind is the type of an API key.
type KeyKind string

// The API key types of the platform.
const (
	KeyPersonal     KeyKind = "personal"     // a user's key: all projects of the organization
	KeyOrganization KeyKind = "organization" // admin-level: all projects of the organization
	KeyProject      KeyKind = "project"      // member-level: one project only
)

// apiKey is a stored key. Only the SHA-256 of the token is kept. Keys are
// never removed (a revoked key stays, revoked), so a key's id is its place
// in the state's list, counted from 1.
type apiKey struct {
	ID        int64     `json:"id,omitempty"` // 0 only in a state file of a version without ids (see numberKeys)
	Name      string    `json:"name,omitempty"`
	Hash      string    `json:"sha256,omitempty"` // empty only in the state dump
	Kind      KeyKind   `json:"kind"`
	ProjectID string    `json:"project_id,omitempty"`
	Revoked   bool      `json:"revoked"`
	CreatedAt time.Time `json:"created_at"`
}

// keyInfo is what a handler knows about the caller's key.
type keyInfo struct {
	kind      KeyKind
	projectID string // KeyProject only
}

// canSee reports whether the key may access the project (existing or not).
func (k keyInfo) canSee(projectID string) bool {
	return k.kind != KeyProject || k.projectID == projectID
}

// bearerToken is the token of r's "Authorization: Bearer …" header; ok is
// false when there is none.
func bearerToken(r *http.Request) (token string, ok bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// newAPIKeyToken returns a random 64-character lower-case alphanumeric token.
func newAPIKeyToken() string {
	return randomText("abcdefghijklmnopqrstuvwxyz0123456789", 64)
}

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
	// LastDatabaseID is the highest id a database of the branch has had
	// (0: that of its databases), so that ids are never given twice.
	LastDatabaseID int64 `json:"last_database_id,omitempty"`
}

// Database is a database on a branch; its id is unique on the branch.
type Database struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	OwnerName string    `json:"owner_name"`
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
	// Deleted are the projects deleted within their recovery window, as
	// GET /projects?recoverable=true lists them.
	Deleted []deletedProject `json:"deleted_projects,omitempty"`
}

// deletedProject is a project as it was when it was deleted, with its
// place in the list (Seq).
type deletedProject struct {
	Seq       uint64    `json:"seq"`
	Project   Project   `json:"project"`
	DeletedAt time.Time `json:"deleted_at"`
}

// recoveryWindow is how long a deleted project can be recovered, and is
// listed by GET /projects?recoverable=true: "Deleted projects can be
// recovered within 7 days" (the reference, DELETE /projects/{project_id}).
const recoveryWindow = 7 * 24 * time.Hour

// recoverable are the projects deleted less than recoveryWindow before at.
func (s *state) recoverable(at time.Time) []deletedProject {
	return slices.DeleteFunc(slices.Clone(s.Deleted), func(d deletedProject) bool { return at.Sub(d.DeletedAt) >= recoveryWindow })
}

// stateVersion 3 keeps the computes of branches, their roles' passwords, the
// ids of databases and the project settings; version 2 had none of them,
// version 1 kept Neon Auth per project (see persist.go).
const stateVersion = 3

type projectState struct {
	Seq      uint64         `json:"seq"`
	Project  Project        `json:"project"`
	Branches []*branchState `json:"branches"` // in creation order
	// JWKS are the JWKS URLs the project trusts, in the order added (see
	// jwks.go).
	JWKS []neonapi.JWKS `json:"jwks,omitempty"`
	// Operations are the operations the project's writes started, oldest
	// first, at most maxOperations (see operations.go).
	Operations []neonapi.Operation `json:"operations,omitempty"`
	// Permissions are the grants that share the project with other
	// accounts, in the order given (see handlers_permissions.go).
	Permissions []neonapi.ProjectPermission `json:"permissions,omitempty"`
}

// branchState is a branch with its Neon Auth (nil: not enabled), the Data
// APIs of its databases, its compute endpoints and what the emulator keeps
// of its roles besides their names (Branch.Roles): addBranch gives a new
// branch copies of its parent's (see copyRoles).
type branchState struct {
	Branch
	Seq        uint64                `json:"seq"` // orders branches created in the same second
	Auth       *BranchAuth           `json:"neon_auth,omitempty"`
	DataAPIs   []*DataAPI            `json:"data_apis,omitempty"` // at most one per database
	Endpoints  []*endpointState      `json:"endpoints,omitempty"`
	RoleStates map[string]*roleState `json:"role_states,omitempty"`
}

func newState() *state {
	s := &state{Version: stateVersion}
	s.OrgID = "org-" + idWords(s.next())
	s.OwnerID = uuid.NewString()
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
	p := &projectState{
		Seq: seq,
		Project: Project{
			ID:                          id,
			PlatformID:                  "aws",
			RegionID:                    defaultRegion,
			Name:                        cmp.Or(name, id),
			Provisioner:                 defaultProvisioner,
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
	b.Endpoints = append(b.Endpoints, newEndpoint(s.nextEndpointID(), p.Project, endpointReadWrite, at))
	return p
}

// nextEndpointID is the id of a new compute endpoint.
func (s *state) nextEndpointID() string { return "ep-" + idWords(s.next()) }

// addBranch adds a non-default branch created from parent, with copies of
// the parent's databases and roles (see copyRoles); an empty name becomes
// the branch id. With initSource "" or parent-data it is the parent's child
// and starts with a copy of its Neon Auth (see BranchAuth.inheritedBy) and
// of its Data APIs (inheritedDataAPIs); with schema-only it is a root branch
// without parent_id, Neon Auth nor Data API, whose data (users,
// configuration) is not schema.
func (s *state) addBranch(p *projectState, parent *branchState, name, initSource string, at time.Time) *branchState {
	seq := s.next()
	id := "br-" + idWords(seq)
	b := &branchState{Seq: seq, Branch: Branch{
		ID:         id,
		ProjectID:  p.Project.ID,
		Name:       cmp.Or(name, id),
		InitSource: initSource,
		CreatedAt:  at,
		UpdatedAt:  at,
		Databases:  slices.Clone(parent.Databases),
		Roles:      slices.Clone(parent.Roles),
		// The copies keep their ids; new databases count on from the parent's.
		LastDatabaseID: parent.LastDatabaseID,
	}}
	if initSource != initSchemaOnly {
		b.ParentID = parent.ID
	}
	if inheritsAuth(orZero(parent.Auth).AuthProvider, initSource) {
		b.Auth = parent.Auth.inheritedBy(p.Project, b.ID, at)
	}
	if initSource != initSchemaOnly {
		b.DataAPIs = inheritedDataAPIs(parent.DataAPIs, at)
	}
	p.copyRoles(parent, b)
	p.Branches = append(p.Branches, b)
	return b
}

func (s *state) project(id string) *projectState {
	return find(s.Projects, func(p *projectState) bool { return p.Project.ID == id })
}

// removeProject deletes a project, which stays listed as recoverable for
// recoveryWindow; its project-scoped keys stop working.
func (s *state) removeProject(id string) {
	if p := find(s.Projects, func(p *projectState) bool { return p.Project.ID == id }); p != nil {
		s.Deleted = append(s.recoverable(now()), deletedProject{Seq: p.Seq, Project: p.Project, DeletedAt: now()})
	}
	s.Projects = slices.DeleteFunc(s.Projects, func(p *projectState) bool { return p.Project.ID == id })
	for _, k := range s.Keys {
		if k.Kind == KeyProject && k.ProjectID == id {
			k.Revoked = true
		}
	}
}

func (s *state) key(token string) *apiKey {
	h := hashToken(token)
	return find(s.Keys, func(k *apiKey) bool { return k.Hash == h })
}

// ensureKey registers token under name unless it is already known (a
// revoked key stays revoked), and returns its key.
func (s *state) ensureKey(token string, kind KeyKind, projectID, name string, at time.Time) *apiKey {
	if k := s.key(token); k != nil {
		return k
	}
	k := &apiKey{ID: int64(len(s.Keys) + 1), Name: name, Hash: hashToken(token), Kind: kind, ProjectID: projectID, CreatedAt: at}
	s.Keys = append(s.Keys, k)
	return k
}

// numberKeys gives the keys of a state file written before keys had ids
// the ids ensureKey would have given them.
func (s *state) numberKeys() {
	for i, k := range s.Keys {
		if k.ID == 0 {
			k.ID = int64(i + 1)
		}
	}
}

func (p *projectState) branch(id string) *branchState {
	return find(p.Branches, func(b *branchState) bool { return b.ID == id })
}

// defaultBranch is the production branch; every project has one.
func (p *projectState) defaultBranch() *branchState {
	return find(p.Branches, func(b *branchState) bool { return b.Default })
}

// branchNamed reports whether a branch of the project has the name.
func (p *projectState) branchNamed(name string) bool {
	return slices.ContainsFunc(p.Branches, func(b *branchState) bool { return b.Name == name })
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
	if b.Auth != nil {
		b.Auth.moveTo(p.Project, id)
	}
}

func (p *projectState) hasChildren(id string) bool {
	return slices.ContainsFunc(p.Branches, func(b *branchState) bool { return b.ParentID == id })
}

// endpoint finds an endpoint of the project and the branch holding it.
func (p *projectState) endpoint(id string) (*branchState, *endpointState) {
	for _, b := range p.Branches {
		for _, ep := range b.Endpoints {
			if ep.ID == id {
				return b, ep
			}
		}
	}
	return nil, nil
}

// readWriteEndpoint is the branch's read_write endpoint (a branch has at
// most one), nil when it has none.
func (b *branchState) readWriteEndpoint() *endpointState {
	return find(b.Endpoints, func(ep *endpointState) bool { return ep.Type == endpointReadWrite })
}

// dataAPI is the Data API of the branch's database, nil when it has none.
func (b *branchState) dataAPI(database string) *DataAPI {
	return find(b.DataAPIs, func(d *DataAPI) bool { return d.DatabaseName == database })
}

// removeDataAPI deletes the Data API of the branch's database, if any.
func (b *branchState) removeDataAPI(database string) {
	b.DataAPIs = slices.DeleteFunc(b.DataAPIs, func(d *DataAPI) bool { return d.DatabaseName == database })
}

// dataAPIHost is where the branch's Data APIs serve: the host of its
// read-write compute (the branch id for a branch without one) under
// apirest, in the project's region.
func (b *branchState) dataAPIHost(p Project) string {
	host := b.ID
	if ep := b.readWriteEndpoint(); ep != nil {
		host = ep.ID
	}
	return host + ".apirest." + p.ProxyHost
}

// roleOf is what the project keeps of a role of branch b: b's own, or, for
// a branch given no copies, the one it inherited from its parent. nil when
// no branch on the way has it.
func (p *projectState) roleOf(b *branchState, name string) *roleState {
	for at := b; at != nil; at = p.branch(at.ParentID) {
		if r := at.RoleStates[name]; r != nil {
			return r
		}
	}
	return nil
}

// copyRoles gives b copies of the roles it took from the branch it was made
// from, with their passwords: a new branch's roles are its parent's, as on
// Neon (also for a schema-only branch, which records no parent).
func (p *projectState) copyRoles(from, b *branchState) {
	states := map[string]*roleState{}
	for _, name := range b.Roles {
		if r := p.roleOf(from, name); r != nil {
			c := *r
			states[name] = &c
		}
	}
	b.RoleStates = states
}

// ownRoles gives b role states of its own, copies of those it reads from
// its parent, before its roles change.
func (p *projectState) ownRoles(b *branchState) {
	if b.RoleStates == nil {
		p.copyRoles(b, b)
	}
}

// database finds a database of the branch by name; -1 when there is none.
func (b *Branch) database(name string) int {
	return slices.IndexFunc(b.Databases, func(d Database) bool { return d.Name == name })
}

// nextDatabaseID is an id no database of the branch has had: a database
// created after another was deleted never gets the deleted one's id.
func (b *Branch) nextDatabaseID() int64 {
	top := b.LastDatabaseID
	for _, d := range b.Databases {
		top = max(top, d.ID)
	}
	b.LastDatabaseID = top + 1
	return b.LastDatabaseID
}

// inheritsAuth reports whether a branch created with initSource from a
// parent whose Neon Auth has parentProvider ("" for none) starts with a copy
// of it. A schema-only branch is a root branch. Only Better Auth branches
// with the database: a Stack Auth (or mock) integration is a project at the
// auth provider, one per Neon project, bound to the production branch; Neon
// documents no copy of it, and the emulator makes none.
func inheritsAuth(parentProvider, initSource string) bool {
	return initSource != initSchemaOnly && parentProvider == authProviderBetterAuth
}

// copy is b with databases, roles, annotation and expiry of its own.
func (b *Branch) copy() Branch {
	c := *b
	c.Databases, c.Roles, c.Annotation = slices.Clone(b.Databases), slices.Clone(b.Roles), maps.Clone(b.Annotation)
	if b.ExpiresAt != nil {
		c.ExpiresAt = new(*b.ExpiresAt)
	}
	return c
}

func (b *Branch) hasRole(name string) bool {
	return slices.Contains(b.Roles, name)
}
