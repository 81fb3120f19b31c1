package emulator

import (
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Projects, and the compute endpoints and roles of their branches, as the
// state holds them; the project settings and defaults they follow.

const (
	endpointReadWrite = string(neonapi.EndpointTypeReadWrite)
	endpointReadOnly  = string(neonapi.EndpointTypeReadOnly)

	defaultRegion = "aws-us-east-2"

	// minComputeUnits is the smallest compute (ComputeUnit's minimum), also
	// a new endpoint's size when the project sets none.
	minComputeUnits = 0.25
)

// Project is a database project as the emulator holds it and GET /projects
// lists it: the reference's ProjectListItem, whose settings and
// default_endpoint_settings are held as given (over the platform's defaults
// for settings).
type Project = neonapi.ProjectListItem

// endpointState is a compute endpoint of the branch holding it (its project
// and branch ids are the holder's; its region and host follow the project).
// EndpointSettings is EndpointSettingsData of the API reference (Postgres and
// PgBouncer settings, preloaded libraries), held as given.
type endpointState struct {
	ID                    string                        `json:"id"`
	Name                  string                        `json:"name,omitempty"`
	Type                  string                        `json:"type"` // read_write or read_only
	MinCU                 float64                       `json:"autoscaling_limit_min_cu"`
	MaxCU                 float64                       `json:"autoscaling_limit_max_cu"`
	SuspendTimeoutSeconds int64                         `json:"suspend_timeout_seconds"`
	Provisioner           string                        `json:"provisioner"`
	PoolerEnabled         bool                          `json:"pooler_enabled"`
	Disabled              bool                          `json:"disabled"`
	PasswordlessAccess    bool                          `json:"passwordless_access"`
	EndpointSettings      *neonapi.EndpointSettingsData `json:"settings,omitempty"`
	CreatedAt             time.Time                     `json:"created_at"`
	UpdatedAt             time.Time                     `json:"updated_at"`
}

// roleState is what the emulator keeps of a role besides its name.
type roleState struct {
	Password  string    `json:"password,omitempty"` // "": created with no_login
	CreatedAt time.Time `json:"created_at"`
}

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

// newEndpoint makes an endpoint of typ in a project, sized by the project's
// default_endpoint_settings, else the smallest compute with the platform's
// suspension (0: the default); the caller puts it on a branch.
func newEndpoint(id string, p Project, typ string, at time.Time) *endpointState {
	ep := &endpointState{ID: id, Type: typ, MinCU: minComputeUnits, Provisioner: p.Provisioner, CreatedAt: at, UpdatedAt: at}
	ep.resize(p)
	return ep
}

// resize gives ep the size and suspension a new endpoint of p takes.
func (ep *endpointState) resize(p Project) {
	d := *orZero(p.DefaultEndpointSettings)
	ep.MinCU, ep.SuspendTimeoutSeconds = minComputeUnits, 0
	if d.AutoscalingLimitMinCu != nil {
		ep.MinCU = computeUnits(*d.AutoscalingLimitMinCu)
	}
	ep.MaxCU = max(ep.MinCU, minComputeUnits)
	if d.AutoscalingLimitMaxCu != nil {
		ep.MaxCU = computeUnits(*d.AutoscalingLimitMaxCu)
	}
	set(&ep.SuspendTimeoutSeconds, d.SuspendTimeoutSeconds)
	ep.Provisioner = p.Provisioner
}

// changeEndpoint sets on ep what a request gives it: fields is one of the
// objects that carry an endpoint's fields (EndpointUpdateRequest.endpoint,
// which EndpointCreateRequest.endpoint and
// BranchCreateRequestEndpointOptions share by name), already checked
// against the reference. A maximum size below the minimum is refused
// (prefix names the request's object in the error).
func changeEndpoint(ep *endpointState, fields any, prefix string) error {
	var f neonapi.EndpointUpdateRequest
	if err := convertShape(fields, &f.Endpoint); err != nil {
		return invalid("request body", "%v", err)
	}
	ch := f.Endpoint
	minCU, maxCU := ep.MinCU, ep.MaxCU
	if ch.AutoscalingLimitMinCu != nil {
		minCU = computeUnits(*ch.AutoscalingLimitMinCu)
		maxCU = max(maxCU, minCU)
	}
	if ch.AutoscalingLimitMaxCu != nil {
		maxCU = computeUnits(*ch.AutoscalingLimitMaxCu)
	}
	if maxCU < minCU {
		return invalid(prefix+"autoscaling_limit_max_cu", "must not be less than autoscaling_limit_min_cu (%s)", number(minCU))
	}
	ep.MinCU, ep.MaxCU = minCU, maxCU
	set(&ep.Name, ch.Name)
	if ch.Provisioner != nil && *ch.Provisioner != "" {
		ep.Provisioner = *ch.Provisioner
	}
	set(&ep.PoolerEnabled, ch.PoolerEnabled)
	set(&ep.Disabled, ch.Disabled)
	set(&ep.PasswordlessAccess, ch.PasswordlessAccess)
	set(&ep.SuspendTimeoutSeconds, ch.SuspendTimeoutSeconds)
	if ch.Settings != nil {
		ep.EndpointSettings = merged(ep.EndpointSettings, ch.Settings)
	}
	return nil
}

// host is the endpoint's host name in a region's proxy host:
// ep-quiet-leaf-00000004.us-east-2.aws.neon.tech.
func (ep *endpointState) host(proxyHost string) string { return ep.ID + "." + proxyHost }

// newRolePassword makes a password as Neon does: "npg_" and 12 letters and
// digits.
func newRolePassword() string {
	return "npg_" + randomText("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 12)
}
