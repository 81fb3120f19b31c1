package emulator

import (
	"cmp"
	"encoding/base64"
	"maps"
	"net/http"
	"strconv"
	"strings"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The project endpoints: listing with cursor pagination, creating, reading,
// updating and deleting a project.

const defaultPageLimit = 10

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
		b, err := base64.RawURLEncoding.DecodeString(s)
		rest, ok := strings.CutPrefix(string(b), "p:")
		n, nerr := strconv.ParseUint(rest, 10, 64)
		if err != nil || !ok || nerr != nil {
			return invalid("cursor", "is not a cursor returned by this endpoint")
		}
		after = n
	}
	search, orgID := strings.ToLower(q.Get("search")), q.Get("org_id")

	e.mu.Lock()
	defer e.mu.Unlock()
	// recoverable=true lists only the projects deleted within their
	// recovery window (the reference's "Show only deleted projects within
	// the recovery window").
	candidates := make([]*projectState, 0, len(e.st.Projects))
	if q.Get("recoverable") == "true" {
		for _, d := range e.st.recoverable(now()) {
			candidates = append(candidates, &projectState{Seq: d.Seq, Project: d.Project})
		}
	} else {
		candidates = e.st.Projects
	}
	page := []Project{}
	var last uint64
	for _, p := range candidates {
		switch {
		case p.Seq <= after || !c.key.canSee(p.Project.ID):
		case orgID != "" && (p.Project.OrgID == nil || orgID != *p.Project.OrgID):
		case search != "" && !strings.Contains(strings.ToLower(p.Project.Name), search) && !strings.Contains(p.Project.ID, search):
		case len(page) < limit:
			page = append(page, p.Project)
			last = p.Seq
		}
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
		resp.Pagination = &neonapi.Pagination{Cursor: base64.RawURLEncoding.EncodeToString([]byte("p:" + strconv.FormatUint(last, 10)))}
	}
	return c.json(http.StatusOK, resp)
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
		if err := firstError(notEmpty("project.branch.role_name", br.RoleName), notEmpty("project.branch.database_name", br.DatabaseName)); err != nil {
			return req, err
		}
	}
	if pc.AutoscalingLimitMinCu != nil || pc.AutoscalingLimitMaxCu != nil {
		d := orZero(clonePtr(pc.DefaultEndpointSettings))
		d.AutoscalingLimitMinCu = cmp.Or(d.AutoscalingLimitMinCu, pc.AutoscalingLimitMinCu)
		d.AutoscalingLimitMaxCu = cmp.Or(d.AutoscalingLimitMaxCu, pc.AutoscalingLimitMaxCu)
		pc.DefaultEndpointSettings = d
	}
	return req, checkComputeLimits(pc.DefaultEndpointSettings)
}

// checkComputeLimits refuses default compute settings whose maximum is
// below their minimum.
func checkComputeLimits(d *neonapi.DefaultEndpointSettings) error {
	if d == nil || d.AutoscalingLimitMinCu == nil || d.AutoscalingLimitMaxCu == nil {
		return nil
	}
	if minCU := computeUnits(*d.AutoscalingLimitMinCu); computeUnits(*d.AutoscalingLimitMaxCu) < minCU {
		return invalid("project.default_endpoint_settings.autoscaling_limit_max_cu", "must not be less than autoscaling_limit_min_cu (%s)", number(minCU))
	}
	return nil
}

// applyProjectCreate sets what the request gave on a new project, and on
// its default branch: its name and annotations, the names of its database
// and role, and its endpoint's size by the project's defaults.
func applyProjectCreate(req neonapi.ProjectCreateRequest, p *projectState) {
	pc, pr := req.Project, &p.Project
	if pc.RegionID != nil && *pc.RegionID != "" {
		pr.RegionID, pr.PlatformID, pr.ProxyHost = *pc.RegionID, platformOf(*pc.RegionID), proxyHostOf(*pc.RegionID)
	}
	set(&pr.PgVersion, pc.PgVersion)
	set(&pr.StorePasswords, pc.StorePasswords)
	pr.HistoryRetentionSeconds = cmp.Or(clonePtr(pc.HistoryRetentionSeconds), pr.HistoryRetentionSeconds)
	pr.OrgID = cmp.Or(clonePtr(pc.OrgID), pr.OrgID)
	if pc.Provisioner != nil && *pc.Provisioner != "" {
		pr.Provisioner = *pc.Provisioner
	}
	pr.Settings = merged(pr.Settings, pc.Settings)
	pr.DefaultEndpointSettings = cmp.Or(clonePtr(pc.DefaultEndpointSettings), pr.DefaultEndpointSettings)

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
	for _, ep := range b.Endpoints {
		ep.resize(p.Project)
	}
}

