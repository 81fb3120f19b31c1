package emulator

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The project endpoints: who may see a project, listing with cursor
// pagination, creating, reading, updating and deleting one.

const defaultPageLimit = 10

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
	limit := defaultPageLimit // the reference has checked a limit given
	if n, err := strconv.Atoi(q.Get("limit")); err == nil {
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
		if orgID != "" && (p.Project.OrgID == nil || orgID != *p.Project.OrgID) {
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
	// The emulator has no applications or integrations (Vercel, GitHub,
	// ...) on any project: both maps are empty.
	resp := struct {
		neonapi.ProjectsResponse
		neonapi.PaginationResponse
		neonapi.ProjectsApplicationsMapResponse
		neonapi.ProjectsIntegrationsMapResponse
	}{ProjectsResponse: neonapi.ProjectsResponse{Projects: page}}
	resp.Applications = map[string][]neonapi.ApplicationType{}
	resp.Integrations = map[string][]neonapi.ApplicationType{}
	if len(page) > 0 {
		resp.Pagination = &neonapi.Pagination{Cursor: encodeCursor(last)}
	}
	return c.json(http.StatusOK, resp)
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

// parseProjectCreate reads a ProjectCreateRequest. Beyond the document's
// rules, the default branch's role and database names must not be empty,
// and the default compute's maximum size must not be below its minimum.
// The deprecated project-level compute limits count where
// default_endpoint_settings does not set its own.
func parseProjectCreate(c *call) (neonapi.ProjectCreateRequest, error) {
	var req neonapi.ProjectCreateRequest
	if _, err := c.decode(&req); err != nil {
		return req, err
	}
	pc := &req.Project
	if br := pc.Branch; br != nil {
		if v := br.RoleName; v != nil && *v == "" {
			return req, invalid("project.branch.role_name", "must not be empty")
		}
		if v := br.DatabaseName; v != nil && *v == "" {
			return req, invalid("project.branch.database_name", "must not be empty")
		}
	}
	if pc.AutoscalingLimitMinCu != nil || pc.AutoscalingLimitMaxCu != nil {
		d := clonePtr(pc.DefaultEndpointSettings)
		if d == nil {
			d = &neonapi.DefaultEndpointSettings{}
		}
		d.AutoscalingLimitMinCu = cmp.Or(d.AutoscalingLimitMinCu, pc.AutoscalingLimitMinCu)
		d.AutoscalingLimitMaxCu = cmp.Or(d.AutoscalingLimitMaxCu, pc.AutoscalingLimitMaxCu)
		pc.DefaultEndpointSettings = d
	}
	if err := checkComputeLimits("project.default_endpoint_settings.", pc.DefaultEndpointSettings); err != nil {
		return req, err
	}
	return req, nil
}

// checkComputeLimits refuses default compute settings whose maximum is
// below their minimum.
func checkComputeLimits(prefix string, d *neonapi.DefaultEndpointSettings) error {
	if d == nil || d.AutoscalingLimitMinCu == nil || d.AutoscalingLimitMaxCu == nil {
		return nil
	}
	if minCU := computeUnits(*d.AutoscalingLimitMinCu); computeUnits(*d.AutoscalingLimitMaxCu) < minCU {
		return invalid(prefix+"autoscaling_limit_max_cu", "must not be less than autoscaling_limit_min_cu (%s)", number(minCU))
	}
	return nil
}

// applyProjectCreate sets what the request gave on a new project and its
// default branch.
func applyProjectCreate(req neonapi.ProjectCreateRequest, p *projectState) {
	pc, pr := req.Project, &p.Project
	if pc.RegionID != nil && *pc.RegionID != "" {
		pr.RegionID, pr.PlatformID, pr.ProxyHost = *pc.RegionID, platformOf(*pc.RegionID), proxyHostOf(*pc.RegionID)
	}
	set(&pr.PgVersion, pc.PgVersion)
	set(&pr.StorePasswords, pc.StorePasswords)
	if pc.HistoryRetentionSeconds != nil {
		pr.HistoryRetentionSeconds = new(*pc.HistoryRetentionSeconds)
	}
	if pc.OrgID != nil {
		pr.OrgID = new(*pc.OrgID)
	}
	if pc.Provisioner != nil && *pc.Provisioner != "" {
		pr.Provisioner = *pc.Provisioner
	}
	pr.Settings = merged(pr.Settings, pc.Settings)
	if pc.DefaultEndpointSettings != nil {
		pr.DefaultEndpointSettings = clonePtr(pc.DefaultEndpointSettings)
	}
	applyDefaultBranch(req, p)
}

// applyDefaultBranch names a new project's default branch, its database and
// role as the request asks, and sizes its endpoint by the project's
// defaults.
func applyDefaultBranch(req neonapi.ProjectCreateRequest, p *projectState) {
	b := p.defaultBranch()
	db, role := defaultDatabaseName, defaultRoleName
	if br := req.Project.Branch; br != nil {
		set(&b.Name, br.Name)
		if br.Annotations != nil && len(*br.Annotations) > 0 {
			b.Annotation = maps.Clone(*br.Annotations)
		}
		if br.DatabaseName != nil {
			db = *br.DatabaseName
			role = db + "_owner"
		}
		set(&role, br.RoleName)
	}
	b.Databases[0].Name, b.Databases[0].OwnerName = db, role
	b.RoleStates[role] = b.RoleStates[b.Roles[0]]
	if role != b.Roles[0] {
		delete(b.RoleStates, b.Roles[0])
	}
	b.Roles[0] = role
	size := p.computeDefaults()
	for _, ep := range b.Endpoints {
		ep.MinCU, ep.MaxCU, ep.SuspendTimeoutSeconds, ep.Provisioner = size.minCU, size.maxCU, size.suspend, p.Project.Provisioner
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
	pc, err := parseProjectCreate(c)
	if err != nil {
		return err
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	name := ""
	set(&name, pc.Project.Name)
	p := e.st.addProject(name, now())
	applyProjectCreate(pc, p)
	if err := e.saveLocked(); err != nil {
		return err
	}
	b := p.defaultBranch()
	ep := b.readWriteEndpoint()
	return c.json(http.StatusCreated, neonapi.CreatedProject{
		Project:        projectDetailOf(p.Project),
		Branch:         newBranchView(&b.Branch),
		Roles:          rolesOf(p, b, true),
		Databases:      databasesOf(&b.Branch),
		Operations:     []neonapi.Operation{finishedOperation(p.Project.ID, b.ID, neonapi.OperationActionCreateTimeline, b.CreatedAt), ep.operation(p, b, neonapi.OperationActionStartCompute)},
		Endpoints:      []neonapi.Endpoint{endpointViewOf(p, b, ep)},
		ConnectionUris: connectionURIs(p, b),
	})
}

func (e *Emulator) getProject(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	return c.json(http.StatusOK, neonapi.ProjectResponse{Project: projectDetailOf(p.Project)})
}

// updateProject serves PATCH /projects/{project_id}: the name, the history
// retention, settings and the default compute's settings change as given
// (settings and default_endpoint_settings merge into what the project has:
// a field left out keeps its value). Existing endpoints keep their size.
func (e *Emulator) updateProject(c *call) error {
	var req neonapi.ProjectUpdateRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	pu := req.Project
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	defaults := p.Project.DefaultEndpointSettings
	if pu.DefaultEndpointSettings != nil {
		defaults = merged(defaults, pu.DefaultEndpointSettings)
		if err := checkComputeLimits("project.default_endpoint_settings.", defaults); err != nil {
			return err
		}
	}
	pr := &p.Project
	set(&pr.Name, pu.Name)
	if pu.HistoryRetentionSeconds != nil {
		pr.HistoryRetentionSeconds = new(*pu.HistoryRetentionSeconds)
	}
	pr.Settings = merged(pr.Settings, pu.Settings)
	pr.DefaultEndpointSettings = defaults
	pr.UpdatedAt = now()
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, struct {
		neonapi.ProjectResponse
		neonapi.OperationsResponse
	}{neonapi.ProjectResponse{Project: projectDetailOf(p.Project)}, neonapi.OperationsResponse{Operations: []neonapi.Operation{}}})
}

// historyRetention is a new project's restore window: one day.
const historyRetention = 24 * 60 * 60

// projectDetailOf is a project as GET /projects/{project_id} shows it: the
// fields the reference's Project shares with the list's, and the
// consumption of the current period (always none).
func projectDetailOf(p Project) neonapi.Project {
	var d neonapi.Project
	if err := convertShape(p, &d); err != nil {
		panic(fmt.Sprintf("emulator: project %s: %v", p.ID, err))
	}
	t := now()
	d.ConsumptionPeriodStart = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	d.ConsumptionPeriodEnd = d.ConsumptionPeriodStart.AddDate(0, 1, 0)
	return d
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
	return c.json(http.StatusOK, neonapi.ProjectResponse{Project: projectDetailOf(p.Project)})
}
