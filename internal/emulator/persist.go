package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The state file holds the whole state as JSON. API key tokens are stored only
// as SHA-256 hashes; other secrets (SDK keys, OAuth client secrets, SMTP
// passwords) are stored as they are, so the file is written with mode 0600.
// A state file of an older version is read and migrated to the current one.

// loadState reads the state file; a missing file yields (nil, nil). Temp
// files that a crash left behind mid-save are removed first: they are never
// read, and each is a full copy of the state, secrets included.
func loadState(path string) (*state, error) {
	removeStaleTempFiles(path)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("emulator: read state file: %w", err)
	}
	st, err := decodeState(data)
	if err != nil {
		return nil, fmt.Errorf("emulator: state file %s: %w", path, err)
	}
	return st, nil
}

// WriteFileAtomic writes data to path atomically: a temporary file in the
// same directory is written, synced and renamed over path, then the
// directory is synced. No partial file is ever visible at path.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return err
	}
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Sync()
	}
	if err = errors.Join(err, tmp.Close()); err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// tempPattern is the name pattern of saveState's temporary files.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// removeStaleTempFiles deletes temporary files of interrupted saves. Only
// one emulator uses a state file at a time, so none of them is in use.
func removeStaleTempFiles(path string) {
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	for _, f := range stale {
		_ = os.Remove(f)
	}
}

// decodeState reads a state file of the current version, or of an older
// one, which it migrates: version 2 lacked what version 3 keeps of computes,
// roles, databases and project settings (upgradeV2); a version 1 project's
// integrations move to their branch_id, always the production branch, and
// the state is then upgraded as one of version 2.
func decodeState(data []byte) (*state, error) {
	var head struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not valid: %w", err)
	}
	switch head.Version {
	case stateVersion, 2:
		var st state
		if err := json.Unmarshal(data, &st); err != nil {
			return nil, fmt.Errorf("not valid: %w", err)
		}
		for _, p := range st.Projects {
			for _, b := range p.Branches {
				if b.Auth != nil {
					b.Auth.normalize()
				}
			}
		}
		if head.Version == 2 {
			st.upgradeV2()
		}
		st.numberKeys()
		return &st, nil
	case 1:
		var v1 stateV1
		if err := json.Unmarshal(data, &v1); err != nil {
			return nil, fmt.Errorf("not valid: %w", err)
		}
		st, err := v1.migrate()
		if err != nil {
			return nil, err
		}
		st.upgradeV2()
		st.numberKeys()
		return st, nil
	}
	return nil, fmt.Errorf("has version %d, want %d (or 2 or 1, which are migrated)", head.Version, stateVersion)
}

// upgradeV2 gives a state of version 2 what version 3 added, as the
// emulator of version 2 had it without saying: every project a day of
// history and the default settings, every production branch a read_write
// endpoint, every database an id (its position) and its branch's creation
// time, every role a password (a child branch's roles their parent's).
func (st *state) upgradeV2() {
	st.Version = stateVersion
	for _, p := range st.Projects {
		p.Project.HistoryRetentionSeconds = new(int32(historyRetention))
		p.Project.Settings = defaultProjectSettings()
		for _, b := range p.Branches { // parents come before their children
			for i := range b.Databases {
				b.Databases[i].ID, b.Databases[i].CreatedAt = int64(i+1), b.CreatedAt
			}
			p.ownRoles(b)
			for _, name := range b.Roles {
				if b.RoleStates[name] == nil {
					b.RoleStates[name] = &roleState{Password: newRolePassword(), CreatedAt: b.CreatedAt}
				}
			}
			if b.Default && len(b.Endpoints) == 0 {
				b.Endpoints = []*endpointState{newEndpoint(st.nextEndpointID(), p.Project, endpointReadWrite, b.CreatedAt)}
			}
		}
	}
}

// stateV1 is the state file format of version 1.
type stateV1 struct {
	Seq      uint64      `json:"seq"`
	OrgID    string      `json:"org_id"`
	OwnerID  string      `json:"owner_id"`
	Keys     []*apiKey   `json:"keys"`
	Projects []projectV1 `json:"projects"`
}

type projectV1 struct {
	Seq          uint64          `json:"seq"`
	Project      Project         `json:"project"`
	Branches     []Branch        `json:"branches"`
	Integrations []integrationV1 `json:"integrations"`
}

type integrationV1 struct {
	Integration
	OAuthProviders []OAuthProvider `json:"oauth_providers"`
	Domains        []Domain        `json:"domains"`
	Email          EmailServer     `json:"email_server"`
	Users          []UserRow       `json:"users"`
}

func (v1 *stateV1) migrate() (*state, error) {
	st := &state{Version: stateVersion, Seq: v1.Seq, OrgID: v1.OrgID, OwnerID: v1.OwnerID, Keys: v1.Keys}
	for _, pv := range v1.Projects {
		p := &projectState{Seq: pv.Seq, Project: pv.Project}
		for _, b := range pv.Branches {
			p.Branches = append(p.Branches, &branchState{Branch: b, Seq: st.next()})
		}
		if p.defaultBranch() == nil {
			return nil, fmt.Errorf("version 1 project %s has no default branch", p.Project.ID)
		}
		for _, in := range pv.Integrations {
			b := p.branch(in.BranchID)
			if b == nil {
				return nil, fmt.Errorf("version 1 integration %s of project %s names branch %s, which does not exist",
					in.AuthProvider, p.Project.ID, in.BranchID)
			}
			if b.Auth != nil {
				return nil, errors.New("version 1 project " + p.Project.ID + " has two integrations on branch " + b.ID)
			}
			a := &BranchAuth{
				Integration:    in.Integration,
				OAuthProviders: in.OAuthProviders,
				Domains:        in.Domains,
				Users:          in.Users,
				AllowLocalhost: defaultAllowLocalhost,
				Settings:       defaultSettings(),
			}
			email := in.Email
			a.EmailProvider = &email
			if a.Name == "" {
				a.Name = p.Project.Name
			}
			if a.BaseURL == "" {
				a.moveTo(p.Project, b.ID)
			}
			a.normalize()
			b.Auth = a
		}
		st.Projects = append(st.Projects, p)
	}
	return st, nil
}
