package provider

import (
	"context"
	"encoding/json"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The settings of neon_auth_data_api (DataAPISettings of the reference, the
// Data API's PostgREST settings): the nested attribute, and its way to and
// from the API.

// dataAPISettingsModel is the settings attribute: DataAPISettings of the
// reference, attribute for field.
type dataAPISettingsModel struct {
	DBAggregatesEnabled      types.Bool   `tfsdk:"db_aggregates_enabled"`
	DBAnonRole               types.String `tfsdk:"db_anon_role"`
	DBExtraSearchPath        types.String `tfsdk:"db_extra_search_path"`
	DBMaxRows                types.Int64  `tfsdk:"db_max_rows"`
	DBSchemas                types.List   `tfsdk:"db_schemas"`
	JWTRoleClaimKey          types.String `tfsdk:"jwt_role_claim_key"`
	JWTCacheMaxLifetime      types.Int64  `tfsdk:"jwt_cache_max_lifetime"`
	OpenAPIMode              types.String `tfsdk:"openapi_mode"`
	ServerCORSAllowedOrigins types.String `tfsdk:"server_cors_allowed_origins"`
	ServerTimingEnabled      types.Bool   `tfsdk:"server_timing_enabled"`
}

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

// dataAPISettingsTypes are the attribute types of the settings object.
var dataAPISettingsTypes = map[string]attr.Type{
	"db_aggregates_enabled": types.BoolType, "db_anon_role": types.StringType, "db_extra_search_path": types.StringType,
	"db_max_rows": types.Int64Type, "db_schemas": types.ListType{ElemType: types.StringType}, "jwt_role_claim_key": types.StringType,
	"jwt_cache_max_lifetime": types.Int64Type, "openapi_mode": types.StringType, "server_cors_allowed_origins": types.StringType,
	"server_timing_enabled": types.BoolType,
}

// dataAPISettingsFromModel is what the settings attribute asks the API for:
// its known values (unknown or null ones are left out); configured reports
// whether it has any.
func dataAPISettingsFromModel(ctx context.Context, obj types.Object) (s apiclient.DataAPISettings, configured bool, diags diag.Diagnostics) {
	if obj.IsNull() || obj.IsUnknown() {
		return s, false, nil
	}
	var m dataAPISettingsModel
	if diags = obj.As(ctx, &m, basetypes.ObjectAsOptions{UnhandledNullAsEmpty: true, UnhandledUnknownAsEmpty: true}); diags.HasError() {
		return s, false, diags
	}
	s.DBAggregatesEnabled, s.ServerTimingEnabled = knownPointer[bool](m.DBAggregatesEnabled), knownPointer[bool](m.ServerTimingEnabled)
	s.DBAnonRole, s.DBExtraSearchPath = knownPointer[string](m.DBAnonRole), knownPointer[string](m.DBExtraSearchPath)
	s.JwtRoleClaimKey, s.OpenapiMode = knownPointer[string](m.JWTRoleClaimKey), knownPointer[string](m.OpenAPIMode)
	s.ServerCorsAllowedOrigins = knownPointer[string](m.ServerCORSAllowedOrigins)
	s.DBMaxRows, s.JwtCacheMaxLifetime = intPointer(m.DBMaxRows), intPointer(m.JWTCacheMaxLifetime)
	if isKnownSet(m.DBSchemas) {
		var schemas []string
		diags.Append(m.DBSchemas.ElementsAs(ctx, &schemas, false)...)
		s.DBSchemas = &schemas
	}
	raw, err := json.Marshal(s)
	return s, err == nil && string(raw) != "{}", diags
}

// knownPointer is the value of a known, set attribute; nil for a null or
// unknown one.
func knownPointer[T any](v interface {
	attr.Value
	ToTerraformValue(context.Context) (tftypes.Value, error)
}) *T {
	if !isKnownSet(v) {
		return nil
	}
	tv, err := v.ToTerraformValue(context.Background())
	var out T
	if err != nil || tv.As(&out) != nil {
		return nil
	}
	return &out
}

// intPointer is the value of a known, set int64 attribute as the API's int.
func intPointer(v types.Int64) *int {
	if !isKnownSet(v) {
		return nil
	}
	n := int(v.ValueInt64())
	return &n
}

// dataAPISettingsToModel is the settings attribute of what the API reports.
func dataAPISettingsToModel(ctx context.Context, s apiclient.DataAPISettings) (types.Object, diag.Diagnostics) {
	m := dataAPISettingsModel{
		DBAggregatesEnabled: types.BoolPointerValue(s.DBAggregatesEnabled), ServerTimingEnabled: types.BoolPointerValue(s.ServerTimingEnabled),
		DBAnonRole: types.StringPointerValue(s.DBAnonRole), DBExtraSearchPath: types.StringPointerValue(s.DBExtraSearchPath),
		JWTRoleClaimKey: types.StringPointerValue(s.JwtRoleClaimKey), OpenAPIMode: types.StringPointerValue(s.OpenapiMode),
		ServerCORSAllowedOrigins: types.StringPointerValue(s.ServerCorsAllowedOrigins),
		DBMaxRows:                types.Int64Null(), JWTCacheMaxLifetime: types.Int64Null(), DBSchemas: types.ListNull(types.StringType),
	}
	if s.DBMaxRows != nil {
		m.DBMaxRows = types.Int64Value(int64(*s.DBMaxRows))
	}
	if s.JwtCacheMaxLifetime != nil {
		m.JWTCacheMaxLifetime = types.Int64Value(int64(*s.JwtCacheMaxLifetime))
	}
	var diags diag.Diagnostics
	if s.DBSchemas != nil {
		m.DBSchemas, diags = types.ListValueFrom(ctx, types.StringType, *s.DBSchemas)
	}
	obj, d := types.ObjectValueFrom(ctx, dataAPISettingsTypes, m)
	diags.Append(d...)
	return obj, diags
}

// knownSettings is a settings value with its unknown parts null, for a Data
// API whose settings the API does not report.
func knownSettings(ctx context.Context, obj types.Object) (types.Object, diag.Diagnostics) {
	s, _, diags := dataAPISettingsFromModel(ctx, obj)
	out, d := dataAPISettingsToModel(ctx, s)
	diags.Append(d...)
	return out, diags
}

// overlaySettings is base with every setting over has (a JSON merge patch:
// every field of both is optional and left out when unset).
func overlaySettings(base, over apiclient.DataAPISettings) (apiclient.DataAPISettings, error) {
	b, err := json.Marshal(base)
	if err != nil {
		return base, err
	}
	o, err := json.Marshal(over)
	if err != nil {
		return base, err
	}
	merged, err := jsonpatch.MergePatch(b, o)
	if err != nil {
		return base, err
	}
	var out apiclient.DataAPISettings
	return out, json.Unmarshal(merged, &out)
}
