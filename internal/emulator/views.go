package emulator

import (
	"cmp"
	"maps"
	"time"

	"github.com/google/uuid"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The state as the API shows it: each object of the emulator's state in its
// shape of the reference (package neonapi), as every answer that holds it
// gives it.

// projectDetailOf is a project as GET /projects/{project_id} shows it: the
// fields the reference's Project shares with the list's, and the
// consumption of the current period (always none).
func projectDetailOf(p Project) neonapi.Project {
	var d neonapi.Project
	_ = convertShape(p, &d) // both shapes of the reference: it cannot fail
	t := now()
	d.ConsumptionPeriodStart = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	d.ConsumptionPeriodEnd = d.ConsumptionPeriodStart.AddDate(0, 1, 0)
	return d
}

// newBranchView is a branch as the API shows it (Branch): ready, with the
// size and consumption of an idle branch.
func newBranchView(b *Branch) neonapi.Branch {
	return neonapi.Branch{
		ID:             b.ID,
		ProjectID:      b.ProjectID,
		ParentID:       nonEmpty(b.ParentID),
		Name:           b.Name,
		CurrentState:   "ready",
		StateChangedAt: b.CreatedAt,
		LogicalSize:    new(int64(30 << 20)),
		CreationSource: "console",
		Primary:        new(b.Default),
		Default:        b.Default,
		Protected:      b.Protected,
		InitSource:     new(cmp.Or(b.InitSource, initParentData)),
		ExpiresAt:      b.ExpiresAt,
		CreatedAt:      b.CreatedAt,
		UpdatedAt:      b.UpdatedAt,
	}
}

// branchAnnotation is the AnnotationData of a branch: the values given with
// annotation_value when the branch was created (none: an empty value).
func branchAnnotation(b *Branch) neonapi.AnnotationData {
	a := neonapi.AnnotationData{Object: neonapi.AnnotationObjectData{Type: "console/branch", ID: b.ID}, Value: neonapi.AnnotationValueData{}}
	maps.Copy(a.Value, b.Annotation)
	if len(b.Annotation) > 0 {
		a.CreatedAt, a.UpdatedAt = &b.CreatedAt, &b.CreatedAt
	}
	return a
}

// operation is an Operation of a branch of the project that finished at
// once, as every operation of the emulator does (endpointID is "" for none).
// The project keeps it for GET …/operations (see recordOperation).
func (p *projectState) operation(branchID, endpointID string, action neonapi.OperationAction, at time.Time) neonapi.Operation {
	op := neonapi.Operation{ID: uuid.New(), ProjectID: p.Project.ID, BranchID: new(branchID), EndpointID: nonEmpty(endpointID),
		Action: action, Status: neonapi.OperationStatusFinished, CreatedAt: at, UpdatedAt: at}
	p.recordOperation(op)
	return op
}

// endpointOperation is a finished operation of an endpoint.
func endpointOperation(p *projectState, b *branchState, ep *endpointState, action neonapi.OperationAction) neonapi.Operation {
	return p.operation(b.ID, ep.ID, action, ep.UpdatedAt)
}

// applyConfig is the operation a change of roles or databases makes: the
// branch's read_write compute applies it (none without one).
func applyConfig(p *projectState, b *branchState) []neonapi.Operation {
	ep := b.readWriteEndpoint()
	if ep == nil {
		return []neonapi.Operation{}
	}
	return []neonapi.Operation{p.operation(b.ID, ep.ID, neonapi.OperationActionApplyConfig, now())}
}

// createdBranch is the answer to a branch creation (CreatedBranch): the
// branch, its endpoints, roles, databases, connection URIs (with a
// read_write endpoint) and finished operations.
func createdBranch(p *projectState, b *branchState) neonapi.CreatedBranch {
	ops := []neonapi.Operation{p.operation(b.ID, "", neonapi.OperationActionCreateBranch, b.CreatedAt)}
	for _, ep := range b.Endpoints {
		ops = append(ops, endpointOperation(p, b, ep, neonapi.OperationActionStartCompute))
	}
	out := neonapi.CreatedBranch{
		Branch:     newBranchView(&b.Branch),
		Endpoints:  endpointViewsOf(p, b),
		Operations: ops,
		Roles:      rolesOf(p, b, false),
		Databases:  databasesOf(&b.Branch),
	}
	if uris := connectionURIs(p, b); len(uris) > 0 {
		out.ConnectionUris = &uris
	}
	return out
}

// endpointViewOf is a compute endpoint as the API shows it (Endpoint). The
// emulator's computes never run: they are idle.
func endpointViewOf(p *projectState, b *branchState, ep *endpointState) neonapi.Endpoint {
	return neonapi.Endpoint{
		Host:                  ep.host(p.Project.ProxyHost),
		ID:                    ep.ID,
		Name:                  nonEmpty(ep.Name),
		ProjectID:             p.Project.ID,
		BranchID:              b.ID,
		AutoscalingLimitMinCu: float32(ep.MinCU),
		AutoscalingLimitMaxCu: float32(ep.MaxCU),
		RegionID:              p.Project.RegionID,
		Type:                  neonapi.EndpointType(ep.Type),
		CurrentState:          neonapi.EndpointStateIdle,
		Settings:              *orZero(clonePtr(ep.EndpointSettings)),
		PoolerEnabled:         ep.PoolerEnabled,
		PoolerMode:            neonapi.EndpointPoolerModeTransaction,
		Disabled:              ep.Disabled,
		PasswordlessAccess:    ep.PasswordlessAccess,
		CreationSource:        "console",
		CreatedAt:             ep.CreatedAt,
		UpdatedAt:             ep.UpdatedAt,
		ProxyHost:             p.Project.ProxyHost,
		SuspendTimeoutSeconds: ep.SuspendTimeoutSeconds,
		Provisioner:           ep.Provisioner,
	}
}

func endpointViewsOf(p *projectState, branches ...*branchState) []neonapi.Endpoint {
	out := []neonapi.Endpoint{}
	for _, b := range branches {
		for _, ep := range b.Endpoints {
			out = append(out, endpointViewOf(p, b, ep))
		}
	}
	return out
}

// roleViewOf is a role of a branch as the API shows it (Role), with its
// password only where the API reveals it (on creation).
func roleViewOf(p *projectState, b *branchState, name string, withPassword bool) neonapi.Role {
	r := neonapi.Role{BranchID: b.ID, Name: name, Protected: new(false), CreatedAt: b.CreatedAt, UpdatedAt: b.CreatedAt}
	if rs := p.roleOf(b, name); rs != nil {
		r.CreatedAt, r.UpdatedAt = rs.CreatedAt, rs.CreatedAt
		if withPassword {
			r.Password = nonEmpty(rs.Password)
		}
	}
	return r
}

func rolesOf(p *projectState, b *branchState, withPasswords bool) []neonapi.Role {
	return mapped(b.Roles, func(name string) neonapi.Role { return roleViewOf(p, b, name, withPasswords) })
}

// databaseViewOf is a database of a branch as the API shows it (Database).
func databaseViewOf(b *Branch, d Database) neonapi.Database {
	return neonapi.Database{ID: d.ID, BranchID: b.ID, Name: d.Name, OwnerName: d.OwnerName, CreatedAt: d.CreatedAt, UpdatedAt: d.CreatedAt}
}

func databasesOf(b *Branch) []neonapi.Database {
	return mapped(b.Databases, func(d Database) neonapi.Database { return databaseViewOf(b, d) })
}

// connectionURIs are the branch's connection URIs (ConnectionDetails): its
// first database, as its owner, through its read_write endpoint (none
// without all three).
func connectionURIs(p *projectState, b *branchState) []neonapi.ConnectionDetails {
	ep := b.readWriteEndpoint()
	if ep == nil || len(b.Databases) == 0 {
		return []neonapi.ConnectionDetails{}
	}
	db := b.Databases[0]
	owner := p.roleOf(b, db.OwnerName)
	if owner == nil || owner.Password == "" {
		return []neonapi.ConnectionDetails{}
	}
	host := ep.host(p.Project.ProxyHost)
	return []neonapi.ConnectionDetails{{
		ConnectionURI: "postgresql://" + db.OwnerName + ":" + owner.Password + "@" + host + "/" + db.Name + "?sslmode=require",
		ConnectionParameters: neonapi.ConnectionParameters{Database: db.Name, Password: owner.Password, Role: db.OwnerName,
			Host: host, PoolerHost: ep.ID + "-pooler." + p.Project.ProxyHost},
	}}
}

// credentialsOf is the body of POST /projects/auth/create,
// POST .../branches/{branch_id}/auth and POST /projects/auth/keys
// (NeonAuthCreateIntegrationResponse). Better Auth has no SDK keys: both
// are "".
func credentialsOf(a *BranchAuth) neonapi.NeonAuthCreateIntegrationResponse {
	return neonapi.NeonAuthCreateIntegrationResponse{
		AuthProvider:          neonapi.NeonAuthSupportedAuthProvider(a.AuthProvider),
		AuthProviderProjectID: a.AuthProviderProjectID,
		PubClientKey:          a.PubClientKey,
		SecretServerKey:       a.SecretServerKey,
		JWKSURL:               a.JWKSURL,
		SchemaName:            a.SchemaName,
		TableName:             a.TableName,
		BaseURL:               nonEmpty(a.BaseURL),
	}
}

// integrationViewOf is an integration as the API shows it
// (NeonAuthIntegration): an item of GET /projects/{project_id}/auth/integrations
// and the body of GET .../branches/{branch_id}/auth.
func integrationViewOf(a *BranchAuth) neonapi.NeonAuthIntegration {
	v := neonapi.NeonAuthIntegration{
		AuthProvider:          neonapi.NeonAuthSupportedAuthProvider(a.AuthProvider),
		AuthProviderProjectID: a.AuthProviderProjectID,
		BranchID:              a.BranchID,
		DBName:                a.DBName,
		CreatedAt:             a.CreatedAt,
		OwnedBy:               neonapi.NeonAuthProviderProjectOwnedBy(a.OwnedBy),
		JWKSURL:               a.JWKSURL,
		BaseURL:               nonEmpty(a.BaseURL),
		Name:                  nonEmpty(a.Name),
	}
	if a.TransferStatus != "" {
		v.TransferStatus = new(neonapi.NeonAuthProviderProjectTransferStatus(a.TransferStatus))
	}
	return v
}

// emailView is an email provider configuration as the API shows it
// (NeonAuthEmailServerConfigResponse): a standard one with all six fields,
// the password blank (as in every read of an ordinary caller and in every
// PATCH response); a shared one with its sender fields, if set.
func emailView(cfg EmailServer) (neonapi.NeonAuthEmailServerConfigResponse, error) {
	var v neonapi.NeonAuthEmailServerConfigResponse
	if cfg.Type == emailStandard {
		return v, v.FromStandardEmailServerResponse(neonapi.StandardEmailServerResponse{Type: neonapi.StandardEmailServerResponseTypeStandard,
			Host: cfg.Host, Port: cfg.Port, Username: cfg.Username, SenderEmail: cfg.SenderEmail, SenderName: cfg.SenderName})
	}
	return v, v.FromSharedEmailServer(neonapi.SharedEmailServer{Type: neonapi.SharedEmailServerTypeShared,
		SenderEmail: nonEmpty(cfg.SenderEmail), SenderName: nonEmpty(cfg.SenderName)})
}
