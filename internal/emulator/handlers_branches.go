package emulator

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The handlers of branches, their roles and databases, and the auth annotations
// of branches.

// branchView is a Branch as the API shows it.
type branchView struct {
	ID                 string     `json:"id"`
	ProjectID          string     `json:"project_id"`
	ParentID           string     `json:"parent_id,omitempty"`
	Name               string     `json:"name"`
	CurrentState       string     `json:"current_state"`
	StateChangedAt     time.Time  `json:"state_changed_at"`
	LogicalSize        int64      `json:"logical_size"`
	CreationSource     string     `json:"creation_source"`
	Primary            bool       `json:"primary"`
	Default            bool       `json:"default"`
	Protected          bool       `json:"protected"`
	CPUUsedSec         int64      `json:"cpu_used_sec"`
	ComputeTimeSeconds int64      `json:"compute_time_seconds"`
	ActiveTimeSeconds  int64      `json:"active_time_seconds"`
	WrittenDataBytes   int64      `json:"written_data_bytes"`
	DataTransferBytes  int64      `json:"data_transfer_bytes"`
	InitSource         string     `json:"init_source"`
	ExpiresAt          *time.Time `json:"expires_at,omitempty"`
	CreatedAt          time.Time  `json:"created_at"`
	UpdatedAt          time.Time  `json:"updated_at"`
}

func newBranchView(b *Branch) branchView {
	return branchView{
		ID:             b.ID,
		ProjectID:      b.ProjectID,
		ParentID:       b.ParentID,
		Name:           b.Name,
		CurrentState:   "ready",
		StateChangedAt: b.CreatedAt,
		LogicalSize:    30 << 20,
		CreationSource: "console",
		Primary:        b.Default,
		Default:        b.Default,
		Protected:      b.Protected,
		InitSource:     cmp.Or(b.InitSource, initParentData),
		ExpiresAt:      b.ExpiresAt,
		CreatedAt:      b.CreatedAt,
		UpdatedAt:      b.UpdatedAt,
	}
}

