package emulator

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The handlers of branches and the annotations of branches, and the
// operations every change answers with.

// newBranchView is a branch as the API shows it (Branch): ready, with the
// size and consumption of an idle branch.
func newBranchView(b *Branch) neonapi.Branch {
	return neonapi.Branch{
		ID:             b.ID,
		ProjectID:      b.ProjectID,
		ParentID:       nonEmpty(b.ParentID),
		Name:           b.Name,
		CurrentState:   "ready",
		StateChangedAt: b.CreatedAt,
		LogicalSize:    new(int64(30 << 20)),
		CreationSource: "console",
		Primary:        new(b.Default),
		Default:        b.Default,
		Protected:      b.Protected,
		InitSource:     new(cmp.Or(b.InitSource, initParentData)),
		ExpiresAt:      b.ExpiresAt,
		CreatedAt:      b.CreatedAt,
		UpdatedAt:      b.UpdatedAt,
	}
}

// branchAnnotation is the AnnotationData of a branch: the values given with
// annotation_value when the branch was created (none: an empty value).
func branchAnnotation(b *Branch) neonapi.AnnotationData {
	a := neonapi.AnnotationData{Object: neonapi.AnnotationObjectData{Type: "console/branch", ID: b.ID}, Value: neonapi.AnnotationValueData{}}
	maps.Copy(a.Value, b.Annotation)
	if len(b.Annotation) > 0 {
		a.CreatedAt, a.UpdatedAt = &b.CreatedAt, &b.CreatedAt
	}
	return a
}

// branchAnnotations is AnnotationsMapResponse: the annotations of the
// branches that have one, by branch id.
func branchAnnotations(bs []*branchState) map[string]neonapi.AnnotationData {
	out := map[string]neonapi.AnnotationData{}
	for _, b := range bs {
		if len(b.Annotation) > 0 {
			out[b.ID] = branchAnnotation(&b.Branch)
		}
	}
	return out
}

// finishedOperation is an Operation of the branch that finished at once, as
// every operation of the emulator does.
func finishedOperation(projectID, branchID string, action neonapi.OperationAction, at time.Time) neonapi.Operation {
	return neonapi.Operation{ID: newOperationID(), ProjectID: projectID, BranchID: new(branchID), Action: action,
		Status: neonapi.OperationStatusFinished, CreatedAt: at, UpdatedAt: at}
}

// Branch sort orders of GET /projects/{project_id}/branches.
var (
	branchSortFields = []string{"name", "created_at", "updated_at"}
	sortOrders       = []string{"asc", "desc"}
)

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
	bq := branchListQuery{search: strings.ToLower(q.Get("search")), sortBy: cmp.Or(q.Get("sort_by"), "updated_at"),
		order: cmp.Or(q.Get("sort_order"), "desc")}
	bq.limit, _ = strconv.Atoi(q.Get("limit"))
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
	var resp struct {
		neonapi.BranchesResponse
		neonapi.AnnotationsMapResponse
		neonapi.CursorPaginationResponse
	}
	resp.Branches = make([]neonapi.Branch, 0, len(page))
	for _, b := range page {
		resp.Branches = append(resp.Branches, newBranchView(&b.Branch))
	}
	resp.Annotations = branchAnnotations(page)
	if bq.limit > 0 || bq.after != nil {
		resp.Pagination = &neonapi.CursorPagination{SortBy: new(bq.sortBy), SortOrder: new(bq.order)}
		if len(page) < len(matching) {
			last := page[len(page)-1]
			resp.Pagination.Next = new(branchCursor{SortBy: bq.sortBy, Order: bq.order, Key: branchSortKey(last, bq.sortBy), Seq: last.Seq}.encode())
		}
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
	return c.json(http.StatusOK, struct {
		neonapi.BranchResponse
		neonapi.AnnotationResponse
	}{neonapi.BranchResponse{Branch: newBranchView(&b.Branch)}, neonapi.AnnotationResponse{Annotation: branchAnnotation(&b.Branch)}})
}

// Initialisation sources of a branch (BranchCreateRequest.branch.init_source).
const (
	initParentData = "parent-data"
	initSchemaOnly = "schema-only"
)

