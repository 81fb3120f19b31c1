package provider

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Schema attributes that many resources share.

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
