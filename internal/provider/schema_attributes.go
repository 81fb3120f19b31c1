package provider

import (
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Schema attribute builders that resources share: project and scope
// attributes, computed strings, and optional settings.

// projectIDPattern is the id format of the platform API (projects, branches).
var projectIDPattern = regexp.MustCompile(`^[a-z0-9-]{1,60}$`)

// projectIDAttribute is the project_id input of every resource.
func projectIDAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description + " Changing it replaces the resource.",
		Required:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		Validators:          projectIDValidators(),
	}
}

func projectIDValidators() []validator.String {
	return []validator.String{
		stringvalidator.LengthAtLeast(1),
		stringvalidator.RegexMatches(projectIDPattern, "must be a Neon project id: 1 to 60 lower-case letters, digits and dashes, such as `autumn-frost-12345678`"),
	}
}

// computedString is an output that keeps its value across plans.
func computedString(description string, sensitive bool) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Computed:            true,
		Sensitive:           sensitive,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// branchAttributes are project_id and branch_id; what completes "the branch
// …" (such as "that gets Neon Auth"). A type that both API families serve
// says that only the branch-scoped one reaches a branch other than
// production; a type of the branch-scoped API alone (branchOnly) has no need to.
func branchAttributes(what string, branchOnly bool) map[string]schema.Attribute {
	otherBranch := " Another branch needs `auth_api = \"branch\"`."
	if branchOnly {
		otherBranch = ""
	}
	return map[string]schema.Attribute{
		"project_id": projectIDAttribute("Id of the Neon project."),
		"branch_id": schema.StringAttribute{
			MarkdownDescription: "Id of the branch " + what + ". Omitted: the project's production branch, " +
				"recorded at creation." + otherBranch + branchChange,
			Optional:      true,
			Computed:      true,
			PlanModifiers: []planmodifier.String{useStateWhenOmitted{}, requiresReplaceWhenChanged()},
			Validators:    projectIDValidators(),
		},
	}
}

// branchChange ends the description of branch_id: what planBranch
// (onOtherBranch) and requiresReplaceWhenChanged make of a change.
const branchChange = " Changed to another branch for an object in the state, it is refused at plan (`Object on another " +
	"branch`) rather than replacing the object; a `branch_id` not known until apply (its branch is replaced in the same " +
	"run) replaces the resource."

// scopeAttributes are project_id, branch_id and auth_provider.
func scopeAttributes(what, authProviderDescription string) map[string]schema.Attribute {
	return withAttributes(branchAttributes(what, false), map[string]schema.Attribute{
		"auth_provider": schema.StringAttribute{
			MarkdownDescription: authProviderDescription + " Changing it replaces the resource.",
			Optional:            true,
			Computed:            true,
			PlanModifiers:       []planmodifier.String{useStateWhenOmitted{}, requiresReplaceWhenChanged()},
			Validators:          []validator.String{stringvalidator.OneOf(apiclient.AuthProviders...)},
		},
	})
}

// stackAttributes are the scope attributes of the objects that exist only
// for the production branch's Stack Auth integration.
func stackAttributes(what, authProviderDescription, branchDescription string) map[string]schema.Attribute {
	a := scopeAttributes(what, authProviderDescription)
	if b, ok := a["branch_id"].(schema.StringAttribute); ok {
		b.MarkdownDescription = branchDescription + branchChange
		a["branch_id"] = b
	}
	return a
}

// integrationAuthProvider describes an auth_provider taken from the
// integration.
var integrationAuthProvider = "Auth provider of the integration: " + enumText(apiclient.AuthProviders, authProviderNotes) +
	". Omitted: the integration's."

// enumText lists the values a validator accepts as a description says
// them: "`a`, `b` (note) or `c`".
func enumText(values []string, notes map[string]string) string {
	var b strings.Builder
	for i, v := range values {
		switch {
		case i == 0:
		case i == len(values)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString("`" + v + "`")
		if n := notes[v]; n != "" {
			b.WriteString(" (" + n + ")")
		}
	}
	return b.String()
}

// withAttributes merges attribute maps (the shared ones and a type's own) of
// a resource or a data source schema.
func withAttributes[A any](maps ...map[string]A) map[string]A {
	out := map[string]A{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// settingBool is an optional boolean setting; omitted, it keeps the branch's.
func settingBool(description string) schema.BoolAttribute {
	return schema.BoolAttribute{MarkdownDescription: description, Optional: true, Computed: true,
		PlanModifiers: []planmodifier.Bool{useStateWhenOmitted{}}}
}

// settingInt is an optional integer setting within [lo, hi] (hi 0: none).
func settingInt(description string, lo, hi int64) schema.Int64Attribute {
	var v validator.Int64 = int64validator.AtLeast(lo)
	if hi > 0 {
		v = int64validator.Between(lo, hi)
	}
	return schema.Int64Attribute{MarkdownDescription: description, Optional: true, Computed: true,
		PlanModifiers: []planmodifier.Int64{useStateWhenOmitted{}}, Validators: []validator.Int64{v}}
}

// settingEnum is an optional string setting with documented values, which
// its description lists after what ("How emails are verified: `link` or
// `otp` (a one-time code).").
func settingEnum(what string, values []string, notes map[string]string) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: what + ": " + enumText(values, notes) + ".", Optional: true, Computed: true,
		PlanModifiers: []planmodifier.String{useStateWhenOmitted{}}, Validators: []validator.String{stringvalidator.OneOf(values...)}}
}