// parseBranchCreate reads the body of POST /projects/{project_id}/branches
// (BranchCreateRequest with annotation_value). Beyond the document's rules:
// parent_lsn is a Log Sequence Number, parent_timestamp is not in the
// future and not given with parent_lsn, init_source is parent-data or
// schema-only, expires_at is in the future, and at most one of the
// endpoints is read_write. Fields the emulator does not model (parent_lsn,
// parent_timestamp, archived) are checked, then ignored.
func parseBranchCreate(c *call) (neonapi.CreateProjectBranchJSONBody, error) {
	var bc neonapi.CreateProjectBranchJSONBody
	if _, err := c.decode(&bc); err != nil {
		return bc, err
	}
	bc.Branch = orZero(bc.Branch)
	if br := bc.Branch; br != nil {
		switch {
		case br.ParentLsn != nil && !lsnPattern.MatchString(*br.ParentLsn):
			return bc, invalid("branch.parent_lsn", "must be a Log Sequence Number such as 0/1F2E3D4")
		case br.ParentTimestamp != nil && br.ParentTimestamp.After(now()):
			return bc, invalid("branch.parent_timestamp", "must not be in the future")
		case br.ParentTimestamp != nil && br.ParentLsn != nil:
			return bc, invalid("branch.parent_timestamp", "give either parent_lsn or parent_timestamp, not both")
		case br.InitSource != nil && !slices.Contains([]string{initParentData, initSchemaOnly}, *br.InitSource):
			return bc, invalid("branch.init_source", "must be %s or %s", initParentData, initSchemaOnly)
		case br.ExpiresAt != nil && !br.ExpiresAt.After(now()):
			return bc, invalid("branch.expires_at", "must be in the future")
		}
		if br.ExpiresAt != nil {
			br.ExpiresAt = new(br.ExpiresAt.UTC().Truncate(time.Second))
		}
	}
	readWrite := 0
	for i, ep := range endpointOptions(bc) {
		if string(ep.Type) != endpointReadWrite {
			continue
		}
		if readWrite++; readWrite > 1 {
			return bc, invalid(fmt.Sprintf("endpoints[%d].type", i), "a branch can have only one read_write endpoint")
		}
	}
	return bc, nil
}

// endpointOptions are the endpoints a BranchCreateRequest asks for.
func endpointOptions(bc neonapi.CreateProjectBranchJSONBody) []neonapi.BranchCreateRequestEndpointOptions {
	if bc.Endpoints == nil {
		return nil
	}
	return *bc.Endpoints
}

// lsnPattern is a PostgreSQL Log Sequence Number, "X/Y" in hexadecimal.
var lsnPattern = regexp.MustCompile(`^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$`)

// createBranch serves POST /projects/{project_id}/branches. The body is
// optional: BranchCreateRequest with annotation_value. The new branch is a
// child of parent_id (default: the production branch) with copies of its
// databases and roles (their passwords too), of its Neon Auth when that is
// Better Auth (see BranchAuth.inheritedBy), and one compute endpoint per item
// of endpoints; init_source schema-only makes a root branch without either
// parent or Neon Auth (see state.addBranch). annotation_value, protected,
// init_source and expires_at are stored and returned. Names are unique in a
// project (409). Answers 201 with the branch, its endpoints, roles,
// databases, connection URIs (with a read_write endpoint) and finished
// operations.
func (e *Emulator) createBranch(c *call) error {
	bc, err := parseBranchCreate(c)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	parent := p.defaultBranch()
	if id := bc.Branch.ParentID; id != nil {
		if parent = p.branch(*id); parent == nil {
			return notFound("branch.parent_id: branch %s does not exist in project %s", *id, p.Project.ID)
		}
	}
	name := ""
	set(&name, bc.Branch.Name)
	if name != "" && slices.ContainsFunc(p.Branches, func(b *branchState) bool { return b.Name == name }) {
		return conflict("a branch named %q already exists in project %s", name, p.Project.ID)
	}
	endpoints, err := e.newEndpoints(p, endpointOptions(bc))
	if err != nil {
		return err
	}
	initSource := ""
	set(&initSource, bc.Branch.InitSource)
	b := e.st.addBranch(p, parent, name, initSource, now())
	set(&b.Protected, bc.Branch.Protected)
	b.ExpiresAt = bc.Branch.ExpiresAt
	if bc.AnnotationValue != nil {
		b.Annotation = *bc.AnnotationValue
	}
	b.Endpoints = endpoints
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, createdBranch(p, b))
}

