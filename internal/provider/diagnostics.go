package provider

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The text of diagnostics: what failed, on what, what the API said, and what
// to do. Nothing here does I/O; callers find out what they need (Absence)
// before they explain. Secrets never reach these functions: API error
// messages name fields, not values.

// apiErrorDetail describes an API failure: what was being done, what the API
// answered, and a hint for the common cases.
func apiErrorDetail(what string, err error) string {
	var b strings.Builder
	b.WriteString(what)
	b.WriteString(": ")
	var apiErr *apiclient.Error
	if errors.As(err, &apiErr) {
		fmt.Fprintf(&b, "the API answered HTTP %d", apiErr.StatusCode)
		if apiErr.Code != "" {
			fmt.Fprintf(&b, " (code %q)", apiErr.Code)
		}
		if apiErr.Message != "" {
			fmt.Fprintf(&b, ": %s", apiErr.Message)
		}
		if apiErr.RequestID != "" {
			fmt.Fprintf(&b, ". Request id: %s", apiErr.RequestID)
		}
		b.WriteString(".")
		if full := err.Error(); full != apiErr.Error() {
			// The API error was wrapped with more of the story (a read-back
			// that failed too, how many attempts were made): keep it.
			fmt.Fprintf(&b, " In full: %s.", full)
		}
	} else {
		b.WriteString(err.Error())
		b.WriteString(".")
	}
	var budget *apiclient.BudgetError
	var refused *apiclient.KeyRefusedError
	switch {
	case errors.As(err, &refused), errors.Is(err, apiclient.ErrInterrupted):
		// Short on purpose: the first 401 of the run has the whole story,
		// and an interrupt needs none.
	case errors.Is(err, apiclient.ErrUnauthorized):
		b.WriteString(" The API key is missing, invalid or revoked: set a valid key in the provider's api_key or NEON_API_KEY.")
	case errors.Is(err, apiclient.ErrForbidden):
		b.WriteString(" The API key's scope does not allow this action: a project-scoped key only sees its own project, and cannot " +
			"manage projects or organization settings. Check project_id and the key.")
	case errors.As(err, &budget) && budget.Limit == apiclient.LimitTime:
		b.WriteString(" The operation's time budget ran out; raise the provider's retry_timeout if the API is slow or busy.")
	case errors.Is(err, apiclient.ErrRateLimited):
		b.WriteString(" The account's rate limit was still exceeded after every retry; lower requests_per_minute if other clients share the account, or raise max_retries.")
	case errors.Is(err, apiclient.ErrOutcomeUnknown):
		b.WriteString(" The request was sent but its response was lost; the change may have been applied. Run a plan to see the real state.")
	}
	return b.String()
}

// projectNotVisibleDetail explains a 404 on a project path. It cannot tell a
// deleted project from one the key may not see, so it never means "gone".
func projectNotVisibleDetail(projectID string, err error) string {
	return apiErrorDetail(fmt.Sprintf("Project %s", projectID), err) +
		" The project was not found. Either it does not exist (any more), or the API key cannot see it: a project-scoped key " +
		"only sees its own project, and a personal key only the organizations its user belongs to. Check project_id and the key."
}

// stateRmWhenGone completes projectNotVisibleDetail for an object in state
// (never for a create, which has nothing in state to remove).
const stateRmWhenGone = " Terraform state was left unchanged; if the project was really deleted, remove the resource with `terraform state rm`."

// projectErrorDetail explains an API failure on a project path: a 404 gets
// the "not found or not visible to this key" explanation, anything else the
// API's own words.
func projectErrorDetail(projectID, what string, err error) string {
	if isNotFound(err) {
		return projectNotVisibleDetail(projectID, err)
	}
	return apiErrorDetail(what, err)
}

// scopeErrorDetail explains a failure on something under a Neon Auth scope,
// given what neonauth's Absence found out about the scope's integration (p,
// perr) after a 404. Other errors get the API's own words.
func scopeErrorDetail(s neonauth.Scope, what string, err error, p neonauth.Presence, perr error) string {
	if !isNotFound(err) {
		return apiErrorDetail(what, err)
	}
	switch p {
	case neonauth.Gone:
		integration := "Neon Auth"
		if s.AuthProvider != "" {
			integration = s.AuthProvider
		}
		return apiErrorDetail(what, err) + fmt.Sprintf(" The %s has no active %s integration. Create a neon_auth_integration first "+
			"and set project_id (and branch_id) from it, such as project_id = neon_auth_integration.<name>.project_id, so that "+
			"Terraform creates it before this one.", s.Scope, integration)
	case neonauth.NotVisible:
		return projectNotVisibleDetail(s.ProjectID, perr)
	case neonauth.Present:
		return apiErrorDetail(what, err) + " The integration exists, so it is this object that was not found."
	default:
		if perr != nil {
			return apiErrorDetail(what, err) + " Finding out why failed too: " + apiErrorDetail("Reading the integration", perr)
		}
		return apiErrorDetail(what, err)
	}
}

// branchNotInProject explains a branch_id that the project's branch list
// lacks: a branch of another project, or one that no longer exists.
func branchNotInProject(projectID, branchID string) string {
	return fmt.Sprintf("branch_id %s is not a branch of project %s: it was deleted, or it belongs to another project. Set "+
		"branch_id to a branch of project %s (its production branch when omitted), or set project_id to the project that has "+
		"branch %s.", branchID, projectID, projectID, branchID)
}

// productionStackOnly explains why SDK keys and ownership transfers exist
// only for a Stack Auth integration on the production branch.
func productionStackOnly(t typeName) string {
	return fmt.Sprintf("`%s` works only for a Stack Auth (`stack`) integration on the project's production branch: its endpoint "+
		"has no branch-scoped successor. Better Auth integrations have no SDK keys and no managed project to transfer: their "+
		"clients use the integration's `base_url` and verify tokens with its JWKS (`jwks_url`).", t)
}

// importHint is the advice after a 409: exists says what already exists (a
// sentence); import it.
func importHint(exists string, resourceType typeName, id string) string {
	return fmt.Sprintf("\n\n%s To manage it with Terraform, import it:\n\n"+
		"  terraform import %[2]s.<name> %[3]s\n\n"+
		"or add an import block:\n\n  import {\n    to = %[2]s.<name>\n    id = %[3]q\n  }", exists, resourceType, id)
}

// warnUnknownValue warns when the API returns a value the spec does not
// document — a beta API that gained a provider id, type or owner. The raw
// value is kept: one new value must not block every plan until a provider
// upgrade.
func warnUnknownValue[S ~string](diags *diag.Diagnostics, what string, value S, documented ...string) {
	got := string(value)
	if got == "" || slices.Contains(documented, got) {
		return
	}
	diags.AddWarning("Undocumented value from the Neon API",
		fmt.Sprintf("%s: the API returned %q, which is not one of the documented values %q. It was kept as it is. "+
			"The auth API is in beta and may have changed: check for a newer provider version.", what, got, documented))
}

// isNotFound reports whether err is a 404 (or wraps one).
func isNotFound(err error) bool { return errors.Is(err, apiclient.ErrNotFound) }
