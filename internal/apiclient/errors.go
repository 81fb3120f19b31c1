package apiclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// The client's typed errors: the API's answers (*Error), transport failures, and the sentinels errors.Is matches.

// Sentinel errors, matched with errors.Is against an *Error (by status) or a
// transport failure.
var (
	// ErrNotFound: 404. On a project-scoped path this may also mean that the
	// key cannot see the project, so it is never proof that a thing is gone.
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized: 401, the API key is missing, invalid or revoked.
	ErrUnauthorized = errors.New("API key missing, invalid or revoked")
	// ErrForbidden: 403, the key's scope does not allow the action.
	ErrForbidden = errors.New("forbidden by the API key's scope")
	// ErrRateLimited: 429 after every retry was spent.
	ErrRateLimited = errors.New("rate limited")
	// ErrConflict: 409, the thing already exists.
	ErrConflict = errors.New("conflict")
	// ErrBadRequest: 400, the API refused the input.
	ErrBadRequest = errors.New("bad request")
	// ErrOutcomeUnknown: a write was sent but no response arrived, or the
	// answer was a server error (500, 502, 504) that does not say whether it
	// was applied. Callers read back before retrying.
	ErrOutcomeUnknown = errors.New("request sent but no response received: the change may or may not have been applied")
	// ErrNotInFamily: the call exists only in the other API family (see
	// Family); nothing was sent.
	ErrNotInFamily = errors.New("not offered by this API family")
	// ErrNoSharedOAuthKeys: 400 with code INVALID_SHARED_OAUTH_PROVIDER, an
	// OAuth provider added without client credentials that has no shared
	// keys on the platform.
	ErrNoSharedOAuthKeys = errors.New("the OAuth provider has no shared credentials")
)

// CodeInvalidSharedOAuthProvider is the API's error code behind
// ErrNoSharedOAuthKeys.
const CodeInvalidSharedOAuthProvider = "INVALID_SHARED_OAUTH_PROVIDER"

// BudgetLimit names the limit of an operation's budget that ran out.
type BudgetLimit string

// The limits of RetryPolicy.
const (
	LimitRetries BudgetLimit = "retries" // RetryPolicy.MaxRetries
	LimitTime    BudgetLimit = "time"    // RetryPolicy.Timeout
)

// BudgetError is the last error of an operation that stopped retrying because
// its budget ran out. It wraps that error, so errors.Is and errors.As see
// through it.
type BudgetError struct {
	Limit   BudgetLimit
	Retries int // requests the operation sent again before giving up
	Err     error
}

func (e *BudgetError) Error() string {
	switch e.Limit {
	case LimitTime:
		return fmt.Sprintf("%v (gave up after %d retries: the next one would end after the operation's time budget)", e.Err, e.Retries)
	default:
		return fmt.Sprintf("%v (gave up after %d retries: the retry budget is spent)", e.Err, e.Retries)
	}
}

func (e *BudgetError) Unwrap() error { return e.Err }

// Error is a non-2xx response of the platform API.
type Error struct {
	Method     string
	Path       string
	StatusCode int
	Code       string
	Message    string
	RequestID  string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: HTTP %d", e.Method, e.Path, e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Code != "" {
		b.WriteString(" (code " + e.Code + ")")
	}
	if e.RequestID != "" {
		b.WriteString(" [request_id " + e.RequestID + "]")
	}
	return b.String()
}

// Is maps the status code to the package's sentinels.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrConflict:
		return e.StatusCode == http.StatusConflict
	case ErrBadRequest:
		return e.StatusCode == http.StatusBadRequest
	case ErrNoSharedOAuthKeys:
		return e.StatusCode == http.StatusBadRequest && e.Code == CodeInvalidSharedOAuthProvider
	case ErrOutcomeUnknown:
		return e.outcomeUnknown()
	}
	return false
}

