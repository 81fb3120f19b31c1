package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Reading configuration values and turning API values into Terraform ones.

// isSet reports whether a configuration value is given (known or not).
func isSet(v attr.Value) bool { return !v.IsNull() }

// isKnownSet reports whether a configuration value is given and known.
func isKnownSet(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }

// attributeGetter is what tfsdk.Config, Plan and State share.
type attributeGetter interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}

// writeOnlyString reads a write-only string attribute from the configuration
// (write-only values are never in the plan or the state).
func writeOnlyString(ctx context.Context, cfg attributeGetter, p path.Path, diags *diag.Diagnostics) string {
	var v *string
	diags.Append(cfg.GetAttribute(ctx, p, &v)...)
	if v == nil {
		return ""
	}
	return *v
}

// optionalString is null for the API's empty string.
func optionalString[S ~string](s S) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(string(s))
}

// optionalField is null for an optional field the API left out or sent
// empty.
func optionalField[S ~string](p *S) types.String {
	if p == nil {
		return types.StringNull()
	}
	return optionalString(*p)
}

// knownString is the value of a known string, "" for null or unknown.
func knownString(v types.String) string {
	if v.IsNull() || v.IsUnknown() {
		return ""
	}
	return v.ValueString()
}