// annotation is AnnotationData: the values given with annotation_value when
// the branch was created (none: an empty value).
type annotation struct {
	Object struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"object"`
	Value     map[string]string `json:"value"`
	CreatedAt *time.Time        `json:"created_at,omitempty"`
	UpdatedAt *time.Time        `json:"updated_at,omitempty"`
}

func branchAnnotation(b *Branch) annotation {
	var a annotation
	a.Object.Type, a.Object.ID = "console/branch", b.ID
	a.Value = map[string]string{}
	for k, v := range b.Annotation {
		a.Value[k] = v
	}
	if len(b.Annotation) > 0 {
		a.CreatedAt, a.UpdatedAt = &b.CreatedAt, &b.CreatedAt
	}
	return a
}

// branchAnnotations is AnnotationsMapResponse: the annotations of the
// branches that have one, by branch id.
func branchAnnotations(bs []*branchState) map[string]annotation {
	out := map[string]annotation{}
	for _, b := range bs {
		if len(b.Annotation) > 0 {
			out[b.ID] = branchAnnotation(&b.Branch)
		}
	}
	return out
}

// role is Role: a role of a branch (the emulator keeps only names).
type role struct {
	BranchID  string    `json:"branch_id"`
	Name      string    `json:"name"`
	Protected bool      `json:"protected"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func rolesOf(b *Branch) []role {
	out := make([]role, 0, len(b.Roles))
	for _, r := range b.Roles {
		out = append(out, role{BranchID: b.ID, Name: r, CreatedAt: b.CreatedAt, UpdatedAt: b.CreatedAt})
	}
	return out
}

// database is Database; its id is its position on the branch.
type database struct {
	ID        int64     `json:"id"`
	BranchID  string    `json:"branch_id"`
	Name      string    `json:"name"`
	OwnerName string    `json:"owner_name"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func databasesOf(b *Branch) []database {
	out := make([]database, 0, len(b.Databases))
	for i, d := range b.Databases {
		out = append(out, database{ID: int64(i + 1), BranchID: b.ID, Name: d.Name, OwnerName: d.OwnerName, CreatedAt: b.CreatedAt, UpdatedAt: b.CreatedAt})
	}
	return out
}

// operation is Operation. The emulator's operations finish at once.
type operation struct {
	ID              string    `json:"id"`
	ProjectID       string    `json:"project_id"`
	BranchID        string    `json:"branch_id"`
	Action          string    `json:"action"`
	Status          string    `json:"status"`
	FailuresCount   int       `json:"failures_count"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	TotalDurationMS int       `json:"total_duration_ms"`
}

func finishedOperation(projectID, branchID, action string, at time.Time) operation {
	return operation{ID: newUUID(), ProjectID: projectID, BranchID: branchID, Action: action, Status: "finished", CreatedAt: at, UpdatedAt: at}
}

// Branch sort orders of GET /projects/{project_id}/branches.
var (
	branchSortFields = []string{"name", "created_at", "updated_at"}
	sortOrders       = []string{"asc", "desc"}
)

const maxBranchPageLimit = 10000

// branchCursor is the position after the last branch of a page, in the
// page's sort order: the branch's sort key and sequence number.
type branchCursor struct {
	SortBy string `json:"s"`
	Order  string `json:"o"`
	Key    string `json:"k"`
	Seq    uint64 `json:"q"`
}

func (bc branchCursor) encode() string {
	b, _ := json.Marshal(bc)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeBranchCursor(s string) (branchCursor, bool) {
	var bc branchCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &bc) != nil || !slices.Contains(branchSortFields, bc.SortBy) || !slices.Contains(sortOrders, bc.Order) {
		return branchCursor{}, false
	}
	return bc, true
}

// branchSortKey is a branch's key for a sort field: the name, or the time
// in RFC 3339 (UTC, whole seconds: ordered as text).
func branchSortKey(b *branchState, sortBy string) string {
	switch sortBy {
	case "name":
		return b.Name
	case "created_at":
		return b.CreatedAt.UTC().Format(time.RFC3339)
	}
	return b.UpdatedAt.UTC().Format(time.RFC3339)
}

// branchListQuery is the validated query of GET .../branches.
type branchListQuery struct {
	search        string
	sortBy, order string
	limit         int // 0: all
	after         *branchCursor
}

func parseBranchListQuery(q url.Values) (branchListQuery, error) {
	bq := branchListQuery{search: strings.ToLower(q.Get("search")), sortBy: "updated_at", order: "desc"}
	if s := q.Get("sort_by"); s != "" {
		if !slices.Contains(branchSortFields, s) {
			return bq, invalid("sort_by", "must be one of %s", strings.Join(branchSortFields, ", "))
		}
		bq.sortBy = s
	}
	if s := q.Get("sort_order"); s != "" {
		if !slices.Contains(sortOrders, s) {
			return bq, invalid("sort_order", "must be asc or desc")
		}
		bq.order = s
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxBranchPageLimit {
			return bq, invalid("limit", "must be an integer from 1 to %d", maxBranchPageLimit)
		}
		bq.limit = n
	}
	if s := q.Get("include_deleted"); s != "" {
		if _, err := strconv.ParseBool(s); err != nil {
			return bq, invalid("include_deleted", "must be true or false")
		}
	}
	if s := q.Get("cursor"); s != "" {
		bc, ok := decodeBranchCursor(s)
		if !ok {
			return bq, invalid("cursor", "is not a cursor returned by this endpoint")
		}
		if bc.SortBy != bq.sortBy || bc.Order != bq.order {
			return bq, invalid("cursor", "belongs to the order sort_by=%s&sort_order=%s; ask for the same order", bc.SortBy, bc.Order)
		}
		bq.after = &bc
	}
	return bq, nil
}

// compare orders two positions (sort key, sequence number) in the query's
// order; the sequence number breaks ties the same way.
func (bq branchListQuery) compare(keyA string, seqA uint64, keyB string, seqB uint64) int {
	c := cmp.Or(strings.Compare(keyA, keyB), cmp.Compare(seqA, seqB))
	if bq.order == "desc" {
		return -c
	}
	return c
}

// listBranches serves GET /projects/{project_id}/branches: sorted by
// sort_by (default updated_at) and sort_order (default desc), filtered by
// search (part of the name or id). With limit, pages come with
// pagination.next while more branches follow; without, all branches are
// listed. The emulator deletes branches at once: include_deleted changes
// nothing.
func (e *Emulator) listBranches(c *call) error {
	bq, err := parseBranchListQuery(c.r.URL.Query())
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	var matching []*branchState
	for _, b := range p.Branches {
		if bq.search != "" && !strings.Contains(strings.ToLower(b.Name), bq.search) && !strings.Contains(b.ID, bq.search) {
			continue
		}
		if bq.after != nil && bq.compare(branchSortKey(b, bq.sortBy), b.Seq, bq.after.Key, bq.after.Seq) <= 0 {
			continue
		}
		matching = append(matching, b)
	}
	slices.SortFunc(matching, func(a, b *branchState) int {
		return bq.compare(branchSortKey(a, bq.sortBy), a.Seq, branchSortKey(b, bq.sortBy), b.Seq)
	})
	page := matching
	if bq.limit > 0 && len(page) > bq.limit {
		page = page[:bq.limit]
	}
	out := make([]branchView, 0, len(page))
	for _, b := range page {
		out = append(out, newBranchView(&b.Branch))
	}
	resp := map[string]any{"branches": out, "annotations": branchAnnotations(page)}
	if bq.limit > 0 || bq.after != nil {
		pg := map[string]string{"sort_by": bq.sortBy, "sort_order": bq.order}
		if len(page) < len(matching) {
			last := page[len(page)-1]
			pg["next"] = branchCursor{SortBy: bq.sortBy, Order: bq.order, Key: branchSortKey(last, bq.sortBy), Seq: last.Seq}.encode()
		}
		resp["pagination"] = pg
	}
	return c.json(http.StatusOK, resp)
}

// getBranch serves GET /projects/{project_id}/branches/{branch_id}.
func (e *Emulator) getBranch(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, map[string]any{"branch": newBranchView(&b.Branch), "annotation": branchAnnotation(&b.Branch)})
}