// newEndpoints makes the endpoints a BranchCreateRequest asks for. e.mu
// must be held.
func (e *Emulator) newEndpoints(p *projectState, items []neonapi.BranchCreateRequestEndpointOptions) ([]*endpointState, error) {
	var out []*endpointState
	for i, item := range items {
		ch, err := decodeEndpointChange(item)
		if err != nil {
			return nil, err
		}
		ep := e.st.newEndpoint(p, string(item.Type), now())
		if err := applyEndpointChange(ep, ch, fmt.Sprintf("endpoints[%d].", i)); err != nil {
			return nil, err
		}
		out = append(out, ep)
	}
	return out, nil
}

// createdBranch is the answer to a branch creation (CreatedBranch).
func createdBranch(p *projectState, b *branchState) neonapi.CreatedBranch {
	ops := []neonapi.Operation{finishedOperation(p.Project.ID, b.ID, neonapi.OperationActionCreateBranch, b.CreatedAt)}
	for _, ep := range b.Endpoints {
		ops = append(ops, ep.operation(p, b, neonapi.OperationActionStartCompute))
	}
	out := neonapi.CreatedBranch{
		Branch:     newBranchView(&b.Branch),
		Endpoints:  endpointViewsOf(p, b),
		Operations: ops,
		Roles:      rolesOf(p, b, false),
		Databases:  databasesOf(&b.Branch),
	}
	if uris := connectionURIs(p, b); len(uris) > 0 {
		out.ConnectionUris = &uris
	}
	return out
}

// updateBranch serves PATCH /projects/{project_id}/branches/{branch_id}: a
// new name (unique in the project, 409), protection, and expires_at (null
// removes it; it must be in the future).
func (e *Emulator) updateBranch(c *call) error {
	var req neonapi.BranchUpdateRequest
	body, err := c.decode(&req)
	if err != nil {
		return err
	}
	f := req.Branch
	expires, clearExpiry, err := parseExpiry(body, f.ExpiresAt)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, b, err := e.visibleBranch(c, c.param("project_id"), c.param("branch_id"))
	if err != nil {
		return err
	}
	if f.Name != nil && *f.Name != b.Name && slices.ContainsFunc(p.Branches, func(x *branchState) bool { return x.Name == *f.Name }) {
		return conflict("a branch named %q already exists in project %s", *f.Name, p.Project.ID)
	}
	set(&b.Name, f.Name)
	set(&b.Protected, f.Protected)
	if expires != nil || clearExpiry {
		b.ExpiresAt = expires
	}
	b.UpdatedAt = now()
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.BranchOperations{Branch: newBranchView(&b.Branch), Operations: []neonapi.Operation{}})
}

// parseExpiry reads branch.expires_at of a BranchUpdateRequest body, which
// the generated type (at) cannot tell absent from null: absent (nil,
// false), null (nil, true: remove the expiry), or a time in the future.
func parseExpiry(body json.RawMessage, at *time.Time) (expires *time.Time, clear bool, err error) {
	var req struct {
		Branch map[string]json.RawMessage `json:"branch"`
	}
	_ = json.Unmarshal(body, &req)
	raw, given := req.Branch["expires_at"]
	switch {
	case !given:
		return nil, false, nil
	case at == nil && string(bytes.TrimSpace(raw)) == "null":
		return nil, true, nil
	case at == nil:
		return nil, false, invalid("branch.expires_at", "must be an RFC 3339 time such as 2025-06-09T18:02:16Z")
	case !at.After(now()):
		return nil, false, invalid("branch.expires_at", "must be in the future")
	}
	return new(at.UTC().Truncate(time.Second)), false, nil
}

// deleteBranch serves DELETE /projects/{project_id}/branches/{branch_id}:
// the branch goes at once, its Neon Auth with it; 200 with the branch and a
// finished delete_timeline operation. As on Neon, the production (default)
// branch and a branch with child branches cannot be deleted (409), nor can a
// protected one; a branch that does not exist (any more) answers 204, as the
// spec says.
func (e *Emulator) deleteBranch(c *call) error {
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
	return c.json(http.StatusOK, neonapi.BranchOperations{
		Branch:     newBranchView(&b.Branch),
		Operations: []neonapi.Operation{finishedOperation(p.Project.ID, b.ID, neonapi.OperationActionDeleteTimeline, now())},
	})
}
