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

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The branch endpoints: listing sorted and paged by cursor, creating,
// reading, updating and deleting a branch.

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

// branchListQuery is the query of GET .../branches, which the reference
// has checked, but for the cursor.
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
		var bc branchCursor
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || json.Unmarshal(b, &bc) != nil || !slices.Contains(branchSortFields, bc.SortBy) || !slices.Contains(sortOrders, bc.Order) {
			return bq, invalid("cursor", "is not a cursor returned by this endpoint")
		}
		if bc.SortBy != bq.sortBy || bc.Order != bq.order {
			return bq, invalid("cursor", "belongs to the order sort_by=%s&sort_order=%s; ask for the same order", bc.SortBy, bc.Order)
		}
		bq.after = &bc
	}
	return bq, nil
}

// compare orders two branches in the query's order; the sequence number
// breaks ties the same way.
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
	return e.inProject(c, func(p *projectState) error {
		matching := slices.DeleteFunc(slices.Clone(p.Branches), func(b *branchState) bool {
			return bq.search != "" && !strings.Contains(strings.ToLower(b.Name), bq.search) && !strings.Contains(b.ID, bq.search) ||
				bq.after != nil && bq.compare(branchSortKey(b, bq.sortBy), b.Seq, bq.after.Key, bq.after.Seq) <= 0
		})
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
		resp.Branches, resp.Annotations = []neonapi.Branch{}, map[string]neonapi.AnnotationData{}
		for _, b := range page {
			resp.Branches = append(resp.Branches, newBranchView(&b.Branch))
			if len(b.Annotation) > 0 {
				resp.Annotations[b.ID] = branchAnnotation(&b.Branch)
			}
		}
		if bq.limit > 0 || bq.after != nil {
			resp.Pagination = &neonapi.CursorPagination{SortBy: new(bq.sortBy), SortOrder: new(bq.order)}
			if len(page) < len(matching) {
				last := page[len(page)-1]
				next, _ := json.Marshal(branchCursor{SortBy: bq.sortBy, Order: bq.order, Key: branchSortKey(last, bq.sortBy), Seq: last.Seq})
				resp.Pagination.Next = new(base64.RawURLEncoding.EncodeToString(next))
			}
		}
		return c.json(http.StatusOK, resp)
	})
}

// getBranch serves GET /projects/{project_id}/branches/{branch_id}.
func (e *Emulator) getBranch(c *call) error {
	return e.inBranch(c, func(_ *projectState, b *branchState) error {
		return c.json(http.StatusOK, struct {
			neonapi.BranchResponse
			neonapi.AnnotationResponse
		}{neonapi.BranchResponse{Branch: newBranchView(&b.Branch)}, neonapi.AnnotationResponse{Annotation: branchAnnotation(&b.Branch)}})
	})
}

// lsnPattern is a PostgreSQL Log Sequence Number, "X/Y" in hexadecimal.
var lsnPattern = regexp.MustCompile(`^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$`)

// parseBranchCreate reads a BranchCreateRequest with annotation_value and
// checks what the document cannot say: a Log Sequence Number, times in the
// past or future, the init sources, one read_write endpoint at most. Fields
// the emulator does not model (parent_lsn, parent_timestamp, archived) are
// checked, then ignored.
func parseBranchCreate(c *call) (neonapi.CreateProjectBranchJSONBody, error) {
	var bc neonapi.CreateProjectBranchJSONBody
	if _, err := c.decode(&bc); err != nil {
		return bc, err
	}
	br := orZero(bc.Branch)
	bc.Branch = br
	switch {
	case br.ParentLsn != nil && !lsnPattern.MatchString(*br.ParentLsn):
		return bc, invalid("branch.parent_lsn", "must be a Log Sequence Number such as 0/1F2E3D4")
	case br.ParentTimestamp != nil && br.ParentTimestamp.After(now()):
		return bc, invalid("branch.parent_timestamp", "must not be in the future")
	case br.ParentTimestamp != nil && br.ParentLsn != nil:
		return bc, invalid("branch.parent_timestamp", "give either parent_lsn or parent_timestamp, not both")
	case br.InitSource != nil && *br.InitSource != initParentData && *br.InitSource != initSchemaOnly:
		return bc, invalid("branch.init_source", "must be %s or %s", initParentData, initSchemaOnly)
	case br.ExpiresAt != nil && !br.ExpiresAt.After(now()):
		return bc, invalid("branch.expires_at", "must be in the future")
	case br.ExpiresAt != nil:
		br.ExpiresAt = new(br.ExpiresAt.UTC().Truncate(time.Second))
	}
	readWrite := 0
	for i, ep := range *orZero(bc.Endpoints) {
		if string(ep.Type) == endpointReadWrite {
			readWrite++
		}
		if readWrite > 1 {
			return bc, invalid(fmt.Sprintf("endpoints[%d].type", i), "a branch can have only one read_write endpoint")
		}
	}
	return bc, nil
}

