package provider

import (
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The settings of neon_auth_data_api (DataAPISettings of the reference, the
// Data API's PostgREST settings): the nested attribute, attribute for field
// (tfmap maps them), its check, and the overlay of configured settings on
// those a Data API has.

// dataAPIOpenAPIModes are the values of settings.openapi_mode, which the
// reference names in its description.
var dataAPIOpenAPIModes = []string{"ignore-privileges", "disabled"}

// dataAPISettingsAttribute is the settings attribute: each setting optional,
// shown as the API reports it when omitted.
func dataAPISettingsAttribute() schema.SingleNestedAttribute {
	text := func(description string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: description, Optional: true, Computed: true,
			PlanModifiers: []planmodifier.String{useStateWhenOmitted{}}, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
	}
	return schema.SingleNestedAttribute{
		MarkdownDescription: "The Data API's settings (PostgREST's), which change in place. A setting left out keeps the value " +
			"the Data API has, shown as the API reports it (those the API does not report stay null). An update sends every " +
			"setting, since the API replaces them all.",
		Optional:      true,
		Computed:      true,
		PlanModifiers: []planmodifier.Object{useStateWhenOmitted{}},
		Attributes: map[string]schema.Attribute{
			"db_schemas": schema.ListAttribute{
				MarkdownDescription: "Schemas the Data API exposes, the first being the default. The API's default: `[\"public\"]`.",
				Optional:            true, Computed: true, ElementType: types.StringType,
				PlanModifiers: []planmodifier.List{useStateWhenOmitted{}},
				Validators:    []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"db_anon_role":                text("Role of requests without a token. The API's default: `anonymous`."),
			"db_extra_search_path":        text("Schemas added to the search path, comma-separated, such as `extensions`."),
			"db_max_rows":                 settingInt("Most rows one request returns. Unset: no limit.", 1, 0),
			"db_aggregates_enabled":       settingBool("Allow aggregate functions (`count()`, `sum()`, …) in requests. The API's default: `true`."),
			"jwt_role_claim_key":          text("Where in the JWT the role to switch to is, as a JSONPath. The API's default: `.role`."),
			"jwt_cache_max_lifetime":      settingInt("Seconds a verified JWT is cached.", 0, 0),
			"openapi_mode":                settingEnum("Whether `<url>/openapi.json` describes the API", dataAPIOpenAPIModes, map[string]string{"disabled": "the API's default"}),
			"server_cors_allowed_origins": text("Origins allowed by CORS, comma-separated. Unset: every origin."),
			"server_timing_enabled":       settingBool("Send `Server-Timing` headers."),
		},
	}
}

// checkDataAPISchemas refuses a db_schemas that lists a schema twice.
func checkDataAPISchemas(settings *apiclient.DataAPISettings, diags *diag.Diagnostics) {
	if settings == nil || settings.DBSchemas == nil {
		return
	}
	schemas := *settings.DBSchemas
	for i, name := range schemas {
		if slices.Contains(schemas[:i], name) {
			diags.AddAttributeError(path.Root("settings").AtName("db_schemas"), "Schema listed twice",
				fmt.Sprintf("`settings.db_schemas` lists the schema %q twice. List each schema once; the first is the default.", name))
			return
		}
	}
}
