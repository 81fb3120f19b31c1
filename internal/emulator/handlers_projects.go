package emulator

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The project endpoints: who may see a project, listing with cursor
// pagination, creating, reading, updating and deleting one.

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

// projectCreate is what the emulator keeps of a valid ProjectCreateRequest
// (internal/apispec decides which fields it may hold and their values).
type projectCreate struct {
	Name                    *string         `json:"name"`
	RegionID                *string         `json:"region_id"`
	PGVersion               *int            `json:"pg_version"`
	Provisioner             *string         `json:"provisioner"`
	StorePasswords          *bool           `json:"store_passwords"`
	HistoryRetentionSeconds *int            `json:"history_retention_seconds"`
	OrgID                   *string         `json:"org_id"`
	Settings                json.RawMessage `json:"settings"`
	DefaultEndpointSettings json.RawMessage `json:"default_endpoint_settings"`
	// The deprecated forms of default_endpoint_settings' limits.
	MinCU  *float64 `json:"autoscaling_limit_min_cu"`
	MaxCU  *float64 `json:"autoscaling_limit_max_cu"`
	Branch struct {
		Name         *string           `json:"name"`
		RoleName     *string           `json:"role_name"`
		DatabaseName *string           `json:"database_name"`
		Annotations  map[string]string `json:"annotations"`
	} `json:"branch"`
}

// parseProjectCreate reads a ProjectCreateRequest. Beyond the document's
// rules, the default branch's role and database names must not be empty,
// and the default compute's maximum size must not be below its minimum.
func parseProjectCreate(o object) (projectCreate, error) {
	var pc projectCreate
	if err := json.Unmarshal(o["project"], &pc); err != nil {
		return pc, invalid("project", "must be a JSON object")
	}
	if v := pc.Branch.RoleName; v != nil && *v == "" {
		return pc, invalid("project.branch.role_name", "must not be empty")
	}
	if v := pc.Branch.DatabaseName; v != nil && *v == "" {
		return pc, invalid("project.branch.database_name", "must not be empty")
	}
	limits := map[string]any{}
	if pc.MinCU != nil {
		limits["autoscaling_limit_min_cu"] = *pc.MinCU
	}
	if pc.MaxCU != nil {
		limits["autoscaling_limit_max_cu"] = *pc.MaxCU
	}
	if len(limits) > 0 {
		deprecated, _ := json.Marshal(limits)
		pc.DefaultEndpointSettings = mergeJSON(deprecated, pc.DefaultEndpointSettings)
	}
	if err := checkComputeLimits("project.default_endpoint_settings.", pc.DefaultEndpointSettings); err != nil {
		return pc, err
	}
	return pc, nil
}

// checkComputeLimits refuses settings whose maximum compute is below their
// minimum (DefaultEndpointSettings, or an endpoint's own fields).
func checkComputeLimits(prefix string, raw json.RawMessage) error {
	var lim struct {
		Min *float64 `json:"autoscaling_limit_min_cu"`
		Max *float64 `json:"autoscaling_limit_max_cu"`
	}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &lim)
	}
	if lim.Min != nil && lim.Max != nil && *lim.Max < *lim.Min {
		return invalid(prefix+"autoscaling_limit_max_cu", "must not be less than autoscaling_limit_min_cu (%s)", number(*lim.Min))
	}
	return nil
}

// apply sets what the request gave on a new project and its default branch.
func (pc projectCreate) apply(p *projectState) {
	pr := &p.Project
	if pc.RegionID != nil && *pc.RegionID != "" {
		pr.RegionID, pr.PlatformID, pr.ProxyHost = *pc.RegionID, platformOf(*pc.RegionID), proxyHostOf(*pc.RegionID)
	}
	set(&pr.PGVersion, pc.PGVersion)
	set(&pr.StorePasswords, pc.StorePasswords)
	set(&pr.HistoryRetentionSeconds, pc.HistoryRetentionSeconds)
	set(&pr.OrgID, pc.OrgID)
	if pc.Provisioner != nil && *pc.Provisioner != "" {
		pr.Provisioner = *pc.Provisioner
	}
	if len(pc.Settings) > 0 {
		pr.Settings = mergeJSON(pr.Settings, pc.Settings)
	}
	if len(pc.DefaultEndpointSettings) > 0 {
		pr.DefaultEndpointSettings = mergeJSON(nil, pc.DefaultEndpointSettings)
	}
	b := p.defaultBranch()
	set(&b.Name, pc.Branch.Name)
	if len(pc.Branch.Annotations) > 0 {
		b.Annotation = pc.Branch.Annotations
	}
	db := defaultDatabaseName
	set(&db, pc.Branch.DatabaseName)
	role := defaultRoleName
	if pc.Branch.DatabaseName != nil {
		role = db + "_owner"
	}
	set(&role, pc.Branch.RoleName)
	b.Databases[0].Name, b.Databases[0].OwnerName = db, role
	b.RoleStates[role] = b.RoleStates[b.Roles[0]]
	if role != b.Roles[0] {
		delete(b.RoleStates, b.Roles[0])
	}
	b.Roles[0] = role
	size := p.computeDefaults()
	for _, ep := range b.Endpoints {
		ep.MinCU, ep.MaxCU, ep.SuspendTimeoutSeconds, ep.Provisioner = size.minCU, size.maxCU, size.suspend, pr.Provisioner
	}
}

