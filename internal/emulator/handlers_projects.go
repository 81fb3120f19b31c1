package emulator

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The handlers of projects: visibility to the key, listing with cursors,
// creation and reads.

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
		// The emulator has no applications or integrations (Vercel,
		// GitHub, ...) on any project: both maps are empty.
		Applications map[string][]string `json:"applications"`
		Integrations map[string][]string `json:"integrations"`
	}{Projects: page, Applications: map[string][]string{}, Integrations: map[string][]string{}}
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
	if hasPG && (pg < 14 || pg > 18) {
		return invalid("project.pg_version", "must be from 14 to 18")
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
	b := p.defaultBranch()
	return c.json(http.StatusCreated, map[string]any{
		"project":         projectDetailOf(p.Project),
		"branch":          newBranchView(&b.Branch),
		"roles":           rolesOf(&b.Branch),
		"databases":       databasesOf(&b.Branch),
		"operations":      []operation{finishedOperation(p.Project.ID, b.ID, "create_timeline", b.CreatedAt)},
		"endpoints":       []any{}, // the emulator has no computes
		"connection_uris": []any{},
	})
}

func (e *Emulator) getProject(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, map[string]any{"project": projectDetailOf(p.Project)})
}

// projectDetail is a project as GET /projects/{project_id} shows it: the
// list's fields and the consumption of the current period (always none).
type projectDetail struct {
	Project
	ActiveTimeSeconds       int64     `json:"active_time_seconds"`
	ComputeTimeSeconds      int64     `json:"compute_time_seconds"`
	WrittenDataBytes        int64     `json:"written_data_bytes"`
	DataTransferBytes       int64     `json:"data_transfer_bytes"`
	DataStorageBytesHour    int64     `json:"data_storage_bytes_hour"`
	ConsumptionPeriodStart  time.Time `json:"consumption_period_start"`
	ConsumptionPeriodEnd    time.Time `json:"consumption_period_end"`
	HistoryRetentionSeconds int       `json:"history_retention_seconds"`
}

// historyRetention is the emulated projects' restore window: one day.
const historyRetention = 24 * 60 * 60

func projectDetailOf(p Project) projectDetail {
	t := now()
	start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return projectDetail{
		Project:                 p,
		ConsumptionPeriodStart:  start,
		ConsumptionPeriodEnd:    start.AddDate(0, 1, 0),
		HistoryRetentionSeconds: historyRetention,
	}
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
	return c.json(http.StatusOK, map[string]any{"project": projectDetailOf(p.Project)})
}
