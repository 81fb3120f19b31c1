package emulator

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	defaultPageLimit = 10
	maxPageLimit     = 400
)

// visibleProject returns the project if it exists and the caller's key may
// see it; otherwise 404 "project not found" in both cases, so that a
// project-scoped key cannot tell other projects from missing ones.
// e.mu must be held.
func (e *Emulator) visibleProject(c *call, id string) (*projectState, error) {
	p := e.st.project(id)
	if p == nil || !c.key.canSee(id) {
		return nil, errProjectNotFound
	}
	return p, nil
}

// listProjects serves GET /projects with cursor pagination. Every non-empty
// page carries {"pagination":{"cursor":...}} (the position after its last
// project); a page past the end is empty and has no pagination object.
func (e *Emulator) listProjects(c *call) error {
	q := c.r.URL.Query()
	limit := defaultPageLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPageLimit {
			return invalid("limit", "must be an integer from 1 to %d", maxPageLimit)
		}
		limit = n
	}
	var after uint64
	if s := q.Get("cursor"); s != "" {
		n, ok := decodeCursor(s)
		if !ok {
			return invalid("cursor", "is not a cursor returned by this endpoint")
		}
		after = n
	}
	search := strings.ToLower(q.Get("search"))
	orgID := q.Get("org_id")

	e.mu.Lock()
	defer e.mu.Unlock()
	page := []Project{}
	var last uint64
	for _, p := range e.st.Projects {
		if p.Seq <= after || !c.key.canSee(p.Project.ID) {
			continue
		}
		if orgID != "" && orgID != p.Project.OrgID {
			continue
		}
		if search != "" && !strings.Contains(strings.ToLower(p.Project.Name), search) &&
			!strings.Contains(p.Project.ID, search) {
			continue
		}
		if len(page) == limit {
			break
		}
		page = append(page, p.Project)
		last = p.Seq
	}
	resp := struct {
		Projects   []Project   `json:"projects"`
		Pagination *pagination `json:"pagination,omitempty"`
	}{Projects: page}
	if len(page) > 0 {
		resp.Pagination = &pagination{Cursor: encodeCursor(last)}
	}
	return c.json(http.StatusOK, resp)
}

type pagination struct {
	Cursor string `json:"cursor"`
}

func encodeCursor(seq uint64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("p:" + strconv.FormatUint(seq, 10)))
}

func decodeCursor(s string) (uint64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(b), "p:")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil
}

// createProjectAPI serves POST /projects: {"project":{"name","region_id","pg_version"}}.
func (e *Emulator) createProjectAPI(c *call) error {
	if c.key.kind == KeyProject {
		return forbidden("project-scoped API keys cannot create projects")
	}
	o, err := readBody(c, false, "project")
	if err != nil {
		return err
	}
	raw, ok := o["project"]
	if !ok {
		return invalid("project", "is required")
	}
	po, err := parseObject(raw, "project.", []string{"name", "region_id", "pg_version"})
	if err != nil {
		return err
	}
	name, present, err := po.str("name")
	if err != nil {
		return invalid("project.name", "must be a string")
	}
	if present && (name == "" || utf8.RuneCountInString(name) > 256) {
		return invalid("project.name", "must be 1 to 256 characters")
	}
	region, hasRegion, err := po.str("region_id")
	if err != nil {
		return invalid("project.region_id", "must be a string")
	}
	pg, hasPG, err := po.integer("pg_version")
	if err != nil {
		return invalid("project.pg_version", "must be an integer")
	}
	if hasPG && (pg < 14 || pg > 17) {
		return invalid("project.pg_version", "must be 14, 15, 16 or 17")
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.st.addProject(name, now())
	if hasRegion && region != "" {
		p.Project.RegionID = region
	}
	if hasPG {
		p.Project.PGVersion = int(pg)
	}
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, map[string]any{
		"project": p.Project,
		"branch":  newBranchView(&p.defaultBranch().Branch),
	})
}

func (e *Emulator) getProject(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, map[string]any{"project": p.Project})
}

// deleteProject serves DELETE /projects/{project_id}. Project-scoped keys are
// refused with 403, whichever project they name. The project's scoped keys
// stop working.
func (e *Emulator) deleteProject(c *call) error {
	if c.key.kind == KeyProject {
		return forbidden("project-scoped API keys cannot delete projects")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	e.st.removeProject(p.Project.ID)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, map[string]any{"project": p.Project})
}

// branchView is a Branch as the API shows it.
type branchView struct {
	ID                 string    `json:"id"`
	ProjectID          string    `json:"project_id"`
	ParentID           string    `json:"parent_id,omitempty"`
	Name               string    `json:"name"`
	CurrentState       string    `json:"current_state"`
	StateChangedAt     time.Time `json:"state_changed_at"`
	LogicalSize        int64     `json:"logical_size"`
	CreationSource     string    `json:"creation_source"`
	Primary            bool      `json:"primary"`
	Default            bool      `json:"default"`
	Protected          bool      `json:"protected"`
	CPUUsedSec         int64     `json:"cpu_used_sec"`
	ComputeTimeSeconds int64     `json:"compute_time_seconds"`
	ActiveTimeSeconds  int64     `json:"active_time_seconds"`
	WrittenDataBytes   int64     `json:"written_data_bytes"`
	DataTransferBytes  int64     `json:"data_transfer_bytes"`
	InitSource         string    `json:"init_source"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
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
		InitSource:     "parent-data",
		CreatedAt:      b.CreatedAt,
		UpdatedAt:      b.UpdatedAt,
	}
}

func (e *Emulator) listBranches(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	out := make([]branchView, 0, len(p.Branches))
	for _, b := range p.Branches {
		out = append(out, newBranchView(&b.Branch))
	}
	return c.json(http.StatusOK, map[string]any{"branches": out})
}

func (e *Emulator) getBranch(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	b := p.branch(c.param("branch_id"))
	if b == nil {
		return errBranchNotFound
	}
	return c.json(http.StatusOK, map[string]any{"branch": newBranchView(&b.Branch)})
}
