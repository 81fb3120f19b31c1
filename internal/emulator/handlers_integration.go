package emulator

import (
	"net/http"
	"time"
)

// Validation order in every handler: the request body and fields (400), then
// the resources they name (404), then conflicts (409).

// integrationFor returns the project and its active integration with the
// provider, or 404. e.mu must be held.
func (e *Emulator) integrationFor(c *call, projectID, provider string) (*projectState, *integrationState, error) {
	p, err := e.visibleProject(c, projectID)
	if err != nil {
		return nil, nil, err
	}
	in := p.integration(provider)
	if in == nil {
		return nil, nil, notFound("integration with auth provider %s not found for project %s", provider, projectID)
	}
	return p, in, nil
}

// credentials is the body of endpoints 1 and 3.
type credentials struct {
	AuthProvider          string `json:"auth_provider"`
	AuthProviderProjectID string `json:"auth_provider_project_id"`
	PubClientKey          string `json:"pub_client_key"`
	SecretServerKey       string `json:"secret_server_key"`
	JWKSURL               string `json:"jwks_url"`
	SchemaName            string `json:"schema_name"`
	TableName             string `json:"table_name"`
}

func credentialsOf(in *integrationState) credentials {
	return credentials{
		AuthProvider:          in.AuthProvider,
		AuthProviderProjectID: in.AuthProviderProjectID,
		PubClientKey:          in.PubClientKey,
		SecretServerKey:       in.SecretServerKey,
		JWKSURL:               in.JWKSURL,
		SchemaName:            in.SchemaName,
		TableName:             in.TableName,
	}
}

// createIntegration serves endpoint 1, POST /projects/auth/create.
func (e *Emulator) createIntegration(c *call) error {
	o, err := readBody(c, false, "auth_provider", "project_id", "branch_id", "database_name", "role_name")
	if err != nil {
		return err
	}
	provider, err := o.authProvider()
	if err != nil {
		return err
	}
	projectID, err := o.requiredStr("project_id")
	if err != nil {
		return err
	}
	branchID, err := o.requiredStr("branch_id")
	if err != nil {
		return err
	}
	dbName, err := o.requiredStr("database_name")
	if err != nil {
		return err
	}
	roleName, err := o.requiredStr("role_name")
	if err != nil {
		return err
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, projectID)
	if err != nil {
		return err
	}
	b := p.branch(branchID)
	if b == nil {
		return invalid("branch_id", "branch %s does not exist in project %s", branchID, projectID)
	}
	if !b.Default {
		return invalid("branch_id", "branch %s is not the default (production) branch of project %s", branchID, projectID)
	}
	if !b.hasDatabase(dbName) {
		return invalid("database_name", "database %q does not exist on branch %s", dbName, branchID)
	}
	if !b.hasRole(roleName) {
		return invalid("role_name", "role %q does not exist on branch %s", roleName, branchID)
	}
	if p.integration(provider) != nil {
		return conflict("integration with auth provider %s already exists for project %s", provider, projectID)
	}
	in := newIntegration(projectID, provider, branchID, dbName, roleName, now())
	p.Integrations = append(p.Integrations, in)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, credentialsOf(in))
}

// integrationView is an integration as endpoint 2 lists it.
type integrationView struct {
	AuthProvider          string    `json:"auth_provider"`
	AuthProviderProjectID string    `json:"auth_provider_project_id"`
	BranchID              string    `json:"branch_id"`
	DBName                string    `json:"db_name"`
	CreatedAt             time.Time `json:"created_at"`
	OwnedBy               string    `json:"owned_by"`
	TransferStatus        string    `json:"transfer_status,omitempty"`
	JWKSURL               string    `json:"jwks_url"`
}

