package emulator

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
)

// The API reference as the emulator reads it, and working with its
// generated shapes (internal/apispec/neonapi): optional fields, merges of
// nested settings, one shape converted into another, and compute units,
// which the reference gives as float32.

const jsonMediaType = "application/json"

// referenceDocument is the API reference with its overlays (apispec), loaded
// once per process into a copy of the emulator's own, whose request objects
// closeObjects closes.
var referenceDocument = sync.OnceValues(func() (*openapi3.T, error) {
	data, err := apispec.ReferenceJSON()
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("emulator: load the API reference: %w", err)
	}
	closed := map[*openapi3.Schema]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				if mt := op.RequestBody.Value.Content.Get(jsonMediaType); mt != nil {
					closeObjects(mt.Schema, closed)
				}
			}
		}
	}
	return doc, nil
})

// closeObjects makes every object of a request schema refuse the members it
// does not define where the reference leaves that open: the emulator's
// stricter reading, since the document rarely says additionalProperties.
// The object parts of an allOf are merged first, so that no part refuses
// another's members; a oneOf's alternatives are closed, not the oneOf.
func closeObjects(ref *openapi3.SchemaRef, closed map[*openapi3.Schema]bool) {
	if ref == nil || ref.Value == nil || closed[ref.Value] {
		return
	}
	s := ref.Value
	if len(s.AllOf) > 0 {
		merged := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Properties: openapi3.Schemas{}}
		for _, part := range s.AllOf {
			maps.Copy(merged.Properties, part.Value.Properties)
			merged.Required = append(merged.Required, part.Value.Required...)
		}
		ref.Value, s = merged, merged
	}
	closed[s] = true
	isObject := (s.Type.Is(openapi3.TypeObject) || len(s.Properties) > 0) && len(s.OneOf) == 0 && len(s.AnyOf) == 0
	if isObject && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
		s.AdditionalProperties.Has = new(false)
	}
	for _, p := range s.Properties {
		closeObjects(p, closed)
	}
	for _, alt := range s.OneOf {
		closeObjects(alt, closed)
	}
	closeObjects(s.Items, closed)
	closeObjects(s.AdditionalProperties.Schema, closed)
}

// orZero is p, or a new zero value for nil: an optional object of a
// request, read as empty when absent.
func orZero[T any](p *T) *T {
	if p == nil {
		return new(T)
	}
	return p
}

// nonEmpty is a pointer to s, or nil for "": an optional field of an
// answer that is absent when the emulator holds no value.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is the value of an optional field and whether it was given.
func deref[T any](v *T) (value T, given bool) {
	if v == nil {
		return value, false
	}
	return *v, true
}

// valueOf is the value of an optional field, its zero value when absent.
func valueOf[T any](v *T) T {
	value, _ := deref(v)
	return value
}

// set copies a value that was given.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// convertShape fills dst, one shape of the reference, from src, another:
// the fields they share carry over by name (a project of the list becomes
// the project that GET /projects/{project_id} shows).
func convertShape(src, dst any) error {
	raw, err := json.Marshal(src)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, dst)
}

// merged is base with patch applied as a JSON Merge Patch (RFC 7386):
// objects merge member by member, anything else replaces; nil patch
// changes nothing. The result shares nothing with either.
func merged[T any](base, patch *T) *T {
	if patch == nil {
		return clonePtr(base)
	}
	b, p := mustEncode(base), mustEncode(patch)
	if base == nil {
		b = []byte("{}")
	}
	raw, err := jsonpatch.MergePatch(b, p)
	if err != nil {
		panic(fmt.Sprintf("emulator: merge %T: %v", patch, err))
	}
	return mustDecode[T](string(raw))
}

// clonePtr is a deep copy of *v (nil for nil).
func clonePtr[T any](v *T) *T {
	if v == nil {
		return nil
	}
	return mustDecode[T](string(mustEncode(v)))
}

// mustEncode is the JSON of a value of the emulator's own.
func mustEncode(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("emulator: encode %T: %v", v, err))
	}
	return raw
}

// mustDecode is the value of a JSON literal of the emulator's own.
func mustDecode[T any](literal string) *T {
	out := new(T)
	if err := json.Unmarshal([]byte(literal), out); err != nil {
		panic(fmt.Sprintf("emulator: decode %T: %v", out, err))
	}
	return out
}

// computeUnits is a compute size given as the reference's float32 (a
// ComputeUnit) as the float64 the emulator keeps: the same decimal (0.3,
// not 0.30000001192092896).
func computeUnits(cu float32) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(cu), 'g', -1, 32), 64)
	return f
}

// number is a compute size as messages show it: 0.25, 2.
func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// find is the first element of s that f accepts; nil when none does.
func find[T any](s []*T, f func(*T) bool) *T {
	if i := slices.IndexFunc(s, f); i >= 0 {
		return s[i]
	}
	return nil
}

// mapped is f of each element of s, in order; never nil.
func mapped[T, U any](s []T, f func(T) U) []U {
	out := make([]U, 0, len(s))
	for _, x := range s {
		out = append(out, f(x))
	}
	return out
}

// orEmpty is s, or an empty slice for nil: a list that answers [].
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
