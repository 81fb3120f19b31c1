// Package apispec holds the API reference of the platform API v2 in the
// repository and checks HTTP traffic against it.
//
//   - neon-api-v2-2026-07-13.openapi.json: Neon's published OpenAPI 3
//     document of 2026-07-13 (@neondatabase/api-client 2.7.3), vendored
//     unmodified.
//   - overlays/*.json: the later changes to it (an operation added, one
//     deprecated, the email server shapes split, the discriminator gap),
//     each a JSON Merge Patch (RFC 7386) with the source it comes from. They
//     are applied in name order to the document before it is loaded.
//
// The document with its overlays is the reference: authoritative for the
// branch-scoped Neon Auth endpoints and for everything auth-api.md does not
// show. It is embedded and loaded once (Document).
//   - auth-api.md: the description of the project-level Neon Auth endpoints
//     (deprecated in the OpenAPI document, still served), authoritative for
//     their behaviour.
//
// Validator is an http.Handler middleware that validates every request and
// every response under BasePath against the OpenAPI document with
// kin-openapi's openapi3filter, and records the violations.
package apispec

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

//go:embed neon-api-v2-2026-07-13.openapi.json
var openAPIDocument []byte

//go:embed overlays/*.json
var overlayFiles embed.FS

// BasePath is the path under which the API is served; the document's paths
// are relative to it.
const BasePath = "/api/v2"

var loadDocument = sync.OnceValues(func() (*openapi3.T, error) {
	data, err := withOverlays(openAPIDocument, overlayFiles)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("apispec: load the OpenAPI document: %w", err)
	}
	// One pattern of the document (parameter project_ids of
	// GET /consumption_history/projects) nests repeat counts beyond what Go's
	// regexp engine compiles; the document is valid otherwise.
	if err := doc.Validate(context.Background(), openapi3.DisableSchemaPatternValidation()); err != nil {
		return nil, fmt.Errorf("apispec: the OpenAPI document is not valid: %w", err)
	}
	return doc, nil
})

// Violation is a request or a response that does not conform to the
// document. It never holds a value of the traffic (bodies carry client
// secrets, SMTP passwords and SDK keys): only where and which rule failed.
type Violation struct {
	Method string
	// Route is the operation's path template ("/projects/{project_id}"), or
	// the request path when no operation matches.
	Route string
	// Status is the response status; 0 for a violation of the request.
	Status int
	// Kind is "request" or "response".
	Kind string
	// Problem names the part (parameter, body field as a JSON pointer) and
	// the rule it breaks.
	Problem string
}

// OfAnswer reports whether the violation is in what the server answered,
// rather than in what the client sent.
func (v Violation) OfAnswer() bool { return v.Kind == kindResponse }

func (v Violation) String() string {
	if v.Kind == kindResponse {
		return fmt.Sprintf("%s %s → %d: %s", v.Method, v.Route, v.Status, v.Problem)
	}
	return fmt.Sprintf("%s %s: %s", v.Method, v.Route, v.Problem)
}

const (
	kindRequest  = "request"
	kindResponse = "response"

	// maxBody is the most of a body the validator reads; a longer body is
	// passed on whole but its validation is skipped.
	maxBody = 4 << 20
)

// Validator checks traffic against the document. It is safe for concurrent
// use.
type Validator struct {
	router  routers.Router
	options *openapi3filter.Options
	report  func(Violation)

	mu         sync.Mutex
	violations []Violation
}

// NewValidator builds a validator. report, when not nil, is called with
// every violation as it is found (in the request's goroutine).
func NewValidator(report func(Violation)) (*Validator, error) {
	doc, err := loadDocument()
	if err != nil {
		return nil, err
	}
	// The document names the production server; match its paths under
	// BasePath on any host instead.
	local := *doc
	local.Servers = openapi3.Servers{{URL: BasePath}}
	router, err := gorillamux.NewRouter(&local)
	if err != nil {
		return nil, fmt.Errorf("apispec: route the OpenAPI document: %w", err)
	}
	options := &openapi3filter.Options{
		MultiError:                        true,
		SkipSettingDefaults:               true,
		RejectWhenRequestBodyNotSpecified: true,
		AuthenticationFunc:                bearerKeyPresent,
	}
	return &Validator{router: router, options: options, report: report}, nil
}