// outcomeUnknown: a write answered by a status that does not say whether it
// was applied (500, 502, 504: the status rules in status.go).
func (e *Error) outcomeUnknown() bool {
	return ruleForStatus(e.StatusCode).unknownFor(e.Method)
}

// TransportError is a request that got no HTTP response at all.
type TransportError struct {
	Method string
	Path   string
	// Sent is true when the request may have reached the server, so a write
	// may have been applied.
	Sent bool
	Err  error
	// Cause and Hint (the fix, naming the address) are set for failures the
	// client tells apart; see failfast.go.
	Cause TransportCause
	Hint  string
}

func (e *TransportError) Error() string {
	s := fmt.Sprintf("%s %s: %v", e.Method, e.Path, e.Err)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	if e.outcomeUnknown() {
		s += fmt.Sprintf(" (%v)", ErrOutcomeUnknown)
	}
	return s
}

func (e *TransportError) Unwrap() error { return e.Err }

// Is reports ErrOutcomeUnknown for writes whose response was lost, and the
// sentinel of its Cause (ErrCertificate, ErrNoSuchHost, …).
func (e *TransportError) Is(target error) bool {
	if s := e.Cause.sentinel(); s != nil && target == s {
		return true
	}
	return target == ErrOutcomeUnknown && e.outcomeUnknown()
}

// outcomeUnknown: a write that was sent and got no answer (transportSent in
// status.go), whatever the cause of the failure.
func (e *TransportError) outcomeUnknown() bool {
	return e.Sent && transportRules[transportSent].unknownFor(e.Method)
}

// DecodeError is a 2xx response whose body could not be understood.
type DecodeError struct {
	Method    string
	Path      string
	RequestID string
	Err       error
}

func (e *DecodeError) Error() string {
	s := fmt.Sprintf("%s %s: the API answered with a response that could not be decoded: %v", e.Method, e.Path, e.Err)
	if e.RequestID != "" {
		s += " [request_id " + e.RequestID + "]"
	}
	return s
}

func (e *DecodeError) Unwrap() error { return e.Err }

// maxErrorSnippet bounds how much of a non-JSON error body ends up in a message.
const maxErrorSnippet = 120

// newError builds an *Error from a non-2xx response body. The body may be the
// documented JSON {code, message, request_id} or anything else (an HTML 502
// page from a proxy, an empty body).
func newError(method, path string, status int, header http.Header, body []byte) *Error {
	e := &Error{Method: method, Path: path, StatusCode: status, RequestID: header.Get("X-Request-Id")}
	var payload struct {
		Code      json.RawMessage `json:"code"`
		Message   string          `json:"message"`
		RequestID string          `json:"request_id"`
	}
	if isJSON(header.Get("Content-Type"), body) && json.Unmarshal(body, &payload) == nil {
		e.Code = rawToString(payload.Code)
		e.Message = payload.Message
		if payload.RequestID != "" {
			e.RequestID = payload.RequestID
		}
		return e
	}
	ct, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	snippet := strings.Join(strings.Fields(stripTags(string(body))), " ")
	if len(snippet) > maxErrorSnippet {
		snippet = snippet[:maxErrorSnippet] + "…"
	}
	switch {
	case len(body) == 0:
		e.Message = "empty response body"
	case snippet == "":
		e.Message = fmt.Sprintf("non-JSON response body (%s, %d bytes)", ct, len(body))
	default:
		e.Message = fmt.Sprintf("non-JSON response body (%s): %s", ct, snippet)
	}
	return e
}

func isJSON(contentType string, body []byte) bool {
	ct, _, _ := mime.ParseMediaType(contentType)
	if ct == "application/json" || strings.HasSuffix(ct, "+json") {
		return true
	}
	t := strings.TrimSpace(string(body))
	return strings.HasPrefix(t, "{") && json.Valid(body)
}

// rawToString accepts the error code as a JSON string or number.
func rawToString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// stripTags removes markup from an HTML error page so its text can be quoted.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
			b.WriteRune(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
