package emulator

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The operations of a project: every write that answers operations records
// them (all finished at once), and GET /projects/{project_id}/operations
// lists them, newest first, with cursor pagination.

// maxOperations is how many operations a project keeps; older ones are
// dropped, as Neon drops those older than six months (the reference:
// "Operations older than 6 months may be deleted from our systems").
const maxOperations = 1000

// recordOperation keeps op as the project's newest operation.
func (p *projectState) recordOperation(op neonapi.Operation) {
	p.Operations = append(p.Operations, op)
	if over := len(p.Operations) - maxOperations; over > 0 {
		p.Operations = slices.Delete(p.Operations, 0, over)
	}
}

// operationCursor is the cursor of a page that ends with op.
func operationCursor(op neonapi.Operation) string {
	return base64.RawURLEncoding.EncodeToString([]byte("o:" + op.ID.String()))
}

// listOperations serves GET /projects/{project_id}/operations: the newest
// first, limit per page (default defaultPageLimit; the reference checks
// 1–1000), each non-empty page with the cursor of its last operation; a page
// past the end is empty and has no pagination object.
func (e *Emulator) listOperations(c *call) error {
	q := c.r.URL.Query()
	limit := defaultPageLimit
	if n, err := strconv.Atoi(q.Get("limit")); err == nil {
		limit = n
	}
	var after uuid.UUID
	if s := q.Get("cursor"); s != "" {
		b, err := base64.RawURLEncoding.DecodeString(s)
		rest, ok := strings.CutPrefix(string(b), "o:")
		id, uerr := uuid.Parse(rest)
		if err != nil || !ok || uerr != nil {
			return invalid("cursor", "is not a cursor returned by this endpoint")
		}
		after = id
	}
	return e.inProject(c, func(p *projectState) error {
		start := len(p.Operations) - 1 // the newest
		if after != uuid.Nil {
			i := slices.IndexFunc(p.Operations, func(op neonapi.Operation) bool { return op.ID == after })
			if i < 0 {
				return invalid("cursor", "names an operation this project no longer keeps; list again without a cursor")
			}
			start = i - 1
		}
		resp := neonapi.ListOperations{Operations: []neonapi.Operation{}}
		for i := start; i >= 0 && len(resp.Operations) < limit; i-- {
			resp.Operations = append(resp.Operations, p.Operations[i])
		}
		if n := len(resp.Operations); n > 0 {
			resp.Pagination = &neonapi.Pagination{Cursor: operationCursor(resp.Operations[n-1])}
		}
		return c.json(http.StatusOK, resp)
	})
}

// getOperation serves GET /projects/{project_id}/operations/{operation_id}.
func (e *Emulator) getOperation(c *call) error {
	return e.inProject(c, func(p *projectState) error {
		id, err := uuid.Parse(c.param("operation_id"))
		i := slices.IndexFunc(p.Operations, func(op neonapi.Operation) bool { return err == nil && op.ID == id })
		if i < 0 {
			return notFound("operation %s not found in project %s", c.param("operation_id"), p.Project.ID)
		}
		return c.json(http.StatusOK, neonapi.OperationResponse{Operation: p.Operations[i]})
	})
}
