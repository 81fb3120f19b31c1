package apispec

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// roundTrip sends one request to h through the validating transport and
// returns what the caller reads of the answer, with the violations found.
func roundTrip(t *testing.T, h http.Handler, method, path, body string) (int, string, []Violation) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	v, err := NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer some-api-key")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Transport: v.Transport(nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(got), v.Violations()
}

// The transport checks traffic from the client's side, for servers a test
// cannot wrap: a conforming exchange passes with the server's answer intact,
// and a broken request or response is recorded with its field and rule,
// never its value.
func TestTheTransportValidatesWhatAnyServerAnswers(t *testing.T) {
	const providers = `{"providers":[{"id":"google","type":"shared"}]}`
	status, body, got := roundTrip(t, fixedHandler(http.StatusOK, providers), "GET", "/api/v2/projects/p-1/auth/oauth_providers", "")
	if status != http.StatusOK || body != providers || len(got) != 0 {
		t.Errorf("a conforming exchange: status %d, body %q, violations %v", status, body, got)
	}

	broken := `{"providers":[{"id":"google","type":"custom","client_secret":"oauth-client-secret"}]}`
	_, body, got = roundTrip(t, fixedHandler(http.StatusOK, broken), "GET", "/api/v2/projects/p-1/auth/oauth_providers", "")
	if body != broken {
		t.Errorf("the caller read %q, want the server's answer %q", body, broken)
	}
	wantViolations(t, got, "response", "/providers/0/type", "enum")
	for _, x := range got {
		if !x.OfAnswer() {
			t.Errorf("%s: a violation of the answer says it is not", x)
		}
	}

	var received string
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		received = string(b)
		w.WriteHeader(http.StatusOK)
	})
	const sent = `{"type":"standard","host":"smtp.example.com","port":"not-a-port"}`
	_, _, got = roundTrip(t, echo, "PATCH", "/api/v2/projects/p-1/branches/br-1/auth/email_provider", sent)
	if received != sent {
		t.Errorf("the server received %q, want the body sent %q", received, sent)
	}
	wantViolations(t, got, "request", "/port")
	for _, x := range got {
		if strings.Contains(x.Problem, "/port") && x.OfAnswer() {
			t.Errorf("%s: a violation of the request says it is of the answer", x)
		}
	}
}

// An answer with a status the reference does not declare for the
// operation, such as 204 where it declares 200, is a violation of the
// answer.
func TestAnUndeclaredStatusIsAViolationOfTheAnswer(t *testing.T) {
	noContent := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	status, _, got := roundTrip(t, noContent, "DELETE", "/api/v2/projects/p-1/branches/br-1/auth/oauth_providers/github", "")
	if status != http.StatusNoContent || len(got) == 0 {
		t.Fatalf("status %d, violations %v; want the 204 and a violation", status, got)
	}
	for _, x := range got {
		if !x.OfAnswer() || x.Status != http.StatusNoContent {
			t.Errorf("%s: want a violation of the 204 answer", x)
		}
	}
}

// Requests outside the API pass unchecked.
func TestTheTransportLeavesOtherPathsAlone(t *testing.T) {
	_, _, got := roundTrip(t, fixedHandler(http.StatusOK, "not json"), "GET", "/_emulator/stats", "")
	if len(got) != 0 {
		t.Errorf("violations = %v", got)
	}
}
