package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The framework side of taking over what a branch inherited (neonauth
// decides, see MayTakeOver): the provider setting inherited_auth, why a
// found object is refused, and the warning of a take-over. Private state
// keeps what was taken over (recordTakeOver), so that destroy puts it back.

// Provider setting inherited_auth: what a create does with an object its
// branch already has. "adopt" is the setting's word for a take-over.
const (
	inheritedAdopt  = "adopt"
	inheritedRefuse = "refuse"
	// envInheritedAuth is read when the provider block has no
	// inherited_auth.
	envInheritedAuth = "NEON_INHERITED_AUTH"
)

// inheritedAuthAttribute is the provider argument inherited_auth.
func inheritedAuthAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "What a create does with an object that a branch already has because it inherited it: a branch " +
			"created from a parent starts with a copy of the parent's Neon Auth (integration, users, settings, OAuth providers, " +
			"trusted domains, webhooks). `\"adopt\"` (default): take it over with a warning that names it, apply the " +
			"configuration to it, and put it back as found on destroy instead of deleting it. `\"refuse\"`: fail with an " +
			"import hint, as for any object made outside Terraform. On a root branch (the production branch) and in project " +
			"mode nothing is inherited, and such objects are always refused. Falls back to `" + envInheritedAuth + "`.",
		Optional:   true,
		Validators: []validator.String{stringvalidator.OneOf(inheritedAdopt, inheritedRefuse)},
	}
}

// takeOverRefusal says why a create refuses the object it found on s (it
// completes the import hint); "" for a take-over.
func takeOverRefusal(s neonauth.Scope, t neonauth.TakeOver) string {
	switch t.Refused {
	case neonauth.RefusedProjectMode:
		return "The project-level endpoints (auth_api = \"project\") reach only the production branch, which inherits nothing."
	case neonauth.RefusedBySetting:
		return "inherited_auth is \"refuse\" (in the provider block or " + envInheritedAuth + "), so objects a branch inherited from its parent are not taken over either."
	case neonauth.RefusedEnabledHere:
		return fmt.Sprintf("This run enabled Neon Auth on %s itself, so nothing on it was inherited.", s.Scope)
	case neonauth.RefusedBranchUnread:
		return "Whether the branch inherited it from a parent could not be told: " + apiErrorDetail("Listing the branches of project "+s.ProjectID, t.Err)
	case neonauth.RefusedBranchMissing:
		return branchNotInProject(s.ProjectID, s.BranchID)
	case neonauth.RefusedRootBranch:
		return fmt.Sprintf("Branch %s is a root branch (the production branch, or one created schema-only): it inherited "+
			"nothing, so an object on it that is not in the state was made outside Terraform.", s.BranchID)
	}
	return ""
}

// takeOverWarning is the warning of a take-over: what was found, where it
// came from, and what destroy does with it.
func takeOverWarning(diags *diag.Diagnostics, s neonauth.Scope, parent, what, onDestroy string) {
	diags.AddWarning("Inherited "+what+" taken over",
		fmt.Sprintf("Branch %[1]s of project %[2]s was created from branch %[3]s and started with a copy of its Neon Auth, so its %[4]s "+
			"was already there: the provider took it over instead of creating it, and applied this configuration to it. %[5]s "+
			"To refuse inherited objects instead, set inherited_auth = \"refuse\" in the provider block.",
			s.BranchID, s.ProjectID, parent, what, onDestroy))
}
