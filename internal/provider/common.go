package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// providerDataFrom unpacks what Configure handed over. nil ProviderData is
// normal before Configure (validation) and yields nil without a diagnostic.
func providerDataFrom(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *providerData, got %T. This is a bug in the provider; please report it.", data))
		return nil
	}
	return pd
}

// requireClient reports an error when the provider could not be configured
// (its arguments were unknown until now) and returns whether it may go on.
func requireClient(pd *providerData, diags *diag.Diagnostics) bool {
	if pd != nil && pd.client != nil {
		return true
	}
	diags.AddError("Neon provider not configured",
		"The provider block had values that were not known during plan (for example an api_key from another resource), "+
			"so no API client exists yet. Run apply again once those values are known, or set them from static values or environment variables.")
	return false
}

// apiErrorDetail describes an API failure for a diagnostic: what was being
// done, on what, and what the API said, with a hint for the common statuses.
// Secrets never reach it: API error messages name fields, not values.
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
	switch {
	case errors.Is(err, apiclient.ErrUnauthorized):
		b.WriteString(" The API key is missing, invalid or revoked: set a valid key in the provider's api_key or NEON_API_KEY.")
	case errors.Is(err, apiclient.ErrForbidden):
		b.WriteString(" The API key's scope does not allow this action (a project-scoped key cannot manage projects or organization settings).")
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
		"only sees its own project, and a personal key only the organizations its user belongs to. Terraform state was left unchanged. " +
		"Check project_id and the key; if the project was really deleted, remove the resource with `terraform state rm`."
}

// projectErrorDetail explains an API failure on a project path: a 404 gets
// the "not found or not visible to this key" explanation, anything else the
// API's own words.
func projectErrorDetail(projectID, what string, err error) string {
	if isNotFound(err) {
		return projectNotVisibleDetail(projectID, err)
	}
	return apiErrorDetail(what, err)
}

// integrationPresence tells, after a 404 on a sub-resource list of a project,
// whether the project's integration is gone (so everything under it is gone
// too) or whether the project itself is not visible.
//
// It returns (true, nil) when a successful integration list lacks the
// integration, (false, nil) when the integration is there, and an error when
// the integration list fails as well.
func (d *providerData) integrationGone(ctx context.Context, projectID, authProvider string) (bool, error) {
	integrations, err := d.listIntegrations(ctx, projectID)
	if err != nil {
		return false, err
	}
	return findIntegration(integrations, authProvider) == nil, nil
}

func findIntegration(list []apiclient.Integration, authProvider string) *apiclient.Integration {
	for i := range list {
		if list[i].AuthProvider == authProvider {
			return &list[i]
		}
	}
	return nil
}

// listOutcome is the result of reading one thing out of a list endpoint.
type listOutcome int

const (
	// listFound: the list succeeded and holds the thing.
	listFound listOutcome = iota
	// listAbsent: the list succeeded and lacks the thing, or the project's
	// integration (which owns it) is gone from a successful integration list.
	listAbsent
	// listFailed: the answer does not say; the error explains.
	listFailed
)

// readFromList is the shared read-by-listing step of every resource whose
// only read is a list: it fetches the list, looks the thing up, and decides
// "really gone" only from a successful list. A 404 on the list itself is
// resolved through the integration list: if that succeeds without the
// integration, the thing went with it; if that 404s too, the project is not
// visible and the caller reports it without touching state.
func readFromList[T any](ctx context.Context, d *providerData, projectID, authProvider string,
	list func(context.Context, string) ([]T, error), match func(T) bool,
) (*T, listOutcome, error) {
	items, err := list(ctx, projectID)
	if err != nil {
		if !errors.Is(err, apiclient.ErrNotFound) {
			return nil, listFailed, err
		}
		gone, ierr := d.integrationGone(ctx, projectID, authProvider)
		if ierr != nil {
			return nil, listFailed, ierr
		}
		if gone {
			return nil, listAbsent, nil
		}
		return nil, listFailed, err
	}
	for i := range items {
		if match(items[i]) {
			return &items[i], listFound, nil
		}
	}
	return nil, listAbsent, nil
}

func isNotFound(err error) bool { return errors.Is(err, apiclient.ErrNotFound) }

// knownValue checks a value the API returned against the values the spec
// documents. An unexpected one (the beta API changed, or a proxy answered) is
// an error that leaves the state untouched, rather than something stored and
// planned against.
func knownValue(diags *diag.Diagnostics, summary, what, got string, documented ...string) bool {
	if slices.Contains(documented, got) {
		return true
	}
	diags.AddError(summary, fmt.Sprintf("%s: the API returned %q, which is not one of the documented values %q. "+
		"Terraform state was left unchanged. The auth API is in beta and may have changed: check for a newer provider version.",
		what, got, documented))
	return false
}

// baseURLValidator refuses at plan time a base URL the client would refuse.
type baseURLValidator struct{}

var _ validator.String = baseURLValidator{}

func (baseURLValidator) Description(context.Context) string {
	return "must be an https:// URL, or http:// on a loopback host"
}

func (v baseURLValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (baseURLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := apiclient.ParseBaseURL(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Neon API base URL", err.Error())
	}
}

// maxWriteAttempts bounds how often confirmedWrite sends a write whose
// earlier attempts were proven not applied (or are harmless to repeat).
const maxWriteAttempts = 6

// writeRetryWait is the pause before the n-th repeat of a write: growing, so
// that a server in trouble is not pressed, and bounded.
func writeRetryWait(n int) time.Duration {
	return min(250*time.Millisecond<<(n-1), 4*time.Second)
}

// confirmedWrite performs a write that must not be repeated blindly. When its
// outcome is unknown (the response was lost, or a 500/502/504 did not say),
// landed — a fresh read, never a cached list — decides: if the write took
// effect, it is adopted (recovered = true); if the read proves it did not, the
// write is sent again after a short wait, up to maxWriteAttempts in all.
func confirmedWrite(ctx context.Context, what string, write func(context.Context) error, landed func(context.Context) (bool, error)) (recovered bool, err error) {
	for attempt := 1; ; attempt++ {
		err = write(ctx)
		if err == nil || !errors.Is(err, apiclient.ErrOutcomeUnknown) {
			return false, err
		}
		tflog.Warn(ctx, "write outcome unknown; reading back before deciding", map[string]any{"write": what, "attempt": attempt})
		ok, rerr := landed(ctx)
		if rerr != nil {
			return false, fmt.Errorf("%w; reading back to find out whether it was applied failed too: %w", err, rerr)
		}
		if ok {
			tflog.Warn(ctx, "write was applied although its response was lost; adopting it", map[string]any{"write": what})
			return true, nil
		}
		if attempt >= maxWriteAttempts {
			return false, fmt.Errorf("%w (after %d attempts, none known to be applied)", err, attempt)
		}
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("%w; stopped before trying again: %w", err, ctx.Err())
		case <-time.After(writeRetryWait(attempt)):
		}
	}
}
