package apispec

import (
	"bytes"
	"io"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3filter"
)

// Validation on the client's side of the wire: a RoundTripper that checks
// what a client sends and what any server answers, for servers a test cannot
// wrap (a remote emulator, Neon itself).

// Transport validates every request under BasePath that next sends, and its
// response, as Middleware does on the server's side; other requests pass
// untouched. Nothing is refused or altered: violations are only recorded.
// A request that gets no response (a transport error) is not validated.
func (v *Validator) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if !strings.HasPrefix(r.URL.Path, BasePath+"/") {
			return next.RoundTrip(r)
		}
		// The request is sent as a clone, so that reading its body for
		// validation leaves the caller's request as it was.
		send := r.Clone(r.Context())
		body, complete := readBody(send)
		resp, err := next.RoundTrip(send)
		if err != nil {
			return resp, err
		}
		route, params, ferr := v.router.FindRoute(r)
		if ferr != nil {
			v.record(Violation{Method: r.Method, Route: r.URL.Path, Kind: kindRequest, Problem: noOperation(ferr)})
			return resp, nil
		}
		clone := r.Clone(r.Context())
		clone.Body = io.NopCloser(bytes.NewReader(body))
		options := *v.options
		options.ExcludeRequestBody = !complete
		in := &openapi3filter.RequestValidationInput{Request: clone, PathParams: params, Route: route, Options: &options}
		if verr := openapi3filter.ValidateRequest(r.Context(), in); verr != nil {
			v.record(violations(r.Method, route.Path, 0, kindRequest, verr)...)
		}
		answer, rerr := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(answer), resp.Body), resp.Body}
		if rerr != nil || len(answer) > maxBody {
			return resp, nil
		}
		out := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header, Options: v.options,
		}
		out.SetBodyBytes(answer)
		if verr := openapi3filter.ValidateResponse(r.Context(), out); verr != nil {
			v.record(violations(r.Method, route.Path, resp.StatusCode, kindResponse, verr)...)
		}
		return resp, nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
