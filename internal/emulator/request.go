package emulator

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// What a handler reads of its request. kin-openapi (openapi3filter) checks
// the query and the JSON body against the operation of the API reference
// (internal/apispec), so the reference decides which fields exist and what
// their values may be; the handler then decodes what it keeps and adds only
// what the reference cannot say (a taken name, a missing parent, a rule
// across fields). A refusal is a 400 naming the field and the rule, never the
// value: "project.pg_version: number must be at most 18".

// call is one authenticated API request on its way to its handler. It is
// also the response writer the route's handler gets from the mux, which is
// how the handler finds it (see router.go).
type call struct {
	http.ResponseWriter
	r     *http.Request
	key   keyInfo
	reqID string
	route string // the route key, "METHOD /template"
}

func (c *call) param(name string) string { return c.r.PathValue(name) }

func (c *call) json(status int, v any) error {
	writeJSON(c, status, v)
	return nil
}

// empty answers with a status and no body at all.
func (c *call) empty(status int) error {
	c.WriteHeader(status)
	return nil
}

// referenceOperation is what the reference says of a route's request: its
// body (nil: none) and its query parameters.
type referenceOperation struct {
	body  *openapi3.RequestBody
	query openapi3.Parameters
}

// referenceOperations are the reference's operations by route key ("POST
// /projects"), read once per process.
var referenceOperations = sync.OnceValues(func() (map[string]referenceOperation, error) {
	doc, err := referenceDocument()
	if err != nil {
		return nil, err
	}
	out := map[string]referenceOperation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var o referenceOperation
			for _, p := range slices.Concat(item.Parameters, op.Parameters) {
				if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
					o.query = append(o.query, p)
				}
			}
			if op.RequestBody != nil {
				o.body = op.RequestBody.Value
			}
			out[method+" "+path] = o
		}
	}
	return out, nil
})

// maxBodyBytes is the largest request body read: 1 MiB.
const maxBodyBytes = 1 << 20

// checkOptions are the options of every check: no defaults written into the
// request; the formats email and date-time checked as the API and the
// generated types read them (validEmail, RFC 3339).
var checkOptions = &openapi3filter.Options{
	SkipSettingDefaults: true,
	SchemaValidationOptions: []openapi3.SchemaValidationOption{
		openapi3.WithStringFormatValidator("email", formatCheck(validEmail)),
		openapi3.WithStringFormatValidator("date-time", formatCheck(func(s string) bool {
			_, err := time.Parse(time.RFC3339, s)
			return err == nil
		})),
	},
}

// formatCheck is a format validator of kin-openapi: whether a string has the
// format.
type formatCheck func(string) bool

func (f formatCheck) Validate(s string) error {
	if !f(s) {
		return errors.New("does not have the format")
	}
	return nil
}

// checkQuery checks the query parameters the reference defines for the
// call's route; the others are ignored.
func (c *call) checkQuery() error {
	ops, err := referenceOperations()
	if err != nil {
		return err
	}
	in := &openapi3filter.RequestValidationInput{Request: c.r, QueryParams: c.r.URL.Query(), Options: checkOptions}
	for _, p := range ops[c.route].query {
		if err := openapi3filter.ValidateParameter(c.r.Context(), in, p.Value); err != nil {
			return refusal(err)
		}
	}
	return nil
}

// decode reads the request body (a JSON object of at most 1 MiB sent as
// application/json; a null member counts as absent), checks it against the
// reference, decodes it into dst (nil: only checked) and returns it as
// checked. An empty body is refused where the reference requires one, else
// read as {}.
func (c *call) decode(dst any) (json.RawMessage, error) {
	ops, err := referenceOperations()
	if err != nil {
		return nil, err
	}
	op := ops[c.route]
	if op.body == nil {
		return nil, fmt.Errorf("emulator: the API reference has no request body for %s", c.route)
	}
	data, err := readObject(c)
	if err == nil && data == nil && op.body.Required {
		err = &apiError{status: http.StatusBadRequest, msg: "request body is required"}
	}
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = []byte("{}")
	}
	if err := checkBody(c.r, op.body, data); err != nil {
		return nil, err
	}
	if dst != nil {
		if err := json.Unmarshal(data, dst); err != nil {
			return nil, invalid("request body", "%v", err)
		}
	}
	return data, nil
}

// readObject reads the request body as a JSON object, without its null
// members; nil for an empty body.
func readObject(c *call) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(c, c.r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, &apiError{status: http.StatusRequestEntityTooLarge, msg: "request body too large (limit 1 MiB)"}
	case err != nil:
		return nil, &apiError{status: http.StatusBadRequest, msg: "cannot read request body"}
	case len(bytes.TrimSpace(data)) == 0:
		return nil, nil
	}
	if mt, _, err := mime.ParseMediaType(c.r.Header.Get("Content-Type")); err != nil || mt != jsonMediaType {
		return nil, &apiError{status: http.StatusUnsupportedMediaType, msg: "Content-Type must be application/json"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil || body == nil {
		return nil, invalid("request body", "must be a JSON object")
	}
	if dec.More() {
		return nil, invalid("request body", "unexpected data after the JSON object")
	}
	maps.DeleteFunc(body, func(_ string, v any) bool { return v == nil })
	return json.Marshal(body)
}

// checkBody checks a JSON body against the request body of an operation.
func checkBody(r *http.Request, body *openapi3.RequestBody, data []byte) error {
	req := r.Clone(r.Context())
	req.Body = io.NopCloser(bytes.NewReader(data))
	req.Header.Set("Content-Type", jsonMediaType)
	in := &openapi3filter.RequestValidationInput{Request: req, Options: checkOptions}
	if err := openapi3filter.ValidateRequestBody(r.Context(), in, body); err != nil {
		return refusal(err)
	}
	return nil
}

// refusal is the 400 for what the reference refuses: the field, named as
// the handlers name fields ("project.settings.audit_log_level",
// "endpoints[0].type", a query parameter by its name), and kin-openapi's
// reason, which holds no value of the request. Of a oneOf, the reason is
// that of the alternative that failed. A format's reason is the emulator's
// own, since a format validator's may quote the value.
func refusal(err error) error {
	var re *openapi3filter.RequestError
	var pe *openapi3filter.ParseError
	field, reason := "request body", "does not conform to the API reference"
	if errors.As(err, &re) && re.Parameter != nil {
		field = re.Parameter.Name
	}
	if errors.As(err, &pe) && pe.Reason != "" {
		reason = "is " + pe.Reason // "an invalid integer": never the value
	}
	var se *openapi3.SchemaError
	if !errors.As(err, &se) {
		return invalid(field, "%s", reason)
	}
	// kin-openapi gives the failures of a oneOf's alternatives the path of
	// the oneOf's value too.
	var inner *openapi3.SchemaError
	for errors.As(se.Origin, &inner) {
		se = inner
	}
	switch reason = se.Reason; se.SchemaField {
	case "required": // the pointer names the member
		reason = "is required"
	case "format":
		reason = cmp.Or(formatWords[se.Schema.Format], fmt.Sprintf("must have the format %q", se.Schema.Format))
	}
	return invalid(cmp.Or(fieldPath(se.JSONPointer()), field), "%s", reason)
}

// formatWords say what a value of a format must be.
var formatWords = map[string]string{
	"email":     "must be an email address",
	"date-time": "must be an RFC 3339 time such as 2025-06-09T18:02:16Z",
}

// fieldPath names the value at a JSON pointer as a field: "a.b[2].c".
func fieldPath(pointer []string) string {
	var b strings.Builder
	for _, p := range pointer {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
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
