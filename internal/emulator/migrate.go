package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Reading a persisted state file of any version, migrating older shapes to the
// current one.

// decodeState reads a state file of the current version, or of version 1
// (Neon Auth per project), which it migrates: a version 1 project's
// integrations move to their branch_id, always the production branch.
func decodeState(data []byte) (*state, error) {
	var head struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not valid: %w", err)
	}
	switch head.Version {
	case stateVersion:
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
		return &st, nil
	case 1:
		var v1 stateV1
		if err := json.Unmarshal(data, &v1); err != nil {
			return nil, fmt.Errorf("not valid: %w", err)
		}
		return v1.migrate()
	}
	return nil, fmt.Errorf("has version %d, want %d (or 1, which is migrated)", head.Version, stateVersion)
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
	TransferCode   string          `json:"transfer_code,omitempty"`
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
				TransferCode:   in.TransferCode,
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
				a.BaseURL = authBaseURL(p, b, a.AuthProvider, a.AuthProviderProjectID, a.DBName)
			}
			a.normalize()
			b.Auth = a
		}
		st.Projects = append(st.Projects, p)
	}
	return st, nil
}
