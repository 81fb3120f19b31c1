package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
)

// Request bodies decided by the API reference. The fields an operation
// accepts and the rules of their values (type, enum, range, length, pattern,
// format, required) come from the operation's request body schema in Neon's
// OpenAPI document (internal/apispec), so a field the document gains is
// accepted without code. A field the document does not define is refused
// (the emulator's strict reading: the document rarely says
// additionalProperties), as is a value that breaks the document's rules; the
// error names the field: "project.pg_version: must be from 14 to 18". What
// the document cannot say (a taken name, a missing parent) stays with the
// handlers.

// documentBodies maps a route key ("POST /projects") to the request body
// schema the document gives that operation.
var documentBodies = sync.OnceValues(func() (map[string]*openapi3.Schema, error) {
	doc, err := apispec.Document()
	if err != nil {
		return nil, err
	}
	out := map[string]*openapi3.Schema{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			mt := op.RequestBody.Value.Content.Get("application/json")
			if mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
				out[method+" "+path] = mt.Schema.Value
			}
		}
	}
	return out, nil
})

// bodySchema is the document's request body schema of a route; nil when the
// document gives none.
func bodySchema(rt *route) *openapi3.Schema {
	if rt == nil {
		return nil
	}
	bodies, err := documentBodies()
	if err != nil {
		return nil
	}
	return bodies[rt.key]
}

// documentFields are the top-level fields the document defines for the
// request body of c's route (none when it defines no body): those of its
// object, or of any of its alternatives (oneOf).
func documentFields(c *call) []string {
	s := bodySchema(c.route)
	if s == nil {
		return nil
	}
	fields := shapeOf(s).props
	for _, alt := range s.OneOf {
		if alt.Value != nil {
			maps.Copy(fields, shapeOf(alt.Value).props)
		}
	}
	return slices.Sorted(maps.Keys(fields))
}

// readDocumentBody reads the request body of c's route and checks it
// against the document's schema of that route: unknown fields and values
// that break the document's rules are refused with 400 naming the field.
// An empty body is an error unless optional (then an empty object). The
// route must have a schema in the document.
func readDocumentBody(c *call, optional bool) (object, error) {
	s := bodySchema(c.route)
	if s == nil {
		return nil, fmt.Errorf("emulator: the API reference has no request body for %s", c.route.key)
	}
	data, err := readJSON(c, optional)
	if err != nil || data == nil {
		return object{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalid("request body", "must be a JSON object")
	}
	if dec.More() {
		return nil, invalid("request body", "unexpected data after the JSON object")
	}
	body, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("request body", "must be a JSON object")
	}
	// A member that is null counts as absent, as in every body (parseObject).
	maps.DeleteFunc(body, func(_ string, x any) bool { return x == nil })
	if err := checkValue("", s, body); err != nil {
		return nil, err
	}
	return parseObject(data, "", documentFields(c))
}

// checkValue checks a decoded JSON value (numbers as json.Number) against
// s; path names the value in errors ("" for the body itself).
func checkValue(path string, s *openapi3.Schema, v any) error {
	switch {
	case v == nil:
		if s.Nullable {
			return nil
		}
		return invalid(fieldName(path), "must not be null")
	case len(s.OneOf) > 0:
		return checkOneOf(path, s, v)
	}
	for _, part := range s.AllOf {
		// Object parts are merged into one shape by checkObject.
		if part.Value != nil && schemaType(part.Value) != "object" {
			if err := checkValue(path, part.Value, v); err != nil {
				return err
			}
		}
	}
	if err := checkType(path, s, v); err != nil {
		return err
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return sameJSON(e, v) }) {
		return invalid(fieldName(path), "must be one of %s", enumText(s.Enum))
	}
	switch x := v.(type) {
	case string:
		return checkString(path, s, x)
	case json.Number:
		return checkNumber(path, s, x)
	case []any:
		return checkArray(path, s, x)
	case map[string]any:
		return checkObject(path, s, x)
	}
	return nil
}

// checkOneOf accepts a value that exactly one alternative accepts; with
// none, the first alternative's complaint is the answer. Where the schema
// has a discriminator, the alternative it maps the value to decides.
func checkOneOf(path string, s *openapi3.Schema, v any) error {
	if alt, err := discriminated(path, s, v); err != nil || alt != nil {
		if err != nil {
			return err
		}
		return checkValue(path, alt, v)
	}
	var first error
	matched := 0
	for _, alt := range s.OneOf {
		err := checkValue(path, alt.Value, v)
		if err == nil {
			matched++
		} else if first == nil {
			first = err
		}
	}
	switch matched {
	case 1:
		return nil
	case 0:
		return first
	}
	return invalid(fieldName(path), "matches more than one of the forms the API reference allows")
}

