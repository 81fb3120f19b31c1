// Package tfmap copies values between a Terraform model, a struct of
// terraform-plugin-framework values with tfsdk tags, and an API type, a
// struct with json tags: an attribute and the field of the same name, by
// one rule for each pair of kinds. A type's file then says which model goes
// with which API type instead of spelling each field on both sides.
//
// The pairs it knows: String with a string (or a type of kind string), Bool
// with a bool, Int64 with an int of any size, List of String with a slice of
// strings, Object with a struct (attribute for field again), each field
// optionally through a pointer. A nil pointer is a null value; a null or
// unknown value leaves its field as it is (nil, for a pointer).
package tfmap

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Expand sets the fields of *api from the attributes of model (a struct or
// a pointer to one) that have a field of the same name: each known value is
// set; a null or unknown one leaves its field as it is. An object sets the
// fields of its struct the same way, over what the struct holds (a copy,
// when it is reached through a pointer), and only when it sets one: an
// optional object with nothing known in it is left out of a request.
func Expand(ctx context.Context, model, api any) diag.Diagnostics {
	var diags diag.Diagnostics
	dst := reflect.ValueOf(api)
	if dst.Kind() != reflect.Pointer || dst.Elem().Kind() != reflect.Struct {
		diags.AddError("Mapping failed", fmt.Sprintf("tfmap: Expand into %T, which is not a pointer to a struct.", api))
		return diags
	}
	fields := jsonFields(dst.Elem())
	for name, v := range modelAttributes(reflect.ValueOf(model)) {
		if f, ok := fields[name]; ok {
			_, d := expandValue(ctx, name, v, f)
			diags.Append(d...)
		}
	}
	return diags
}

// Flatten sets the attributes of *model that have a field of the same name
// in api (a struct or a pointer to one) from that field; the other
// attributes keep their values. The type of each attribute is the one its
// value in *model has, as decoded from a plan or state (a zero Object or
// List has none, an error): an object takes the attributes of that type,
// null where api has no such field.
func Flatten(ctx context.Context, api, model any) diag.Diagnostics {
	var diags diag.Diagnostics
	dst := reflect.ValueOf(model)
	if dst.Kind() != reflect.Pointer || dst.Elem().Kind() != reflect.Struct {
		diags.AddError("Mapping failed", fmt.Sprintf("tfmap: Flatten into %T, which is not a pointer to a struct.", model))
		return diags
	}
	src := reflect.Indirect(reflect.ValueOf(api))
	if src.Kind() != reflect.Struct {
		diags.AddError("Mapping failed", fmt.Sprintf("tfmap: Flatten from %T, which is not a struct.", api))
		return diags
	}
	fields := jsonFields(src)
	for name, f := range modelFields(dst.Elem()) {
		from, ok := fields[name]
		if !ok {
			continue
		}
		current, _ := f.Interface().(attr.Value)
		v, d := flattenValue(ctx, name, from, current.Type(ctx))
		if diags.Append(d...); d.HasError() {
			continue
		}
		f.Set(reflect.ValueOf(v))
	}
	return diags
}

// modelFields are the settable attribute fields of a model struct by their
// tfsdk names, those of embedded structs included.
func modelFields(v reflect.Value) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	for i := range v.NumField() {
		sf, f := v.Type().Field(i), v.Field(i)
		switch name := tagName(sf.Tag.Get("tfsdk")); {
		case sf.Anonymous && f.Kind() == reflect.Struct:
			for n, inner := range modelFields(f) {
				out[n] = inner
			}
		case name != "" && name != "-" && sf.IsExported() && f.Type().Implements(attrValue):
			out[name] = f
		}
	}
	return out
}

// modelAttributes are the values of a model struct (or a pointer to one) by
// their tfsdk names.
func modelAttributes(v reflect.Value) map[string]attr.Value {
	out := map[string]attr.Value{}
	v = reflect.Indirect(v)
	if v.Kind() != reflect.Struct {
		return out
	}
	for name, f := range modelFields(v) {
		if value, ok := f.Interface().(attr.Value); ok { // modelFields keeps only attr.Value fields
			out[name] = value
		}
	}
	return out
}

// jsonFields are the exported fields of an API struct by their json names.
func jsonFields(v reflect.Value) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		if name := tagName(sf.Tag.Get("json")); sf.IsExported() && name != "" && name != "-" {
			out[name] = v.Field(i)
		}
	}
	return out
}

// tagName is the name part of a struct tag's value.
func tagName(tag string) string {
	name, _, _ := strings.Cut(tag, ",")
	return name
}

var attrValue = reflect.TypeFor[attr.Value]()

