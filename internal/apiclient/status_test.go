package apiclient

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"testing"
)

// What the client does with each answer of the API, written out: retried for
// a read, retried for a write, a refusal (nothing was applied), and whether a
// write's outcome is unknown.
func TestStatusRules(t *testing.T) {
	for _, tc := range []struct {
		status                     int
		readRetried, writeRetried  bool
		refusal, writeUnknown      bool
		uncountedAgainstMaxRetries bool
	}{
		{status: 400, refusal: true},
		{status: 401, refusal: true},
		{status: 403, refusal: true},
		{status: 404, refusal: true},
		{status: 409, refusal: true},
		{status: 410, refusal: true}, // any other 4xx
		{status: 422, refusal: true},
		{status: 423, readRetried: true, writeRetried: true, refusal: true},
		{status: 429, readRetried: true, writeRetried: true, refusal: true, uncountedAgainstMaxRetries: true},
		{status: 500, readRetried: true, writeUnknown: true},
		{status: 501, refusal: true},
		{status: 502, readRetried: true, writeUnknown: true},
		{status: 503, readRetried: true, writeRetried: true, refusal: true},
		{status: 504, readRetried: true, writeUnknown: true},
		{status: 505, readRetried: true}, // any other 5xx: retried for a read, reported as it is for a write
		{status: 599, readRetried: true},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			r := ruleForStatus(tc.status)
			if r.why == "" {
				t.Error("the rule does not say why")
			}
			if got := r.retries(http.MethodGet); got != tc.readRetried {
				t.Errorf("GET retried = %v, want %v", got, tc.readRetried)
			}
			for _, m := range []string{http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete} {
				if got := r.retries(m); got != tc.writeRetried {
					t.Errorf("%s retried = %v, want %v", m, got, tc.writeRetried)
				}
				if got := r.unknownFor(m); got != tc.writeUnknown {
					t.Errorf("%s outcome unknown = %v, want %v", m, got, tc.writeUnknown)
				}
			}
			if r.unknownFor(http.MethodGet) {
				t.Error("a read's outcome is unknown; a read has no outcome to lose")
			}
			if r.refusal != tc.refusal {
				t.Errorf("refusal = %v, want %v", r.refusal, tc.refusal)
			}
			if r.refusal && r.unknown {
				t.Error("a refusal cannot leave the outcome unknown")
			}
			if r.uncounted != tc.uncountedAgainstMaxRetries {
				t.Errorf("uncounted = %v, want %v", r.uncounted, tc.uncountedAgainstMaxRetries)
			}
		})
	}
}

// shouldRetry and Error.Is(ErrOutcomeUnknown) answer as the table says, for
// every status from 400 to 599 and every method.
func TestStatusRulesDecideRetriesAndUnknownOutcomes(t *testing.T) {
	for code := 400; code < 600; code++ {
		r := ruleForStatus(code)
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete} {
			st := &callState{method: m}
			if got, want := shouldRetry(st, &http.Response{StatusCode: code}, nil), r.retries(m); got != want {
				t.Errorf("%s %d: shouldRetry = %v, the table says %v", m, code, got, want)
			}
			e := &Error{Method: m, StatusCode: code}
			if got, want := errors.Is(e, ErrOutcomeUnknown), r.unknownFor(m); got != want {
				t.Errorf("%s %d: errors.Is(ErrOutcomeUnknown) = %v, the table says %v", m, code, got, want)
			}
		}
	}
	for _, code := range []int{200, 201, 204, 304} {
		if shouldRetry(&callState{method: http.MethodGet}, &http.Response{StatusCode: code}, nil) {
			t.Errorf("GET %d is retried; a success is final", code)
		}
	}
}

// What the client does with each way a request ends without an answer.
func TestTransportRules(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		err                       error
		sent                      bool
		kind                      transportKind
		readRetried, writeRetried bool
		writeUnknown              bool
	}{
		{name: "refused connection", err: syscall.ECONNREFUSED, kind: transportRefused, readRetried: true, writeRetried: true},
		{name: "no such host", err: &net.DNSError{Err: "no such host", IsNotFound: true}, kind: transportNoSuchHost},
		{name: "plain HTTP answer to TLS", err: http.ErrSchemeMismatch, kind: transportTLSHandshake},
		{name: "key refused earlier", err: &KeyRefusedError{}, kind: transportKeyRefused},
		{name: "reset before sending", err: syscall.ECONNRESET, kind: transportUnsent, readRetried: true, writeRetried: true},
		{name: "reset after sending", err: syscall.ECONNRESET, sent: true, kind: transportSent, readRetried: true, writeUnknown: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind := kindOfTransport(classifyTransport(tc.err), errors.Is(tc.err, errKeyRefused), tc.sent)
			if kind != tc.kind {
				t.Fatalf("kind = %q, want %q", kind, tc.kind)
			}
			r := transportRules[kind]
			if r.why == "" {
				t.Error("the rule does not say why")
			}
			if got := retryTransport(&callState{method: http.MethodGet, sent: tc.sent}, tc.err); got != tc.readRetried {
				t.Errorf("GET retried = %v, want %v", got, tc.readRetried)
			}
			if got := retryTransport(&callState{method: http.MethodPost, sent: tc.sent}, tc.err); got != tc.writeRetried {
				t.Errorf("POST retried = %v, want %v", got, tc.writeRetried)
			}
			te := &TransportError{Method: http.MethodPost, Sent: tc.sent, Err: tc.err, Cause: classifyTransport(tc.err)}
			if got := errors.Is(te, ErrOutcomeUnknown); got != tc.writeUnknown {
				t.Errorf("POST errors.Is(ErrOutcomeUnknown) = %v, want %v", got, tc.writeUnknown)
			}
			if r.unknown != tc.writeUnknown || r.refusal == tc.writeUnknown {
				t.Errorf("rule unknown = %v, refusal = %v; want unknown %v and the opposite refusal", r.unknown, r.refusal, tc.writeUnknown)
			}
		})
	}
}

// The provider's max_retries description names the statuses from the table.
func TestRetriedStatusesText(t *testing.T) {
	if got, want := RetriedStatuses(false, "or"), "423 or 503"; got != want {
		t.Errorf("RetriedStatuses(false) = %q, want %q", got, want)
	}
	if got, want := RetriedStatuses(true, "or"), "429"; got != want {
		t.Errorf("RetriedStatuses(true) = %q, want %q", got, want)
	}
	if got, want := UnknownOutcomeStatuses("or"), "500, 502 or 504"; got != want {
		t.Errorf("UnknownOutcomeStatuses = %q, want %q", got, want)
	}
}
