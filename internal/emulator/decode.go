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

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Reading request bodies: the JSON object itself (size, media type,
// syntax; docschema.go checks it against the API reference), and the checks
// the handlers add to what the reference says, each naming the field.

// object is a decoded JSON request body, field by field, so that every
// validation error can name the field at fault. JSON null counts as absent.
type object map[string]json.RawMessage

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

// checkAuthProvider refuses an auth provider the API does not know (one
// named in a path, which the reference's schemas do not check).
func checkAuthProvider(v string) error {
	if !slices.Contains(neonapi.NeonAuthSupportedAuthProviderValues, neonapi.NeonAuthSupportedAuthProvider(v)) {
		return invalid("auth_provider", "unsupported auth provider %q; supported: %s", v, authProviderList())
	}
	return nil
}

// authProviderList is the values of NeonAuthSupportedAuthProvider, in the
// reference's order, for messages.
func authProviderList() string {
	names := make([]string, 0, len(neonapi.NeonAuthSupportedAuthProviderValues))
	for _, p := range neonapi.NeonAuthSupportedAuthProviderValues {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// firstError is the first of errs that is not nil: checks of several
// fields report the first field at fault, in the order given.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// notEmpty refuses an optional string field given empty, where the API
// reference sets no minimum length.
func notEmpty(field string, v *string) error {
	if v != nil && *v == "" {
		return invalid(field, "must not be empty")
	}
	return nil
}

// deref is the value of an optional field and whether it was given.
func deref[T any](v *T) (value T, given bool) {
	if v == nil {
		return value, false
	}
	return *v, true
}

// distinct refuses a list whose items are empty or repeated ("<field>[i]:"
// names the item at fault), where the API reference does not.
func distinct(field string, items []string) error {
	for i, s := range items {
		switch {
		case s == "":
			return invalid(fmt.Sprintf("%s[%d]", field, i), "must not be empty")
		case slices.Contains(items[:i], s):
			return invalid(fmt.Sprintf("%s[%d]", field, i), "%q is listed twice", s)
		}
	}
	return nil
}

// emailMember checks a member of a body that holds an email address as the
// API does (validEmail), before the body is decoded: the generated type
// would take, and rewrite, forms the API refuses ("Ada <ada@example.com>").
func emailMember(o object, name string) error {
	raw, given := o[name]
	if !given {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || !validEmail(s) {
		return invalid(name, "must be an email address")
	}
	return nil
}