// discriminated is the alternative of a oneOf that its discriminator maps
// an object to, or the error of an object the discriminator cannot map; nil
// and nil when the schema has no discriminator mapping.
func discriminated(path string, s *openapi3.Schema, v any) (*openapi3.Schema, error) {
	d := s.Discriminator
	obj, isObject := v.(map[string]any)
	if d == nil || len(d.Mapping) == 0 || !isObject {
		return nil, nil
	}
	field := join(path, d.PropertyName)
	value, given := obj[d.PropertyName]
	if !given {
		return nil, invalid(field, "is required")
	}
	name, _ := value.(string)
	ref, known := d.Mapping[name]
	if !known {
		return nil, invalid(field, "must be one of %s", strings.Join(slices.Sorted(maps.Keys(d.Mapping)), ", "))
	}
	for _, alt := range s.OneOf {
		if alt.Ref == ref.Ref && alt.Value != nil {
			return alt.Value, nil
		}
	}
	return nil, fmt.Errorf("emulator: the API reference maps %s %q to %s, which is none of its alternatives", field, name, ref.Ref)
}

// schemaType is the JSON type s demands ("" for any): its type, or
// "object" when it is made of object parts.
func schemaType(s *openapi3.Schema) string {
	if s.Type != nil && len(*s.Type) > 0 {
		return (*s.Type)[0]
	}
	if len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil {
		return "object"
	}
	for _, part := range s.AllOf {
		if part.Value != nil && schemaType(part.Value) == "object" {
			return "object"
		}
	}
	return ""
}

// typeWords say what a value of each JSON type must be.
var typeWords = map[string]string{
	"object": "a JSON object", "array": "an array", "string": "a string",
	"integer": "an integer", "number": "a number", "boolean": "a boolean",
}

func checkType(path string, s *openapi3.Schema, v any) error {
	want := schemaType(s)
	ok := true
	switch want {
	case "object":
		_, ok = v.(map[string]any)
	case "array":
		_, ok = v.([]any)
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "number":
		_, ok = v.(json.Number)
	case "integer":
		n, isNumber := v.(json.Number)
		_, err := n.Int64()
		ok = isNumber && err == nil
	}
	if !ok {
		return invalid(fieldName(path), "must be %s", typeWords[want])
	}
	return nil
}

// patterns caches the compiled patterns of the document.
var patterns sync.Map // string → *regexp.Regexp (nil: not a Go pattern)

func checkString(path string, s *openapi3.Schema, v string) error {
	n := uint64(utf8.RuneCountInString(v))
	switch {
	case s.MaxLength != nil && s.MinLength > 0 && (n < s.MinLength || n > *s.MaxLength):
		return invalid(fieldName(path), "must be %d to %d characters", s.MinLength, *s.MaxLength)
	case n < s.MinLength && s.MinLength == 1:
		return invalid(fieldName(path), "must not be empty")
	case n < s.MinLength:
		return invalid(fieldName(path), "must be at least %d characters", s.MinLength)
	case s.MaxLength != nil && n > *s.MaxLength:
		return invalid(fieldName(path), "must be at most %d characters", *s.MaxLength)
	}
	if s.Pattern != "" {
		cached, ok := patterns.Load(s.Pattern)
		if !ok {
			re, _ := regexp.Compile(s.Pattern)
			cached, _ = patterns.LoadOrStore(s.Pattern, re)
		}
		if re, _ := cached.(*regexp.Regexp); re != nil && !re.MatchString(v) {
			return invalid(fieldName(path), "must match %s", s.Pattern)
		}
	}
	if s.Format == "date-time" {
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			return invalid(fieldName(path), "must be an RFC 3339 time such as 2025-06-09T18:02:16Z")
		}
	}
	return nil
}

func checkNumber(path string, s *openapi3.Schema, v json.Number) error {
	f, err := v.Float64()
	if err != nil || math.IsInf(f, 0) {
		return invalid(fieldName(path), "must be a number")
	}
	if s.Format == "int32" && (f < math.MinInt32 || f > math.MaxInt32) {
		return invalid(fieldName(path), "must be a 32-bit integer")
	}
	low, high := s.Min, s.Max
	lowOK := low == nil || f > *low || f == *low && !exclusive(s.ExclusiveMin)
	highOK := high == nil || f < *high || f == *high && !exclusive(s.ExclusiveMax)
	switch {
	case lowOK && highOK:
		return nil
	case low != nil && high != nil && !exclusive(s.ExclusiveMin) && !exclusive(s.ExclusiveMax):
		return invalid(fieldName(path), "must be from %s to %s", number(*low), number(*high))
	case !lowOK && exclusive(s.ExclusiveMin):
		return invalid(fieldName(path), "must be greater than %s", number(*low))
	case !lowOK:
		return invalid(fieldName(path), "must be at least %s", number(*low))
	case exclusive(s.ExclusiveMax):
		return invalid(fieldName(path), "must be less than %s", number(*high))
	}
	return invalid(fieldName(path), "must be at most %s", number(*high))
}