// bearerKeyPresent accepts a request that carries a bearer API key, without
// checking the key: that is the server's business. The document's cookie
// schemes (the console's) are not for API clients.
func bearerKeyPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecuritySchemeName != "BearerAuth" {
		return errCookieAuth
	}
	scheme, token, ok := strings.Cut(in.RequestValidationInput.Request.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return errNoBearerKey
	}
	return nil
}

var (
	errNoBearerKey = errors.New("no bearer API key in the Authorization header")
	errCookieAuth  = errors.New("cookie authentication is for the console, not for API clients")
)

// Violations returns the violations recorded so far, oldest first.
func (v *Validator) Violations() []Violation {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]Violation(nil), v.violations...)
}

func (v *Validator) record(vs ...Violation) {
	if len(vs) == 0 {
		return
	}
	v.mu.Lock()
	v.violations = append(v.violations, vs...)
	v.mu.Unlock()
	if v.report != nil {
		for _, x := range vs {
			v.report(x)
		}
	}
}

// Middleware validates every request under BasePath before next handles
// it, and next's response after; other paths pass untouched. Nothing is
// ever refused: violations are only recorded. A response whose connection
// next cuts (a lost response) is not validated.
func (v *Validator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, BasePath+"/") {
			next.ServeHTTP(w, r)
			return
		}
		body, complete := readBody(r)
		route, params, err := v.router.FindRoute(r)
		if err != nil {
			v.record(Violation{Method: r.Method, Route: r.URL.Path, Kind: kindRequest, Problem: noOperation(err)})
			next.ServeHTTP(w, r)
			return
		}
		clone := r.Clone(r.Context())
		clone.Body = io.NopCloser(bytes.NewReader(body))
		options := *v.options
		options.ExcludeRequestBody = !complete
		in := &openapi3filter.RequestValidationInput{Request: clone, PathParams: params, Route: route, Options: &options}
		if err := openapi3filter.ValidateRequest(r.Context(), in); err != nil {
			v.record(violations(r.Method, route.Path, 0, kindRequest, err)...)
		}

		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.hijacked {
			return
		}
		out := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in, Status: rec.statusCode(), Header: rec.Header(), Options: v.options,
		}
		out.SetBodyBytes(rec.body.Bytes())
		if err := openapi3filter.ValidateResponse(r.Context(), out); err != nil {
			v.record(violations(r.Method, route.Path, rec.statusCode(), kindResponse, err)...)
		}
	})
}

// readBody reads the request body (at most maxBody bytes for validation)
// and leaves r.Body able to give next all of it. complete is false when the
// body was longer.
func readBody(r *http.Request) (body []byte, complete bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	complete = err == nil && len(body) <= maxBody
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if !complete {
		return nil, false
	}
	return body, true
}

type readCloser struct {
	io.Reader
	io.Closer
}

func noOperation(err error) string {
	if errors.Is(err, routers.ErrMethodNotAllowed) {
		return "the API reference has no operation with this method on this path"
	}
	return "the API reference has no such path"
}

// recorder passes a response on and keeps a copy of it.
type recorder struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	hijacked bool
}

func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(p []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	rec.body.Write(p)
	return rec.ResponseWriter.Write(p)
}

func (rec *recorder) statusCode() int {
	if rec.status == 0 {
		return http.StatusOK
	}
	return rec.status
}

// Hijack lets next cut the connection; the response is then not validated.
func (rec *recorder) Hijack() (c net.Conn, rw *bufio.ReadWriter, err error) {
	hj, ok := rec.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("apispec: the connection cannot be hijacked")
	}
	rec.hijacked = true
	return hj.Hijack()
}

// Flush passes a flush on.
func (rec *recorder) Flush() {
	if f, ok := rec.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