// listIntegrations serves endpoint 2, GET /projects/{project_id}/auth/integrations.
func (e *Emulator) listIntegrations(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := e.visibleProject(c, c.param("project_id"))
	if err != nil {
		return err
	}
	out := make([]integrationView, 0, len(p.Integrations))
	for _, in := range p.Integrations {
		out = append(out, integrationView{
			AuthProvider:          in.AuthProvider,
			AuthProviderProjectID: in.AuthProviderProjectID,
			BranchID:              in.BranchID,
			DBName:                in.DBName,
			CreatedAt:             in.CreatedAt,
			OwnedBy:               in.OwnedBy,
			TransferStatus:        in.TransferStatus,
			JWKSURL:               in.JWKSURL,
		})
	}
	return c.json(http.StatusOK, map[string]any{"data": out})
}

// createSDKKeys serves endpoint 3, POST /projects/auth/keys: a new distinct
// key pair every call.
func (e *Emulator) createSDKKeys(c *call) error {
	o, err := readBody(c, false, "project_id", "auth_provider")
	if err != nil {
		return err
	}
	projectID, err := o.requiredStr("project_id")
	if err != nil {
		return err
	}
	provider, err := o.authProvider()
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, projectID, provider)
	if err != nil {
		return err
	}
	in.mintKeys()
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, credentialsOf(in))
}

// deleteIntegration serves endpoint 4, DELETE
// /projects/{project_id}/auth/integration/{auth_provider}, optional body
// {"delete_data": bool}. The integration's OAuth providers, domains, users,
// email configuration and pending transfer go with it. Answers 200 {}.
func (e *Emulator) deleteIntegration(c *call) error {
	o, err := readBody(c, true, "delete_data")
	if err != nil {
		return err
	}
	if _, _, err := o.boolean("delete_data"); err != nil {
		return err
	}
	provider := c.param("auth_provider")
	if err := checkAuthProvider(provider); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, _, err := e.integrationFor(c, c.param("project_id"), provider)
	if err != nil {
		return err
	}
	p.removeIntegration(provider)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, struct{}{})
}

// createUser serves endpoint 5, POST /projects/auth/user.
func (e *Emulator) createUser(c *call) error {
	o, err := readBody(c, false, "project_id", "auth_provider", "email", "name")
	if err != nil {
		return err
	}
	projectID, err := o.requiredStr("project_id")
	if err != nil {
		return err
	}
	provider, err := o.authProvider()
	if err != nil {
		return err
	}
	email, err := o.requiredStr("email")
	if err != nil {
		return err
	}
	if !validEmail(email) {
		return invalid("email", "must be an email address")
	}
	name, hasName, err := o.str("name")
	if err != nil {
		return err
	}
	if hasName {
		if n := runeCount(name); n < 1 || n > 255 {
			return invalid("name", "must be 1 to 255 characters, got %d", n)
		}
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, projectID, provider)
	if err != nil {
		return err
	}
	if in.userByEmail(email) >= 0 {
		return conflict("a user with this email already exists")
	}
	u := UserRow{ID: newUUID(), Email: email, Name: name, CreatedAt: now()}
	in.Users = append(in.Users, u)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusCreated, map[string]string{"id": u.ID})
}

// deleteUser serves endpoint 6, DELETE /projects/{project_id}/auth/users/{auth_user_id}.
func (e *Emulator) deleteUser(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, c.param("project_id"), authProviderStack)
	if err != nil {
		return err
	}
	i := in.userIndex(c.param("auth_user_id"))
	if i < 0 {
		return notFound("user not found")
	}
	in.Users = append(in.Users[:i], in.Users[i+1:]...)
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.empty(http.StatusNoContent)
}

// transferOwnership serves endpoint 7, POST /projects/auth/transfer_ownership.
// The transfer completes only when confirmed (ConfirmTransfer).
func (e *Emulator) transferOwnership(c *call) error {
	o, err := readBody(c, false, "project_id", "auth_provider")
	if err != nil {
		return err
	}
	projectID, err := o.requiredStr("project_id")
	if err != nil {
		return err
	}
	provider, err := o.authProvider()
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, projectID, provider)
	if err != nil {
		return err
	}
	in.TransferCode = randomHex(16)
	in.TransferStatus = transferInitiated
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, map[string]string{
		"url": "https://app.stack-auth.com/integrations/neon/projects/transfer/confirm?code=" + in.TransferCode,
	})
}
