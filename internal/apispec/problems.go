package apispec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// How a validation failure against the API reference is explained: one readable
// problem per violation.

// violations turns a validation error into one Violation per problem.
func violations(method, route string, status int, kind string, err error) []Violation {
	var out []Violation
	for _, p := range problems(err) {
		out = append(out, Violation{Method: method, Route: route, Status: status, Kind: kind, Problem: p})
	}
	return out
}

// problems describes each failure in err by where it is and which rule it
// breaks. kin-openapi's own messages may quote the offending value (a
// secret, possibly), so they are rebuilt from the parts that never do: the
// parameter name, the JSON pointer into the body, the schema keyword and the
// reason (which kin-openapi keeps free of values).
func problems(err error) []string {
	// A type switch, not errors.As: the tree is walked one level at a time
	// (errors.As would see through a MultiError into one of its items).
	switch e := err.(type) { //nolint:errorlint // unwrapped below, level by level
	case openapi3.MultiError:
		var out []string
		for _, x := range e {
			out = append(out, problems(x)...)
		}
		return out
	case *openapi3filter.RequestError:
		where := "request"
		switch {
		case e.Parameter != nil:
			where = fmt.Sprintf("parameter %q in %s", e.Parameter.Name, e.Parameter.In)
		case e.RequestBody != nil:
			where = "request body"
		}
		return within(where, e.Reason, e.Err)
	case *openapi3filter.ResponseError:
		where := "response"
		if e.Err != nil {
			where = "response body"
		}
		return within(where, e.Reason, e.Err)
	case *openapi3filter.SecurityRequirementsError:
		// bearerKeyPresent's own words; only the bearer scheme matters.
		return []string{"security: " + errNoBearerKey.Error()}
	case *openapi3.SchemaError:
		return schemaProblems("", e)
	case *openapi3filter.ParseError:
		return []string{fmt.Sprintf("cannot be decoded (%s)", parseKind(e.Kind))}
	}
	if inner := errors.Unwrap(err); inner != nil {
		return problems(inner)
	}
	if fixedMessages[err.Error()] {
		return []string{err.Error()}
	}
	return []string{fmt.Sprintf("does not conform (%T)", err)}
}

// within prefixes the problems of cause with where; without a cause the
// reason is the problem.
func within(where, reason string, cause error) []string {
	if cause == nil {
		return []string{where + ": " + reason}
	}
	var out []string
	for _, p := range problems(cause) {
		out = append(out, where+": "+p)
	}
	return out
}

// fixedMessages are kin-openapi's error messages that hold no value, shown
// as they are.
var fixedMessages = map[string]bool{
	openapi3filter.ErrInvalidRequired.Error():   true,
	openapi3filter.ErrInvalidEmptyValue.Error(): true,
	"request body not allowed for this request": true,
}

// schemaProblems is "<JSON pointer>: <keyword>: <reason>" for e, or for each
// failure under it when e is a composite (allOf, oneOf, anyOf) that knows
// why its parts failed. prefix is the pointer of the value e was found in.
func schemaProblems(prefix string, e *openapi3.SchemaError) []string {
	pointer := prefix + "/" + strings.Join(e.JSONPointer(), "/")
	pointer = strings.ReplaceAll(pointer, "//", "/")
	var inner []string
	for _, se := range schemaErrorsIn(e.Origin) {
		inner = append(inner, schemaProblems(strings.TrimSuffix(pointer, "/"), se)...)
	}
	if len(inner) > 0 {
		return inner
	}
	reason := e.Reason
	if e.SchemaField == "format" && e.Schema != nil {
		// The reason of a format failure may quote the value.
		reason = fmt.Sprintf("must have the format %q", e.Schema.Format)
	}
	if e.SchemaField == "" {
		return []string{pointer + ": " + reason}
	}
	return []string{pointer + ": " + e.SchemaField + ": " + reason}
}

// schemaErrorsIn lists the schema errors an error holds, through wrapping
// and nested lists.
func schemaErrorsIn(err error) []*openapi3.SchemaError {
	switch e := err.(type) { //nolint:errorlint // unwrapped below, level by level
	case nil:
		return nil
	case *openapi3.SchemaError:
		return []*openapi3.SchemaError{e}
	case openapi3.MultiError:
		var out []*openapi3.SchemaError
		for _, x := range e {
			out = append(out, schemaErrorsIn(x)...)
		}
		return out
	}
	return schemaErrorsIn(errors.Unwrap(err))
}

func parseKind(k openapi3filter.ParseErrorKind) string {
	switch k {
	case openapi3filter.KindUnsupportedFormat:
		return "unsupported format"
	case openapi3filter.KindInvalidFormat:
		return "invalid format"
	}
	return "malformed"
}