// set copies a value that was given.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// createProjectAPI serves POST /projects: a ProjectCreateRequest as the API
// reference defines it. What the emulator models is stored and returned
// (name, region, Postgres version, provisioner, store_passwords, history
// retention, organization, settings, the default compute's settings, the
// default branch's name, annotations, database and role); the other fields
// are checked and ignored. The answer holds the default branch, its
// read_write endpoint, its role with its password and the connection URI.
func (e *Emulator) createProjectAPI(c *call) error {
	if c.key.kind == KeyProject {
		return forbidden("project-scoped API keys cannot create projects")
	}
	o, err := readDocumentBody(c, false)
	if err != nil {
		return err
	}
	pc, err := parseProjectCreate(o)
	if err != nil {
		return err
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	name := ""
	set(&name, pc.Name)
	p := e.st.addProject(name, now())
	pc.apply(p)
	if err := e.saveLocked(); err != nil {
		return err
	}
	b := p.defaultBranch()
	ep := b.readWriteEndpoint()
	return c.json(http.StatusCreated, map[string]any{
		"project":         projectDetailOf(p.Project),
		"branch":          newBranchView(&b.Branch),
		"roles":           rolesOf(p, b, true),
		"databases":       databasesOf(&b.Branch),
		"operations":      []operation{finishedOperation(p.Project.ID, b.ID, "create_timeline", b.CreatedAt), ep.operation(p, b, "start_compute")},
		"endpoints":       []endpointView{endpointViewOf(p, b, ep)},
		"connection_uris": connectionURIs(p, b),
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

// projectUpdate is what the emulator keeps of a valid ProjectUpdateRequest.
type projectUpdate struct {
	Name                    *string         `json:"name"`
	HistoryRetentionSeconds *int            `json:"history_retention_seconds"`
	Settings                json.RawMessage `json:"settings"`
	DefaultEndpointSettings json.RawMessage `json:"default_endpoint_settings"`
}

// updateProject serves PATCH /projects/{project_id}: the name, the history
// retention, settings and the default compute's settings change as given
// (settings and default_endpoint_settings merge into what the project has:
// a field left out keeps its value). Existing endpoints keep their size.
func (e *Emulator) updateProject(c *call) error {
	o, err := readDocumentBody(c, false)
	if err != nil {
		return err
	}
	var pu projectUpdate
	if err := json.Unmarshal(o["project"], &pu); err != nil {
		return invalid("project", "must be a JSON object")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	defaults := p.Project.DefaultEndpointSettings
	if len(pu.DefaultEndpointSettings) > 0 {
		defaults = mergeJSON(defaults, pu.DefaultEndpointSettings)
		if err := checkComputeLimits("project.default_endpoint_settings.", defaults); err != nil {
			return err
		}
	}
	pr := &p.Project
	set(&pr.Name, pu.Name)
	set(&pr.HistoryRetentionSeconds, pu.HistoryRetentionSeconds)
	if len(pu.Settings) > 0 {
		pr.Settings = mergeJSON(pr.Settings, pu.Settings)
	}
	pr.DefaultEndpointSettings = defaults
	pr.UpdatedAt = now()
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, map[string]any{"project": projectDetailOf(p.Project), "operations": []operation{}})
}

// projectDetail is a project as GET /projects/{project_id} shows it: the
// list's fields and the consumption of the current period (always none).
type projectDetail struct {
	Project
	ActiveTimeSeconds      int64     `json:"active_time_seconds"`
	ComputeTimeSeconds     int64     `json:"compute_time_seconds"`
	WrittenDataBytes       int64     `json:"written_data_bytes"`
	DataTransferBytes      int64     `json:"data_transfer_bytes"`
	DataStorageBytesHour   int64     `json:"data_storage_bytes_hour"`
	ConsumptionPeriodStart time.Time `json:"consumption_period_start"`
	ConsumptionPeriodEnd   time.Time `json:"consumption_period_end"`
}

// historyRetention is a new project's restore window: one day.
const historyRetention = 24 * 60 * 60

func projectDetailOf(p Project) projectDetail {
	t := now()
	start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return projectDetail{
		Project:                p,
		ConsumptionPeriodStart: start,
		ConsumptionPeriodEnd:   start.AddDate(0, 1, 0),
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