func exclusive(b openapi3.ExclusiveBound) bool { return b.Bool != nil && *b.Bool }

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func checkArray(path string, s *openapi3.Schema, v []any) error {
	n := uint64(len(v))
	if n < s.MinItems {
		return invalid(fieldName(path), "must have at least %s", items(s.MinItems))
	}
	if s.MaxItems != nil && n > *s.MaxItems {
		return invalid(fieldName(path), "must have at most %s", items(*s.MaxItems))
	}
	for i, item := range v {
		at := fmt.Sprintf("%s[%d]", path, i)
		if s.UniqueItems && slices.ContainsFunc(v[:i], func(x any) bool { return sameJSON(x, item) }) {
			return invalid(at, "repeats an earlier item")
		}
		if s.Items != nil && s.Items.Value != nil {
			if err := checkValue(at, s.Items.Value, item); err != nil {
				return err
			}
		}
	}
	return nil
}

// items says how many items: "1 item", "3 items".
func items(n uint64) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// shape is an object schema with its allOf parts merged.
type shape struct {
	props      map[string]*openapi3.Schema
	required   []string
	additional *openapi3.Schema // the schema of other fields; nil: refused unless open
	open       bool             // additionalProperties: true
	minProps   uint64
	maxProps   *uint64
}

func shapeOf(s *openapi3.Schema) shape {
	sh := shape{props: map[string]*openapi3.Schema{}}
	sh.merge(s)
	return sh
}

func (sh *shape) merge(s *openapi3.Schema) {
	for name, p := range s.Properties {
		if p.Value != nil {
			sh.props[name] = p.Value
		}
	}
	sh.required = append(sh.required, s.Required...)
	if s.AdditionalProperties.Schema != nil && s.AdditionalProperties.Schema.Value != nil {
		sh.additional = s.AdditionalProperties.Schema.Value
	}
	if has := s.AdditionalProperties.Has; has != nil && *has {
		sh.open = true
	}
	sh.minProps = max(sh.minProps, s.MinProps)
	if s.MaxProps != nil {
		sh.maxProps = s.MaxProps
	}
	for _, part := range s.AllOf {
		if part.Value != nil && schemaType(part.Value) == "object" {
			sh.merge(part.Value)
		}
	}
}

func checkObject(path string, s *openapi3.Schema, v map[string]any) error {
	sh := shapeOf(s)
	names := slices.Sorted(maps.Keys(v))
	for _, name := range names {
		if _, known := sh.props[name]; !known && sh.additional == nil && !sh.open {
			return invalid(join(path, name), "unknown field")
		}
	}
	for _, name := range sh.required {
		if _, given := v[name]; !given {
			return invalid(join(path, name), "is required")
		}
	}
	if n := uint64(len(v)); n < sh.minProps {
		return invalid(fieldName(path), "must have at least %d properties, got %d", sh.minProps, n)
	} else if sh.maxProps != nil && n > *sh.maxProps {
		return invalid(fieldName(path), "must have at most %d properties, got %d", *sh.maxProps, n)
	}
	for _, name := range names {
		p := sh.props[name]
		if p == nil {
			p = sh.additional
		}
		if p == nil {
			continue
		}
		if err := checkValue(join(path, name), p, v[name]); err != nil {
			return err
		}
	}
	return nil
}

// join names a field of the object at path: "project.name".
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// fieldName is how an error names the value at path.
func fieldName(path string) string {
	if path == "" {
		return "request body"
	}
	return path
}

// sameJSON compares two decoded JSON values; numbers by value.
func sameJSON(a, b any) bool {
	if n, ok := b.(json.Number); ok {
		f, err := n.Float64()
		if err != nil {
			return false
		}
		b = f
	}
	if n, ok := a.(json.Number); ok {
		f, err := n.Float64()
		if err != nil {
			return false
		}
		a = f
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

func enumText(values []any) string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		out = append(out, fmt.Sprint(v))
	}
	return strings.Join(out, ", ")
}
