package emulator

import (
	"net/http"
	"time"
)

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

// annotation is AnnotationData: the emulator keeps no annotation values.
type annotation struct {
	Object struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"object"`
	Value map[string]string `json:"value"`
}

func branchAnnotation(b *Branch) annotation {
	var a annotation
	a.Object.Type, a.Object.ID = "console/branch", b.ID
	a.Value = map[string]string{}
	return a
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

// listBranches serves GET /projects/{project_id}/branches.
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
	return c.json(http.StatusOK, map[string]any{"branches": out, "annotations": map[string]annotation{}})
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
