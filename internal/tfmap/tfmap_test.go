package tfmap

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// An API type as oapi-codegen writes one: optional fields are pointers.
type apiLimits struct {
	MaxRows *int      `json:"max_rows,omitempty"`
	Schemas *[]string `json:"schemas,omitempty"`
	Role    *string   `json:"role,omitempty"`
}

type apiMode string

type apiThing struct {
	Mode    *apiMode   `json:"mode,omitempty"`
	URL     string     `json:"url"`
	Enabled *bool      `json:"enabled,omitempty"`
	Limits  *apiLimits `json:"limits,omitempty"`
	Secret  string     `json:"-"`
}

type place struct {
	ProjectID types.String `tfsdk:"project_id"`
}

// A model: attributes named as the API's fields, and some it does not have.
type thingModel struct {
	place
	Mode    types.String `tfsdk:"mode"`
	URL     types.String `tfsdk:"url"`
	Enabled types.Bool   `tfsdk:"enabled"`
	Limits  types.Object `tfsdk:"limits"`
	Note    types.String `tfsdk:"note"`
}

var limitsType = map[string]attr.Type{
	"max_rows": types.Int64Type, "schemas": types.ListType{ElemType: types.StringType}, "role": types.StringType,
	"comment": types.StringType,
}

func limits(t *testing.T, values map[string]attr.Value) types.Object {
	t.Helper()
	full := map[string]attr.Value{"max_rows": types.Int64Null(), "schemas": types.ListNull(types.StringType),
		"role": types.StringNull(), "comment": types.StringNull()}
	for k, v := range values {
		full[k] = v
	}
	obj, diags := types.ObjectValue(limitsType, full)
	if diags.HasError() {
		t.Fatal(diags)
	}
	return obj
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExpand_sendsKnownValuesByName(t *testing.T) {
	schemas, _ := types.ListValueFrom(context.Background(), types.StringType, []string{"public", "api"})
	m := thingModel{place: place{ProjectID: types.StringValue("p-1")}, Mode: types.StringValue("fast"),
		URL: types.StringUnknown(), Enabled: types.BoolValue(false), Note: types.StringValue("not the API's"),
		Limits: limits(t, map[string]attr.Value{"max_rows": types.Int64Value(100), "schemas": schemas, "role": types.StringUnknown()})}
	var got apiThing
	if diags := Expand(context.Background(), m, &got); diags.HasError() {
		t.Fatal(diags)
	}
	// false is sent (it is known); unknown and null values, and attributes
	// the API type lacks, are not.
	want := `{"mode":"fast","url":"","enabled":false,"limits":{"max_rows":100,"schemas":["public","api"]}}`
	if s := asJSON(t, got); s != want {
		t.Errorf("Expand gave %s, want %s", s, want)
	}
}

func TestExpand_leavesOutAnObjectWithNothingKnown(t *testing.T) {
	for name, obj := range map[string]types.Object{
		"null":            types.ObjectNull(limitsType),
		"unknown":         types.ObjectUnknown(limitsType),
		"nothing known":   limits(t, map[string]attr.Value{"role": types.StringUnknown()}),
		"only non-fields": limits(t, map[string]attr.Value{"comment": types.StringValue("x")}),
	} {
		var got apiThing
		if diags := Expand(context.Background(), thingModel{Limits: obj}, &got); diags.HasError() {
			t.Fatal(name, diags)
		}
		if got.Limits != nil {
			t.Errorf("%s: Expand set limits to %s, want them left out", name, asJSON(t, got.Limits))
		}
	}
}

func TestExpand_refusesAValueItCannotPlace(t *testing.T) {
	type wrong struct {
		Enabled *string `json:"enabled"`
	}
	var got wrong
	if diags := Expand(context.Background(), thingModel{Enabled: types.BoolValue(true)}, &got); !diags.HasError() {
		t.Errorf("Expand put a Bool into a *string: %s", asJSON(t, got))
	}
	if diags := Expand(context.Background(), thingModel{}, got); !diags.HasError() {
		t.Error("Expand into a struct, not a pointer to one, gave no error")
	}
}

func TestFlatten_setsWhatTheAPISaysAndKeepsTheRest(t *testing.T) {
	mode, rows := apiMode("slow"), 5
	api := &apiThing{Mode: &mode, URL: "https://x.example", Limits: &apiLimits{MaxRows: &rows, Schemas: &[]string{"public"}}}
	m := thingModel{place: place{ProjectID: types.StringValue("p-1")}, Mode: types.StringNull(), URL: types.StringUnknown(),
		Enabled: types.BoolValue(true), Limits: types.ObjectUnknown(limitsType), Note: types.StringValue("kept")}
	if diags := Flatten(context.Background(), api, &m); diags.HasError() {
		t.Fatal(diags)
	}
	schemas, _ := types.ListValueFrom(context.Background(), types.StringType, []string{"public"})
	want := thingModel{place: place{ProjectID: types.StringValue("p-1")}, Mode: types.StringValue("slow"),
		URL: types.StringValue("https://x.example"), Enabled: types.BoolNull(), Note: types.StringValue("kept"),
		// comment, which the API type lacks, is null.
		Limits: limits(t, map[string]attr.Value{"max_rows": types.Int64Value(5), "schemas": schemas})}
	for name, pair := range map[string][2]attr.Value{
		"project_id": {m.ProjectID, want.ProjectID}, "mode": {m.Mode, want.Mode}, "url": {m.URL, want.URL},
		"enabled": {m.Enabled, want.Enabled}, "limits": {m.Limits, want.Limits}, "note": {m.Note, want.Note},
	} {
		if !pair[0].Equal(pair[1]) {
			t.Errorf("%s: Flatten gave %s, want %s", name, pair[0], pair[1])
		}
	}
}

func TestFlatten_needsTheModelsTypes(t *testing.T) {
	// A zero Object has no attribute types: nothing says which to fill.
	m := thingModel{}
	if diags := Flatten(context.Background(), apiThing{Limits: &apiLimits{}}, &m); !diags.HasError() {
		t.Errorf("Flatten into an untyped object gave no error, and %s", m.Limits)
	}
}

func TestRoundTrip_isTheIdentityOnKnownValues(t *testing.T) {
	role := "anonymous"
	in := apiThing{URL: "u", Limits: &apiLimits{Role: &role, Schemas: &[]string{}}}
	m := thingModel{Mode: types.StringNull(), URL: types.StringNull(), Enabled: types.BoolNull(), Limits: types.ObjectNull(limitsType)}
	if diags := Flatten(context.Background(), in, &m); diags.HasError() {
		t.Fatal(diags)
	}
	var out apiThing
	if diags := Expand(context.Background(), m, &out); diags.HasError() {
		t.Fatal(diags)
	}
	if a, b := asJSON(t, in), asJSON(t, out); a != b {
		t.Errorf("API → model → API gave %s from %s", b, a)
	}
}

func TestExpand_setsAnObjectOverWhatIsThere(t *testing.T) {
	rows, role := 10, "anonymous"
	there := &apiLimits{MaxRows: &rows, Role: &role}
	got := apiThing{Limits: there}
	m := thingModel{Limits: limits(t, map[string]attr.Value{"role": types.StringValue("reader")})}
	if diags := Expand(context.Background(), m, &got); diags.HasError() {
		t.Fatal(diags)
	}
	if want := `{"url":"","limits":{"max_rows":10,"role":"reader"}}`; asJSON(t, got) != want {
		t.Errorf("Expand gave %s, want %s", asJSON(t, got), want)
	}
	if *there.Role != "anonymous" {
		t.Errorf("Expand changed the struct it set over: role %q", *there.Role)
	}
}
