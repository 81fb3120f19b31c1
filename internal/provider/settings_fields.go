package provider

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// The settings of a settings resource are the fields of the API's value of
// the same name: an attribute `expires_in` is the field whose JSON name is
// expires_in. The API value's type comes from the reference (package
// neonapi), so an attribute is written once, in its model and schema, and
// these functions carry it between the two.
//
// API fields are booleans, integers, strings (or string enums), lists of
// strings, or pointers to them (optional in the reference); attributes are
// types.Bool, types.Int64, types.String and types.Set or types.List of
// strings. An optional field the API leaves out (nil) is null, except a
// list, which is empty; so is an optional string the API reports empty.

// settingField pairs an attribute of a model with its API field.
type settingField struct {
	model, api int // field indexes
	name       string
}

// settingFields pairs the attributes of model type M with the fields of API
// type A by name; M's embedded structs (the scope and id) are left out, and
// so is an attribute the API does not have (such as a removed one, always
// null). A mismatch of kinds is a bug, reported at once.
func settingFields(m, a reflect.Type) []settingField {
	api := map[string]int{}
	for i := range a.NumField() {
		name, _, _ := strings.Cut(a.Field(i).Tag.Get("json"), ",")
		api[name] = i
	}
	var out []settingField
	for i := range m.NumField() {
		f := m.Field(i)
		name := f.Tag.Get("tfsdk")
		j, ok := api[name]
		if f.Anonymous || !ok {
			continue
		}
		if err := checkPair(f.Type, a.Field(j).Type); err != nil {
			panic(fmt.Sprintf("settings attribute %s of %s: %v", name, m, err))
		}
		out = append(out, settingField{model: i, api: j, name: name})
	}
	return out
}

// checkPair says why an attribute type cannot hold an API field's type.
func checkPair(attrT, apiT reflect.Type) error {
	if apiT.Kind() == reflect.Pointer {
		apiT = apiT.Elem()
	}
	ok := false
	switch attrT {
	case reflect.TypeFor[types.Bool]():
		ok = apiT.Kind() == reflect.Bool
	case reflect.TypeFor[types.Int64]():
		ok = apiT.Kind() >= reflect.Int && apiT.Kind() <= reflect.Int64
	case reflect.TypeFor[types.String]():
		ok = apiT.Kind() == reflect.String
	case reflect.TypeFor[types.Set](), reflect.TypeFor[types.List]():
		ok = apiT.Kind() == reflect.Slice && apiT.Elem().Kind() == reflect.String
	}
	if !ok {
		return fmt.Errorf("%s cannot hold the API's %s", attrT, apiT)
	}
	return nil
}

// settingsToModel writes the API value v into the attributes of model m
// (a pointer to the model struct).
func settingsToModel(fields []settingField, v, m any) {
	av, mv := reflect.ValueOf(v), reflect.ValueOf(m).Elem()
	for _, f := range fields {
		dst := mv.Field(f.model)
		dst.Set(reflect.ValueOf(attrOf(av.Field(f.api), dst.Type())))
	}
}

// attrOf is an API field's value as an attribute of type t.
func attrOf(v reflect.Value, t reflect.Type) attr.Value {
	pointer := v.Kind() == reflect.Pointer
	absent := pointer && v.IsNil()
	if pointer && !absent {
		v = v.Elem()
	}
	switch t {
	case reflect.TypeFor[types.Bool]():
		if absent {
			return types.BoolNull()
		}
		return types.BoolValue(v.Bool())
	case reflect.TypeFor[types.Int64]():
		if absent {
			return types.Int64Null()
		}
		return types.Int64Value(v.Int())
	case reflect.TypeFor[types.String]():
		if absent || pointer && v.String() == "" {
			return types.StringNull()
		}
		return types.StringValue(v.String())
	}
	var elems []attr.Value
	for i := 0; !absent && i < v.Len(); i++ {
		elems = append(elems, types.StringValue(v.Index(i).String()))
	}
	if t == reflect.TypeFor[types.Set]() {
		return types.SetValueMust(types.StringType, elems)
	}
	return types.ListValueMust(types.StringType, elems)
}

// settingsOverlay puts the known attributes of model m over the API value
// base (a pointer to a copy, changed in place); null and unknown attributes
// leave base's value.
func settingsOverlay(fields []settingField, m, base any) {
	mv, av := reflect.ValueOf(m), reflect.ValueOf(base).Elem()
	for _, f := range fields {
		a, ok := mv.Field(f.model).Interface().(attr.Value)
		if !ok || a.IsNull() || a.IsUnknown() {
			continue
		}
		dst := av.Field(f.api)
		if dst.Kind() == reflect.Pointer {
			dst.Set(reflect.New(dst.Type().Elem()))
			dst = dst.Elem()
		}
		setFromAttr(dst, a)
	}
}

// setFromAttr sets an API field from a known attribute.
func setFromAttr(dst reflect.Value, a attr.Value) {
	switch a := a.(type) {
	case types.Bool:
		dst.SetBool(a.ValueBool())
	case types.Int64:
		dst.SetInt(a.ValueInt64())
	case types.String:
		dst.SetString(a.ValueString())
	case types.Set:
		setStrings(dst, a.Elements())
	case types.List:
		setStrings(dst, a.Elements())
	}
}

func setStrings(dst reflect.Value, elems []attr.Value) {
	out := reflect.MakeSlice(dst.Type(), 0, len(elems))
	for _, e := range elems {
		if s, ok := e.(basetypes.StringValue); ok {
			out = reflect.Append(out, reflect.ValueOf(s.ValueString()).Convert(dst.Type().Elem()))
		}
	}
	dst.Set(out)
}