// createBranch serves POST /projects/{project_id}/branches (an optional
// body): a branch made from parent_id (default: the production branch) as
// state.addBranch makes one, with one compute endpoint per item of
// endpoints. Names are unique in a project (409). Answers 201
// (createdBranch).
func (e *Emulator) createBranch(c *call) error {
	bc, err := parseBranchCreate(c)
	if err != nil {
		return err
	}
	return e.inProject(c, func(p *projectState) error {
		br := bc.Branch
		parent := p.defaultBranch()
		if br.ParentID != nil {
			if parent = p.branch(*br.ParentID); parent == nil {
				return notFound("branch.parent_id: branch %s does not exist in project %s", *br.ParentID, p.Project.ID)
			}
		}
		if name := *orZero(br.Name); name != "" && p.branchNamed(name) {
			return conflict("a branch named %q already exists in project %s", name, p.Project.ID)
		}
		var endpoints []*endpointState
		for i, item := range *orZero(bc.Endpoints) {
			ep := newEndpoint(e.st.nextEndpointID(), p.Project, string(item.Type), now())
			if err := changeEndpoint(ep, item, fmt.Sprintf("endpoints[%d].", i)); err != nil {
				return err
			}
			endpoints = append(endpoints, ep)
		}
		b := e.st.addBranch(p, parent, *orZero(br.Name), *orZero(br.InitSource), now())
		set(&b.Protected, br.Protected)
		b.ExpiresAt = br.ExpiresAt
		b.Annotation = *orZero(bc.AnnotationValue)
		b.Endpoints = endpoints
		return e.saved(c, http.StatusCreated, createdBranch(p, b))
	})
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
	// The generated type cannot tell expires_at absent from null, which
	// removes the expiry.
	var members struct {
		Branch map[string]json.RawMessage `json:"branch"`
	}
	_ = json.Unmarshal(body, &members)
	_, expiryGiven := members.Branch["expires_at"]
	if f.ExpiresAt != nil && !f.ExpiresAt.After(now()) {
		return invalid("branch.expires_at", "must be in the future")
	}
	return e.inBranch(c, func(p *projectState, b *branchState) error {
		if f.Name != nil && *f.Name != b.Name && p.branchNamed(*f.Name) {
			return conflict("a branch named %q already exists in project %s", *f.Name, p.Project.ID)
		}
		set(&b.Name, f.Name)
		set(&b.Protected, f.Protected)
		if expiryGiven {
			b.ExpiresAt = nil
			if f.ExpiresAt != nil {
				b.ExpiresAt = new(f.ExpiresAt.UTC().Truncate(time.Second))
			}
		}
		b.UpdatedAt = now()
		return e.saved(c, http.StatusOK, neonapi.BranchOperations{Branch: newBranchView(&b.Branch), Operations: []neonapi.Operation{}})
	})
}

// deleteBranch serves DELETE /projects/{project_id}/branches/{branch_id}:
// the branch goes at once, its Neon Auth with it; 200 with the branch and a
// finished delete_timeline operation. As on Neon, the production (default)
// branch and a branch with child branches cannot be deleted (409), nor can a
// protected one; a branch that does not exist (any more) answers 204, as the
// spec says.
func (e *Emulator) deleteBranch(c *call) error {
	return e.inProject(c, func(p *projectState) error {
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
		p.Branches = slices.DeleteFunc(p.Branches, func(x *branchState) bool { return x == b })
		return e.saved(c, http.StatusOK, neonapi.BranchOperations{
			Branch:     newBranchView(&b.Branch),
			Operations: []neonapi.Operation{p.operation(b.ID, "", neonapi.OperationActionDeleteTimeline, now())},
		})
	})
}
