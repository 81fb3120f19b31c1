package emulator

import (
	"crypto/rand"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The computes, roles and databases of branches as the state holds them: how
// they are made, found and copied to a new branch, and the project settings
// they follow.

const (
	endpointReadWrite = string(neonapi.EndpointTypeReadWrite)
	endpointReadOnly  = string(neonapi.EndpointTypeReadOnly)

	defaultRegion = "aws-us-east-2"

	// minComputeUnits is the smallest compute (ComputeUnit's minimum), also
	// a new endpoint's size when the project sets none.
	minComputeUnits = 0.25
)

// proxyHostOf is the host name under which a region's computes are reached:
// aws-us-east-2 → us-east-2.aws.neon.tech.
func proxyHostOf(region string) string {
	platform, rest, ok := strings.Cut(region, "-")
	if !ok || rest == "" {
		return region + ".neon.tech"
	}
	return rest + "." + platform + ".neon.tech"
}

// platformOf is the cloud of a region: aws-us-east-2 → aws.
func platformOf(region string) string {
	platform, _, _ := strings.Cut(region, "-")
	return platform
}

// defaultProjectSettings are the settings of a new project: no IP allow
// list, nothing blocked, no logical replication, no HIPAA.
func defaultProjectSettings() *neonapi.ProjectSettingsData {
	return mustDecode[neonapi.ProjectSettingsData](`{"allowed_ips":{"ips":[],"protected_branches_only":false},"enable_logical_replication":false,` +
		`"block_public_connections":false,"block_vpc_connections":false,"hipaa":false}`)
}

// computeSize is the size and suspension of a compute endpoint.
type computeSize struct {
	minCU, maxCU float64
	suspend      int64
}

// computeDefaults is what a new endpoint of the project takes unless told
// otherwise: the project's default_endpoint_settings, else the smallest
// compute with the platform's suspension (0: the default).
func (p *projectState) computeDefaults() computeSize {
	var d neonapi.DefaultEndpointSettings
	if p.Project.DefaultEndpointSettings != nil {
		d = *p.Project.DefaultEndpointSettings
	}
	size := computeSize{minCU: minComputeUnits}
	if d.AutoscalingLimitMinCu != nil {
		size.minCU = computeUnits(*d.AutoscalingLimitMinCu)
	}
	size.maxCU = max(size.minCU, minComputeUnits)
	if d.AutoscalingLimitMaxCu != nil {
		size.maxCU = computeUnits(*d.AutoscalingLimitMaxCu)
	}
	if d.SuspendTimeoutSeconds != nil {
		size.suspend = *d.SuspendTimeoutSeconds
	}
	return size
}

// newEndpoint makes an endpoint of typ sized by the project's defaults; the
// caller puts it on a branch.
func (s *state) newEndpoint(p *projectState, typ string, at time.Time) *endpointState {
	size := p.computeDefaults()
	return &endpointState{
		ID:                    "ep-" + idWords(s.next()),
		Type:                  typ,
		MinCU:                 size.minCU,
		MaxCU:                 size.maxCU,
		SuspendTimeoutSeconds: size.suspend,
		Provisioner:           p.Project.Provisioner,
		CreatedAt:             at,
		UpdatedAt:             at,
	}
}

// endpoint finds an endpoint of the project and the branch holding it.
func (p *projectState) endpoint(id string) (*branchState, *endpointState) {
	for _, b := range p.Branches {
		for _, ep := range b.Endpoints {
			if ep.ID == id {
				return b, ep
			}
		}
	}
	return nil, nil
}

// readWriteEndpoint is the branch's read_write endpoint (a branch has at
// most one), nil when it has none.
func (b *branchState) readWriteEndpoint() *endpointState {
	for _, ep := range b.Endpoints {
		if ep.Type == endpointReadWrite {
			return ep
		}
	}
	return nil
}

// roleOf is what the project keeps of a role of branch b: b's own, or, for
// a branch given no copies, the one it inherited from its parent. nil when
// no branch on the way has it.
func (p *projectState) roleOf(b *branchState, name string) *roleState {
	for at := b; at != nil; at = p.branch(at.ParentID) {
		if r := at.RoleStates[name]; r != nil {
			return r
		}
	}
	return nil
}

// copyRoles gives b copies of the roles it took from the branch it was made
// from, with their passwords: a new branch's roles are its parent's, as on
// Neon (also for a schema-only branch, which records no parent).
func (p *projectState) copyRoles(from, b *branchState) {
	states := map[string]*roleState{}
	for _, name := range b.Roles {
		if r := p.roleOf(from, name); r != nil {
			c := *r
			states[name] = &c
		}
	}
	b.RoleStates = states
}

// ownRoles gives b role states of its own, copies of those it reads from
// its parent, before its roles change.
func (p *projectState) ownRoles(b *branchState) {
	if b.RoleStates == nil {
		p.copyRoles(b, b)
	}
}

// nextDatabaseID is an id no database of the branch has.
func (b *branchState) nextDatabaseID() int64 {
	var top int64
	for _, d := range b.Databases {
		top = max(top, d.ID)
	}
	return top + 1
}

// newRolePassword makes a password as Neon does: "npg_" and 12 letters and
// digits.
func newRolePassword() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "npg_" + string(b)
}