// Initialisation sources of a branch (BranchCreateRequest.branch.init_source).
const (
	initParentData = "parent-data"
	initSchemaOnly = "schema-only"
)

// maxAnnotationValues is maxProperties of AnnotationValueData.
const maxAnnotationValues = 50

// branchCreate is what the emulator keeps of a valid BranchCreateRequest
// with its annotation_value. Fields it does not model (parent_lsn,
// parent_timestamp, archived, the endpoints: it has no computes) are
// checked and then ignored.
type branchCreate struct {
	name, parentID, initSource string
	protected                  bool
	expiresAt                  *time.Time
	annotation                 map[string]string
}

// parseBranchCreate validates the body of POST /projects/{project_id}/branches
// as the OpenAPI describes it (the fields neon CLI sends included): only
// invalid values are refused.
func parseBranchCreate(o object) (branchCreate, error) {
	var bc branchCreate
	if err := parseEndpointOptions(o); err != nil {
		return bc, err
	}
	if raw, ok := o["annotation_value"]; ok {
		var values map[string]string
		if err := json.Unmarshal(raw, &values); err != nil || values == nil {
			return bc, invalid("annotation_value", "must be an object whose values are strings")
		}
		if len(values) > maxAnnotationValues {
			return bc, invalid("annotation_value", "must have at most %d properties, got %d", maxAnnotationValues, len(values))
		}
		bc.annotation = values
	}
	raw, ok := o["branch"]
	if !ok {
		return bc, nil
	}
	bo, err := parseObject(raw, "branch.", []string{"name", "parent_id", "protected", "parent_lsn", "parent_timestamp",
		"archived", "init_source", "expires_at"})
	if err != nil {
		return bc, err
	}
	var hasName bool
	if bc.name, hasName, err = bo.str("name"); err != nil {
		return bc, invalid("branch.name", "must be a string")
	}
	if n := runeCount(bc.name); hasName && (n < 1 || n > 256) {
		return bc, invalid("branch.name", "must be 1 to 256 characters")
	}
	if bc.parentID, _, err = bo.str("parent_id"); err != nil {
		return bc, invalid("branch.parent_id", "must be a string")
	}
	if bc.protected, _, err = bo.boolean("protected"); err != nil {
		return bc, invalid("branch.protected", "must be a boolean")
	}
	if _, _, err = bo.boolean("archived"); err != nil {
		return bc, invalid("branch.archived", "must be a boolean")
	}
	lsn, hasLSN, err := bo.str("parent_lsn")
	if err != nil || hasLSN && !lsnPattern.MatchString(lsn) {
		return bc, invalid("branch.parent_lsn", "must be a Log Sequence Number such as 0/1F2E3D4")
	}
	ts, hasTS, err := bo.str("parent_timestamp")
	if err != nil {
		return bc, invalid("branch.parent_timestamp", "must be a string")
	}
	if hasTS {
		at, perr := time.Parse(time.RFC3339, ts)
		if perr != nil {
			return bc, invalid("branch.parent_timestamp", "must be an ISO 8601 time such as 2024-02-26T12:00:00Z")
		}
		if at.After(now()) {
			return bc, invalid("branch.parent_timestamp", "must not be in the future")
		}
	}
	if hasLSN && hasTS {
		return bc, invalid("branch.parent_timestamp", "give either parent_lsn or parent_timestamp, not both")
	}
	if err := bo.optEnum("init_source", []string{initParentData, initSchemaOnly}, &bc.initSource); err != nil {
		return bc, invalid("branch.init_source", "must be %s or %s", initParentData, initSchemaOnly)
	}
	expires, hasExpires, err := bo.str("expires_at")
	if err != nil {
		return bc, invalid("branch.expires_at", "must be a string")
	}
	if hasExpires {
		at, perr := time.Parse(time.RFC3339, expires)
		if perr != nil {
			return bc, invalid("branch.expires_at", "must be an RFC 3339 time such as 2025-06-09T18:02:16Z")
		}
		if !at.After(now()) {
			return bc, invalid("branch.expires_at", "must be in the future")
		}
		at = at.UTC().Truncate(time.Second)
		bc.expiresAt = &at
	}
	return bc, nil
}

