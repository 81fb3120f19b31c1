package neonauth

import "github.com/neon-auth/terraform-provider-neon/internal/apiclient"

// Where a Neon Auth object lives: its scope, and the key its shared reads
// are kept under.

// Scope is where a Neon Auth object lives: a scope of the API (project,
// branch, family) and the auth provider of the integration that holds it
// ("" while it is left to the integration).
type Scope struct {
	apiclient.Scope
	AuthProvider string
}

// DefaultAuthProvider is what a new integration uses when no auth provider
// is given: what each family was made for.
func DefaultAuthProvider(f apiclient.Family) string {
	if f == apiclient.FamilyBranch {
		return apiclient.AuthProviderBetterAuth
	}
	return apiclient.AuthProviderStack
}

// keyOf is the shared-read key of a scope: the project-level endpoints
// always reach the production branch, so their key ignores the branch.
func keyOf(s Scope) readKey {
	if s.Family == apiclient.FamilyBranch {
		return readKey{projectID: s.ProjectID, branchID: s.BranchID}
	}
	return readKey{projectID: s.ProjectID}
}