// createProjectAPI serves POST /projects: what the emulator models of a
// ProjectCreateRequest is stored (see applyProjectCreate), the other fields
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
	p := e.st.addProject(*orZero(pc.Project.Name), now())
	applyProjectCreate(pc, p)
	b := p.defaultBranch()
	ep := b.readWriteEndpoint()
	return e.saved(c, http.StatusCreated, neonapi.CreatedProject{
		Project:   projectDetailOf(p.Project),
		Branch:    newBranchView(&b.Branch),
		Roles:     rolesOf(p, b, true),
		Databases: databasesOf(&b.Branch),
		Operations: []neonapi.Operation{p.operation(b.ID, "", neonapi.OperationActionCreateTimeline, b.CreatedAt),
			endpointOperation(p, b, ep, neonapi.OperationActionStartCompute)},
		Endpoints:      []neonapi.Endpoint{endpointViewOf(p, b, ep)},
		ConnectionUris: connectionURIs(p, b),
	})
}

func (e *Emulator) getProject(c *call) error {
	return e.inProject(c, func(p *projectState) error {
		return c.json(http.StatusOK, neonapi.ProjectResponse{Project: projectDetailOf(p.Project)})
	})
}

// updateProject serves PATCH /projects/{project_id}: the name, the history
// retention, settings and the default compute's settings change as given
// (settings and default_endpoint_settings merge into what the project has:
// a field left out keeps its value). Existing endpoints keep their size.
// Logical replication and HIPAA, once on, stay on (checkIrreversibleSettings).
func (e *Emulator) updateProject(c *call) error {
	var req neonapi.ProjectUpdateRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	pu := req.Project
	return e.inProject(c, func(p *projectState) error {
		defaults := p.Project.DefaultEndpointSettings
		if pu.DefaultEndpointSettings != nil {
			defaults = merged(defaults, pu.DefaultEndpointSettings)
			if err := checkComputeLimits(defaults); err != nil {
				return err
			}
		}
		pr := &p.Project
		if err := checkIrreversibleSettings(orZero(pr.Settings), pu.Settings); err != nil {
			return err
		}
		set(&pr.Name, pu.Name)
		pr.HistoryRetentionSeconds = cmp.Or(clonePtr(pu.HistoryRetentionSeconds), pr.HistoryRetentionSeconds)
		pr.Settings = merged(pr.Settings, pu.Settings)
		pr.DefaultEndpointSettings = defaults
		pr.UpdatedAt = now()
		return e.saved(c, http.StatusOK, struct {
			neonapi.ProjectResponse
			neonapi.OperationsResponse
		}{neonapi.ProjectResponse{Project: projectDetailOf(p.Project)}, neonapi.OperationsResponse{Operations: []neonapi.Operation{}}})
	})
}

// checkIrreversibleSettings refuses (400) to turn off what cannot be turned
// off once on: logical replication (the reference: "Once enabled, logical
// replication cannot be disabled") and HIPAA (the official Neon provider's
// TestAccHIPAA expects "disabling HIPAA is not allowed").
func checkIrreversibleSettings(now *neonapi.ProjectSettingsData, change *neonapi.ProjectSettingsData) error {
	if change == nil {
		return nil
	}
	turnsOff := func(on, to *bool) bool { return on != nil && *on && to != nil && !*to }
	switch {
	case turnsOff(now.EnableLogicalReplication, change.EnableLogicalReplication):
		return invalid("project.settings.enable_logical_replication", "logical replication cannot be disabled once it is enabled")
	case turnsOff(now.Hipaa, change.Hipaa):
		return invalid("project.settings.hipaa", "disabling HIPAA is not allowed")
	}
	return nil
}

// deleteProject serves DELETE /projects/{project_id}. Project-scoped keys are
// refused with 403, whichever project they name. The project's scoped keys
// stop working.
func (e *Emulator) deleteProject(c *call) error {
	if c.key.kind == KeyProject {
		return forbidden("project-scoped API keys cannot delete projects")
	}
	return e.inProject(c, func(p *projectState) error {
		e.st.removeProject(p.Project.ID)
		return e.saved(c, http.StatusOK, neonapi.ProjectResponse{Project: projectDetailOf(p.Project)})
	})
}
