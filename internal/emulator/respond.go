package emulator

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// API errors and responses: the statuses and error bodies the handlers
// return, and the response writers the emulator passes responses through.

// apiError is an error answered to the client as GeneralError:
// {"code":"","message":...,"request_id":...}.
type apiError struct {
	status     int
	code       string // the API's error code, "" for most errors
	msg        string
	retryAfter time.Duration // sent as Retry-After (whole seconds, ≥1) when > 0
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.status, e.msg) }

var (
	errNotFound        = &apiError{status: http.StatusNotFound, msg: "not found"}
	errMethod          = &apiError{status: http.StatusMethodNotAllowed, msg: "method not allowed"}
	errUnauthorized    = &apiError{status: http.StatusUnauthorized, msg: "authorization failed: API key missing, invalid or revoked"}
	errProjectNotFound = &apiError{status: http.StatusNotFound, msg: "project not found"}
)

// invalid is the 400 for a field: "<field>: <what is wrong>".
func invalid(field, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, msg: field + ": " + fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *apiError {
	return &apiError{status: http.StatusNotFound, msg: fmt.Sprintf(format, args...)}
}

func conflict(format string, args ...any) *apiError {
	return &apiError{status: http.StatusConflict, msg: fmt.Sprintf(format, args...)}
}

func forbidden(format string, args ...any) *apiError {
	return &apiError{status: http.StatusForbidden, msg: fmt.Sprintf(format, args...)}
}

// writeError answers e in the error format of the platform API
// (GeneralError).
func writeError(w http.ResponseWriter, reqID string, e *apiError) {
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(e.retryAfter)))
	}
	writeJSON(w, e.status, neonapi.GeneralError{Code: e.code, Message: e.msg, RequestID: &reqID})
}

// retryAfterSeconds rounds d up to whole seconds, at least 1.
func retryAfterSeconds(d time.Duration) int { return max(int(math.Ceil(d.Seconds())), 1) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b := mustEncode(v) // the emulator's own types: an error is a programming error
	w.Header().Set("Content-Type", jsonMediaType)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// requestID honours a sane incoming X-Request-ID, else generates one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-ID"); id != "" && len(id) <= 128 && printableASCII(id) {
		return id
	}
	return uuid.NewString()
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// randomHex returns n random bytes, hex encoded.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// randomText returns n random characters of alphabet.
func randomText(alphabet string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// now is the emulator's clock: UTC, whole seconds (RFC 3339 without fraction).
func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// noRoute answers a request that no pattern of mux takes as the mux would
// (404, or 405 with the Allow header), in the API's error format.
func noRoute(mux *http.ServeMux, w http.ResponseWriter, r *http.Request, reqID string) {
	h, _ := mux.Handler(r)
	probe := &StatusRecorder{ResponseWriter: &bufferedWriter{header: http.Header{}}}
	h.ServeHTTP(probe, r)
	if probe.Status() == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.Header().Get("Allow"))
		writeError(w, reqID, errMethod)
		return
	}
	writeError(w, reqID, errNotFound)
}

// cutConnection closes the client connection without a response.
func cutConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// StatusRecorder passes a response on and remembers its status: the
// emulator's own request log uses it, and so do tests and the benchmark
// that wrap the emulator's handler to count answers.
type StatusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *StatusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *StatusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Status is the status written so far (200 when nothing was written).
func (w *StatusRecorder) Status() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// bufferedWriter swallows a response (a lost one, or the mux's own answer
// when no route matches).
type bufferedWriter struct {
	header http.Header
}

func (b *bufferedWriter) Header() http.Header         { return b.header }
func (b *bufferedWriter) WriteHeader(int)             {}
func (b *bufferedWriter) Write(p []byte) (int, error) { return io.Discard.Write(p) }