// lsnPattern is a PostgreSQL Log Sequence Number, "X/Y" in hexadecimal.
var lsnPattern = regexp.MustCompile(`^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$`)

// endpointTypes are the values of EndpointType.
var endpointTypes = []string{"read_only", "read_write"}

// parseEndpointOptions checks the endpoints of a BranchCreateRequest: each an
// object with a valid type. The emulator has no computes: they are then
// ignored (no endpoint is created).
func parseEndpointOptions(o object) error {
	items, _, err := o.array("endpoints")
	if err != nil {
		return err
	}
	for i, raw := range items {
		prefix := fmt.Sprintf("endpoints[%d].", i)
		item, err := parseObject(raw, prefix, []string{"type", "settings", "autoscaling_limit_min_cu",
			"autoscaling_limit_max_cu", "provisioner", "suspend_timeout_seconds"})
		if err != nil {
			return err
		}
		typ, err := item.requiredStr("type")
		if err != nil {
			return invalid(prefix+"type", "is required")
		}
		if !slices.Contains(endpointTypes, typ) {
			return invalid(prefix+"type", "must be read_write or read_only")
		}
	}
	return nil
}

// createBranch serves POST /projects/{project_id}/branches. The body is
// optional: BranchCreateRequest with annotation_value. The new branch is a
// child of parent_id (default: the production branch) with copies of its
// databases and roles, and of its Neon Auth when that is Better Auth (see
// BranchAuth.inheritedBy); init_source schema-only makes a root branch
// without either parent or Neon Auth (see state.addBranch). annotation_value, init_source and
// expires_at are stored and returned; the fields the emulator does not model
// are checked, then ignored (it has no computes: no endpoint is created).
// Names are unique in a project (409). Answers 201 with the branch, its roles
// and databases, no endpoints and one finished create_branch operation.
func (e *Emulator) createBranch(c *call) error {
	o, err := readBody(c, true, "branch", "endpoints", "annotation_value")
	if err != nil {
		return err
	}
	bc, err := parseBranchCreate(o)
	if err != nil {
		return err
	}
	name, parentID := bc.name, bc.parentID

	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	parent := p.defaultBranch()
	if parentID != "" {
		if parent = p.branch(parentID); parent == nil {
			return notFound("branch.parent_id: branch %s does not exist in project %s", parentID, p.Project.ID)
		}
	}
	if name != "" && slices.ContainsFunc(p.Branches, func(b *branchState) bool { return b.Name == name }) {
		return conflict("a branch named %q already exists in project %s", name, p.Project.ID)
	}
	b := e.st.addBranch(p, parent, name, bc.initSource, now())
	b.Protected, b.ExpiresAt, b.Annotation = bc.protected, bc.expiresAt, bc.annotation
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, map[string]any{
		"branch":     newBranchView(&b.Branch),
		"endpoints":  []any{},
		"operations": []operation{finishedOperation(p.Project.ID, b.ID, "create_branch", b.CreatedAt)},
		"roles":      rolesOf(&b.Branch),
		"databases":  databasesOf(&b.Branch),
	})
}

// deleteBranch serves DELETE /projects/{project_id}/branches/{branch_id}:
// the branch goes at once, its Neon Auth with it; 200 with the branch and a
// finished delete_timeline operation. As on Neon, the production (default)
// branch and a branch with child branches cannot be deleted (409), nor can a
// protected one; a branch that does not exist (any more) answers 204, as the
// spec says.
func (e *Emulator) deleteBranch(c *call) error {
	if s := c.r.URL.Query().Get("hard_delete"); s != "" {
		if _, err := strconv.ParseBool(s); err != nil {
			return invalid("hard_delete", "must be true or false")
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	b := p.branch(c.param("branch_id"))
	switch {
	case b == nil:
		return c.empty(http.StatusNoContent)
	case b.Default:
		return conflict("branch %s is the default branch of project %s and cannot be deleted", b.ID, p.Project.ID)
	case p.hasChildren(b.ID):
		return conflict("branch %s has child branches: delete them first", b.ID)
	case b.Protected:
		return conflict("branch %s is protected and cannot be deleted", b.ID)
	}
	p.removeBranch(b.ID)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, map[string]any{
		"branch":     newBranchView(&b.Branch),
		"operations": []operation{finishedOperation(p.Project.ID, b.ID, "delete_timeline", now())},
	})
}
