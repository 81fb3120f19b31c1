package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Helpers for the things that live under a project's auth integration
// (SDK keys, users, OAuth providers, domains, the email server, ownership
// transfers): their fate follows the integration's.

// integrationErrorDetail explains an API failure on something that lives
// under a project's auth integration. Those endpoints answer 404 both when
// the project has no active integration and when the key cannot see the
// project; the integration list tells the two apart.
func (d *providerData) integrationErrorDetail(ctx context.Context, projectID, provider, what string, err error) string {
	if !isNotFound(err) {
		return apiErrorDetail(what, err)
	}
	gone, lerr := d.integrationGone(ctx, projectID, provider)
	switch {
	case lerr == nil && gone:
		return apiErrorDetail(what, err) + fmt.Sprintf(" Project %s has no active %s integration. Create a neon_auth_integration "+
			"first and set project_id = neon_auth_integration.<name>.project_id, so that Terraform creates it before this resource.", projectID, provider)
	case lerr != nil && isNotFound(lerr):
		return projectNotVisibleDetail(projectID, lerr)
	case lerr == nil:
		return apiErrorDetail(what, err) + " The project's integration exists, so it is this object that was not found."
	default:
		return apiErrorDetail(what, err)
	}
}

// recordAuthProject remembers in private state which managed auth project
// (integration) a thing was created under. A failed list only skips it: the
// next Read records it.
func (d *providerData) recordAuthProject(ctx context.Context, private privateSetter, projectID, provider string, diags *diag.Diagnostics) {
	integrations, err := d.listIntegrations(ctx, projectID)
	if err != nil {
		tflog.Debug(ctx, "could not record the integration; the next refresh will", map[string]any{"project_id": projectID, "error": err.Error()})
		return
	}
	if it := findIntegration(integrations, provider); it != nil {
		setPrivateString(ctx, private, privateAuthProjectID, it.AuthProviderProjectID, diags)
	}
}

// integrationReplaced is the Read of things that live under an integration
// and cannot be read themselves. It returns true when a successful list
// shows the integration gone, or replaced by another one (a different
// auth_provider_project_id than recorded). A failed list is an error
// diagnostic (a 404 explained as a project not visible) and returns false,
// so the caller leaves state untouched.
func (d *providerData) integrationReplaced(ctx context.Context, oldPrivate privateGetter, newPrivate privateSetter,
	projectID, provider, summary string, diags *diag.Diagnostics,
) bool {
	it, ok := d.readIntegration(ctx, projectID, provider, summary, diags)
	if !ok {
		return false
	}
	if it == nil {
		return true
	}
	recorded := getPrivateString(ctx, oldPrivate, privateAuthProjectID, diags)
	if recorded != "" && recorded != it.AuthProviderProjectID {
		return true
	}
	if recorded == "" {
		setPrivateString(ctx, newPrivate, privateAuthProjectID, it.AuthProviderProjectID, diags)
	}
	return false
}

// readIntegration lists the project's integrations. ok is false when the
// list failed (an error diagnostic was added); otherwise the integration is
// returned, nil when it is not listed.
func (d *providerData) readIntegration(ctx context.Context, projectID, provider, summary string, diags *diag.Diagnostics) (*apiclient.Integration, bool) {
	integrations, err := d.listIntegrations(ctx, projectID)
	if err != nil {
		diags.AddError(summary, projectErrorDetail(projectID, "Listing the integrations of project "+projectID, err))
		return nil, false
	}
	return findIntegration(integrations, provider), true
}

// privateGetter and privateSetter are the methods of the framework's private
// state data, whose type is internal to the framework.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// getPrivateString returns a string stored with setPrivateString; "" when absent.
func getPrivateString(ctx context.Context, p privateGetter, key string, diags *diag.Diagnostics) string {
	raw, d := p.GetKey(ctx, key)
	diags.Append(d...)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		diags.AddError("Unreadable private state",
			fmt.Sprintf("The provider's private state key %q holds %q, not a JSON string: %v. This is a bug in the provider; please report it.", key, raw, err))
		return ""
	}
	return s
}

// setPrivateString stores a string as JSON; "" removes the key.
func setPrivateString(ctx context.Context, p privateSetter, key, value string, diags *diag.Diagnostics) {
	var raw []byte
	if value != "" {
		raw, _ = json.Marshal(value) // a string always marshals
	}
	diags.Append(p.SetKey(ctx, key, raw)...)
}
