package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// Some things cannot be read back at all (users, SDK keys, ownership
// transfer requests): they are tied to the integration they were created
// under. These helpers follow that integration.

// readIntegration reads the scope's integration for a Read. ok is false when
// the read failed (an error diagnostic was added, and state must be left as
// it is); otherwise the integration is returned, nil when it is not there —
// when it went with its branch or project, a warning says so.
func (c *configured) readIntegration(ctx context.Context, s neonauth.Scope, summary string, diags *diag.Diagnostics) (*apiclient.Integration, bool) {
	it, _, ok := c.readIntegrationWhy(ctx, s, summary, diags)
	return it, ok
}

// readIntegrationWhy is readIntegration that also tells, when there is no
// integration, whether it went with its branch or project (why wraps
// neonauth's ErrBranchGone or ErrProjectGone; nil otherwise).
func (c *configured) readIntegrationWhy(ctx context.Context, s neonauth.Scope, summary string, diags *diag.Diagnostics) (it *apiclient.Integration, why error, ok bool) {
	it, p, err := c.data.auth.IntegrationPresence(ctx, s)
	switch p {
	case neonauth.Present:
		return it, nil, true
	case neonauth.Gone:
		c.warnGoneWith(diags, s.ProjectID, s.BranchID, err)
		return nil, err, true
	case neonauth.NotVisible:
		diags.AddError(summary, projectNotVisibleDetail(s.ProjectID, err)+stateRmWhenGone)
	default:
		diags.AddError(summary, apiErrorDetail("Reading the integration of "+s.String(), err))
	}
	return nil, nil, false
}

// recordIntegration remembers in private state which integration (managed
// auth project) a thing was created under. A failed read only skips it: the
// next Read records it.
func (c *configured) recordIntegration(ctx context.Context, private privateSetter, s neonauth.Scope, diags *diag.Diagnostics) {
	it, err := c.data.auth.Integration(ctx, s)
	if err != nil || it == nil {
		tflog.Debug(ctx, "could not record the integration; the next refresh will", map[string]any{"project_id": s.ProjectID})
		return
	}
	setPrivateString(ctx, private, privateAuthProjectID, it.AuthProviderProjectID, diags)
}

// origin is what the Read of a thing that cannot be read itself finds of
// its origin integration, the one it was created under.
type origin int

const (
	// originSame: that integration is there.
	originSame origin = iota
	// originReplaced: a successful read shows it gone, or replaced by
	// another (a different auth_provider_project_id than recorded).
	originReplaced
	// originWentWithBranch: it went with its branch or project, and the
	// thing with it (a warning says so).
	originWentWithBranch
	// originUnread: the read failed (an error diagnostic says why).
	originUnread
)

// readOrigin reads the scope's integration for the Read of a thing
// created under it (see origin).
func (c *configured) readOrigin(ctx context.Context, old privateGetter, now privateSetter, s neonauth.Scope, diags *diag.Diagnostics) origin {
	it, why, ok := c.readIntegrationWhy(ctx, s, c.unable("Read"), diags)
	switch {
	case !ok:
		return originUnread
	case it == nil && why != nil:
		return originWentWithBranch
	case it == nil:
		return originReplaced
	}
	recorded := getPrivateString(ctx, old, privateAuthProjectID, diags)
	if recorded != "" && recorded != it.AuthProviderProjectID {
		return originReplaced
	}
	if recorded == "" {
		setPrivateString(ctx, now, privateAuthProjectID, it.AuthProviderProjectID, diags)
	}
	return originSame
}
