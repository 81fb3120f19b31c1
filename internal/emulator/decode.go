package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strings"
)

// Decoding of request bodies: unknown fields refused, and typed accessors that
// name the field in every error.

// object is a decoded JSON request body, field by field, so that every
// validation error can name the field at fault. JSON null counts as absent.
type object map[string]json.RawMessage

// readBody decodes the request body as a JSON object that may only contain the
// allowed fields, or the fields the API reference defines for the route's
// body (a field the document gains is accepted, and ignored, without code).
// An empty body is an error unless optional is set (then an empty object is
// returned). The body must be at most 1 MiB and, when not empty, sent with
// Content-Type application/json.
func readBody(c *call, optional bool, allowed ...string) (object, error) {
	data, err := readJSON(c, optional)
	if err != nil || data == nil {
		return object{}, err
	}
	return parseObject(data, "", append(slices.Clone(allowed), documentFields(c)...))
}

// readJSON reads the request body: at most 1 MiB, sent as
// application/json. An empty body is an error unless optional is set (then
// nil is returned).
func readJSON(c *call, optional bool) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(c.w, c.r.Body, maxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &apiError{status: http.StatusRequestEntityTooLarge, msg: "request body too large (limit 1 MiB)"}
		}
		return nil, &apiError{status: http.StatusBadRequest, msg: "cannot read request body"}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if optional {
			return nil, nil
		}
		return nil, &apiError{status: http.StatusBadRequest, msg: "request body is required"}
	}
	if mt, _, err := mime.ParseMediaType(c.r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, &apiError{status: http.StatusUnsupportedMediaType, msg: "Content-Type must be application/json"}
	}
	return data, nil
}

// parseObject decodes data as a JSON object limited to the allowed fields.
// prefix is prepended to field names in errors ("project." …).
func parseObject(data []byte, prefix string, allowed []string) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var o object
	if err := dec.Decode(&o); err != nil || o == nil {
		what := "request body"
		if prefix != "" {
			what = strings.TrimSuffix(prefix, ".")
		}
		return nil, &apiError{status: http.StatusBadRequest, msg: what + ": must be a JSON object"}
	}
	if dec.More() {
		return nil, &apiError{status: http.StatusBadRequest, msg: "request body: unexpected data after the JSON object"}
	}
	var unknown []string
	for k := range o {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, invalid(prefix+unknown[0], "unknown field")
	}
	for k, v := range o {
		if string(bytes.TrimSpace(v)) == "null" {
			delete(o, k)
		}
	}
	return o, nil
}

func (o object) has(name string) bool {
	_, ok := o[name]
	return ok
}

// str returns a string field; present reports whether it was given.
func (o object) str(name string) (v string, present bool, err error) {
	raw, ok := o[name]
	if !ok {
		return "", false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", true, invalid(name, "must be a string")
	}
	return v, true, nil
}

// requiredStr returns a string field that must be given and not be empty.
func (o object) requiredStr(name string) (string, error) {
	v, present, err := o.str(name)
	if err != nil {
		return "", err
	}
	if !present || v == "" {
		return "", invalid(name, "is required")
	}
	return v, nil
}

// integer returns an integer field.
func (o object) integer(name string) (v int64, present bool, err error) {
	raw, ok := o[name]
	if !ok {
		return 0, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return 0, true, invalid(name, "must be an integer")
	}
	n, ok := x.(json.Number)
	if !ok {
		return 0, true, invalid(name, "must be an integer")
	}
	i, err := n.Int64()
	if err != nil {
		return 0, true, invalid(name, "must be an integer")
	}
	return i, true, nil
}

func (o object) boolean(name string) (v bool, present bool, err error) {
	raw, ok := o[name]
	if !ok {
		return false, false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, true, invalid(name, "must be a boolean")
	}
	return v, true, nil
}

// array returns the raw elements of an array field.
func (o object) array(name string) (v []json.RawMessage, present bool, err error) {
	raw, ok := o[name]
	if !ok {
		return nil, false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil || v == nil {
		return nil, true, invalid(name, "must be an array")
	}
	return v, true, nil
}

// authProvider validates the auth_provider field: required, one of
// authProviders.
func (o object) authProvider() (string, error) {
	v, err := o.requiredStr("auth_provider")
	if err != nil {
		return "", err
	}
	return v, checkAuthProvider(v)
}

func checkAuthProvider(v string) error {
	if !slices.Contains(authProviders, v) {
		return invalid("auth_provider", "unsupported auth provider %q; supported: %s", v, strings.Join(authProviders, ", "))
	}
	return nil
}

// strings returns an array field whose elements must be strings, neither
// empty nor repeated ("<name>[i]: ..." names a bad element).
func (o object) strings(name string) (v []string, present bool, err error) {
	items, present, err := o.array(name)
	if err != nil || !present {
		return nil, present, err
	}
	v = make([]string, 0, len(items))
	for i, raw := range items {
		field := fmt.Sprintf("%s[%d]", name, i)
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, true, invalid(field, "must be a string")
		}
		if s == "" {
			return nil, true, invalid(field, "must not be empty")
		}
		if slices.Contains(v, s) {
			return nil, true, invalid(field, "%q is listed twice", s)
		}
		v = append(v, s)
	}
	return v, true, nil
}

// nonEmptyStr returns an optional string field that must not be empty when given.
func (o object) nonEmptyStr(name string) (v string, present bool, err error) {
	v, present, err = o.str(name)
	if err == nil && present && v == "" {
		err = invalid(name, "must not be empty")
	}
	return v, present, err
}

// optInt sets *dst when the field is given, an integer from lo to hi.
func (o object) optInt(name string, lo, hi int64, dst *int) error {
	v, present, err := o.integer(name)
	if err != nil || !present {
		return err
	}
	if v < lo || v > hi {
		if hi == maxInt32 {
			return invalid(name, "must be at least %d", lo)
		}
		return invalid(name, "must be from %d to %d", lo, hi)
	}
	*dst = int(v)
	return nil
}

// maxInt32 is the upper bound of an int32 field.
const maxInt32 = 1<<31 - 1