// expandValue sets dst from v when v is known; set reports whether it did.
func expandValue(ctx context.Context, name string, v attr.Value, dst reflect.Value) (set bool, diags diag.Diagnostics) {
	if v == nil || v.IsNull() || v.IsUnknown() {
		return false, nil
	}
	target := dst
	if dst.Kind() == reflect.Pointer {
		target = reflect.New(dst.Type().Elem()).Elem()
		if !dst.IsNil() {
			target.Set(dst.Elem()) // an object sets its fields over those there
		}
	}
	switch v := v.(type) {
	case basetypes.StringValue:
		set = target.Kind() == reflect.String
		if set {
			target.SetString(v.ValueString())
		}
	case basetypes.BoolValue:
		set = target.Kind() == reflect.Bool
		if set {
			target.SetBool(v.ValueBool())
		}
	case basetypes.Int64Value:
		set = target.CanInt()
		if set {
			target.SetInt(v.ValueInt64())
		}
	case basetypes.ListValue:
		set = target.Kind() == reflect.Slice && target.Type().Elem().Kind() == reflect.String
		if set {
			var items []string
			if diags = v.ElementsAs(ctx, &items, false); diags.HasError() {
				return false, diags
			}
			target.Set(reflect.MakeSlice(target.Type(), len(items), len(items)))
			for i, s := range items {
				target.Index(i).SetString(s)
			}
		}
	case basetypes.ObjectValue:
		if target.Kind() != reflect.Struct {
			break
		}
		fields := jsonFields(target)
		for n, a := range v.Attributes() {
			if f, ok := fields[n]; ok {
				fieldSet, d := expandValue(ctx, name+"."+n, a, f)
				set = set || fieldSet
				diags.Append(d...)
			}
		}
		return set && setThrough(dst, target), diags
	default:
		diags.AddError("Mapping failed", fmt.Sprintf("tfmap: attribute %s is a %T, which has no rule.", name, v))
		return false, diags
	}
	if !set {
		diags.AddError("Mapping failed", fmt.Sprintf("tfmap: attribute %s (%T) does not go into a field of type %s.", name, v, dst.Type()))
		return false, diags
	}
	return setThrough(dst, target), diags
}

// setThrough stores target in dst, through a new pointer when dst is one.
func setThrough(dst, target reflect.Value) bool {
	if dst.Kind() == reflect.Pointer {
		p := reflect.New(dst.Type().Elem())
		p.Elem().Set(target)
		dst.Set(p)
	}
	return true
}

// flattenValue is the value of type t of src; a nil pointer is null.
func flattenValue(ctx context.Context, name string, src reflect.Value, t attr.Type) (attr.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	if src.Kind() == reflect.Pointer && src.IsNil() {
		return nullOf(ctx, name, t)
	}
	src = reflect.Indirect(src)
	switch t := t.(type) {
	case basetypes.StringType:
		if src.Kind() == reflect.String {
			return types.StringValue(src.String()), nil
		}
	case basetypes.BoolType:
		if src.Kind() == reflect.Bool {
			return types.BoolValue(src.Bool()), nil
		}
	case basetypes.Int64Type:
		if src.CanInt() {
			return types.Int64Value(src.Int()), nil
		}
	case basetypes.ListType:
		if src.Kind() == reflect.Slice && src.Type().Elem().Kind() == reflect.String && t.ElemType == types.StringType {
			items := make([]string, src.Len())
			for i := range items {
				items[i] = src.Index(i).String()
			}
			return types.ListValueFrom(ctx, types.StringType, items)
		}
	case basetypes.ObjectType:
		if src.Kind() == reflect.Struct && len(t.AttrTypes) > 0 {
			return flattenObject(ctx, name, src, t)
		}
	}
	diags.AddError("Mapping failed", fmt.Sprintf("tfmap: a field of type %s does not go into attribute %s (%s).", src.Type(), name, t))
	return nil, diags
}

// flattenObject is the object of type t of the struct src: attribute for
// field, null where src has no such field.
func flattenObject(ctx context.Context, name string, src reflect.Value, t basetypes.ObjectType) (attr.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	fields := jsonFields(src)
	values := make(map[string]attr.Value, len(t.AttrTypes))
	for n, at := range t.AttrTypes {
		var v attr.Value
		var d diag.Diagnostics
		if f, ok := fields[n]; ok {
			v, d = flattenValue(ctx, name+"."+n, f, at)
		} else {
			v, d = nullOf(ctx, name+"."+n, at)
		}
		if diags.Append(d...); d.HasError() {
			return nil, diags
		}
		values[n] = v
	}
	obj, d := types.ObjectValue(t.AttrTypes, values)
	diags.Append(d...)
	return obj, diags
}

// nullOf is the null value of type t.
func nullOf(ctx context.Context, name string, t attr.Type) (attr.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	if t == nil {
		diags.AddError("Mapping failed", fmt.Sprintf("tfmap: attribute %s has no type.", name))
		return nil, diags
	}
	v, err := t.ValueFromTerraform(ctx, tftypes.NewValue(t.TerraformType(ctx), nil))
	if err != nil {
		diags.AddError("Mapping failed", fmt.Sprintf("tfmap: no null value of attribute %s: %s.", name, err))
	}
	return v, diags
}
