package apiclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// stubScope is a project-level scope for the stub servers, which answer
// whatever the path.
var stubScope = Scope{ProjectID: "p", Family: FamilyProject}

// fastRetry keeps the retry tests quick: short waits, same rules.
var fastRetry = RetryPolicy{MaxRetries: 4, WaitMin: 5 * time.Millisecond, WaitMax: 20 * time.Millisecond, Timeout: 10 * time.Second}

func newStubClient(t *testing.T, h http.HandlerFunc) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL + "/api/v2/", APIKey: "test-key", Retry: fastRetry,
		RateLimit: RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParseBaseURL(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "", want: DefaultBaseURL},
		{in: "https://console.neon.tech/api/v2", want: "https://console.neon.tech/api/v2/"},
		{in: "http://127.0.0.1:8080/api/v2/", want: "http://127.0.0.1:8080/api/v2/"},
		{in: "http://localhost:1/api/v2/", want: "http://localhost:1/api/v2/"},
		{in: "http://[::1]:1/api/v2/", want: "http://[::1]:1/api/v2/"},
		{in: "http://console.neon.tech/api/v2/", err: "plain http:// on a non-loopback host"},
		{in: "http://10.1.2.3:8080/api/v2/", err: "http:// only on a loopback host: localhost, 127.0.0.0/8 or [::1]"},
		{in: "http://127.9.9.9:8080/api/v2/", want: "http://127.9.9.9:8080/api/v2/"},
		{in: "https://neon-emulator:8080", err: `must end in /api/v2/, the path of the platform API v2; did you mean "https://neon-emulator:8080/api/v2/"?`},
		{in: "https://neon-emulator:8080/v2/", err: `did you mean "https://neon-emulator:8080/api/v2/"?`},
		{in: "https://host/api/v1/", err: `did you mean "https://host/api/v2/"?`},
		{in: "https://host/api/v1", err: `did you mean "https://host/api/v2/"?`},
		{in: "https://host/foo/api/v1/", err: `did you mean "https://host/foo/api/v2/"?`},
		{in: "https://host/api/v2beta/", err: `did you mean "https://host/api/v2/"?`},
		{in: "https://host/", err: `did you mean "https://host/api/v2/"?`},
		{in: "https://host/api", err: `did you mean "https://host/api/v2/"?`},
		{in: "https://host/foo", err: `did you mean "https://host/foo/api/v2/"?`},
		{in: "https://host/v1beta/x/", err: `did you mean "https://host/v1beta/x/api/v2/"?`},
		{in: "https://host/foo/api/v2", want: "https://host/foo/api/v2/"},
		{in: "https://proxy.example/neon/api/v2/projects/", err: `did you mean "https://proxy.example/neon/api/v2/"?`},
		{in: "https://proxy.example/neon/api/v2/", want: "https://proxy.example/neon/api/v2/"},
		{in: "http://10.0.0.1/api/v2/", err: "plain http:// on a non-loopback host"},
		{in: "ftp://x/api/v2/", err: "must be an absolute http(s) URL"},
		{in: "console.neon.tech/api/v2", err: "must be an absolute http(s) URL"},
		{in: "https://user:pw@console.neon.tech/api/v2/", err: "must not carry credentials"},
	} {
		u, err := ParseBaseURL(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseBaseURL(%q) error = %v, want containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || u.String() != tc.want {
			t.Errorf("ParseBaseURL(%q) = %v, %v; want %q", tc.in, u, err, tc.want)
		}
	}
}

func TestNewRefusesMissingKeyAndCleartextBaseURL(t *testing.T) {
	if _, err := New(Options{BaseURL: "https://example.com/api/v2/"}); err == nil {
		t.Error("New without an API key succeeded")
	}
	if _, err := New(Options{BaseURL: "http://example.com/api/v2/", APIKey: "k"}); err == nil {
		t.Error("New with http:// on a public host succeeded")
	}
}

func TestEveryRequestCarriesAuthAcceptUserAgentAndJSONBody(t *testing.T) {
	var got http.Header
	c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"u1"}`))
	})
	c.userAgent = "terraform-provider-neon/1.2.3 (terraform/1.11.4)"
	if _, err := c.CreateUser(context.Background(), stubScope, CreateUserRequest{AuthProvider: "stack", Email: "a@b.c"}); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"Authorization": "Bearer test-key",
		"Accept":        "application/json",
		"Content-Type":  "application/json",
		"User-Agent":    "terraform-provider-neon/1.2.3 (terraform/1.11.4)",
	} {
		if got.Get(k) != want {
			t.Errorf("header %s = %q, want %q", k, got.Get(k), want)
		}
	}
}

func TestErrorsDecodeIntoTypedErrorsAndSentinels(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		ctype    string
		body     string
		sentinel error
		message  string
	}{
		{"json 404", 404, "application/json", `{"code":"","message":"project not found","request_id":"r-1"}`, ErrNotFound, "project not found"},
		{"json 401", 401, "application/json", `{"code":"","message":"authorization failed"}`, ErrUnauthorized, "authorization failed"},
		{"json 409", 409, "application/json", `{"code":"conflict","message":"exists"}`, ErrConflict, "exists"},
		{"json 400", 400, "application/json", `{"code":"","message":"domain: must be an origin"}`, ErrBadRequest, "domain: must be an origin"},
		{"json 403", 403, "application/json", `{"code":"","message":"not allowed"}`, ErrForbidden, "not allowed"},
		{"html 502", 502, "text/html", `<html><body><h1>502 Bad Gateway</h1></body></html>`, nil, "502 Bad Gateway"},
		{"empty 500", 500, "", ``, nil, "empty response body"},
		{"truncated json", 400, "application/json", `{"code":"","mess`, ErrBadRequest, "non-JSON response body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.ctype != "" {
					w.Header().Set("Content-Type", tc.ctype)
				}
				w.Header().Set("X-Request-Id", "hdr-req")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})
			// POST: never retried on 5xx, so each case is one attempt.
			_, err := c.CreateUser(context.Background(), stubScope, CreateUserRequest{AuthProvider: "stack", Email: "a@b.c"})
			var apiErr *Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T) is not *Error", err, err)
			}
			if apiErr.StatusCode != tc.status {
				t.Errorf("StatusCode = %d, want %d", apiErr.StatusCode, tc.status)
			}
			if !strings.Contains(apiErr.Message, tc.message) {
				t.Errorf("Message = %q, want containing %q", apiErr.Message, tc.message)
			}
			if apiErr.RequestID == "" {
				t.Error("RequestID is empty")
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("errors.Is(err, %v) = false", tc.sentinel)
			}
			// A write answered 500 or 502 may have been applied; a 4xx was not.
			if got, want := errors.Is(err, ErrOutcomeUnknown), tc.status == 500 || tc.status == 502; got != want {
				t.Errorf("errors.Is(err, ErrOutcomeUnknown) = %v, want %v", got, want)
			}
		})
	}
}

func TestSuccessWithUndecodableBodyIsADecodeError(t *testing.T) {
	c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[{"auth_provider":`))
	})
	_, err := c.ListIntegrations(context.Background(), stubScope)
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T) is not *DecodeError", err, err)
	}
}

// The retry layer waits out the Retry-After the transport read from the
// answer, given in seconds or as an HTTP date.
func TestRateLimitedRequestWaitsForRetryAfterAndSucceeds(t *testing.T) {
	for name, retryAfter := range map[string]func() string{
		"seconds": func() string { return "1" },
		// Whole seconds: 2 s ahead is more than 1 s ahead once truncated.
		"HTTP date": func() string { return time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat) },
	} {
		t.Run(name, func(t *testing.T) {
			var calls atomic.Int32
			var gap time.Duration
			var first time.Time
			c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					first = time.Now()
					w.Header().Set("Retry-After", retryAfter())
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				gap = time.Since(first)
				_, _ = w.Write([]byte(`{"id":"u1"}`))
			})
			u, err := c.CreateUser(context.Background(), stubScope, CreateUserRequest{AuthProvider: "stack", Email: "a@b.c"})
			if err != nil {
				t.Fatal(err)
			}
			if u.ID != "u1" || calls.Load() != 2 {
				t.Fatalf("got id %q after %d calls, want u1 after 2", u.ID, calls.Load())
			}
			if gap < time.Second {
				t.Errorf("retried after %v, before the server's Retry-After of at least 1s", gap)
			}
		})
	}
}

func TestLockedAndUnavailableAreRetriedForWrites(t *testing.T) {
	for _, status := range []int{http.StatusLocked, http.StatusServiceUnavailable} {
		var calls atomic.Int32
		c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) < 3 {
				w.WriteHeader(status)
				return
			}
			w.WriteHeader(http.StatusCreated)
		})
		if _, err := c.AddDomain(context.Background(), stubScope, AddDomainRequest{Domain: "https://a.example", AuthProvider: "stack"}); err != nil {
			t.Fatalf("status %d: %v", status, err)
		}
		if calls.Load() != 3 {
			t.Errorf("status %d: %d calls, want 3", status, calls.Load())
		}
	}
}

func TestServerErrorsAreRetriedForReads(t *testing.T) {
	var gets atomic.Int32
	c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
		if gets.Add(1) < 3 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`{"domains":[]}`))
	})
	if _, err := c.ListDomains(context.Background(), stubScope); err != nil {
		t.Fatalf("GET did not survive two 500s: %v", err)
	}
	if gets.Load() != 3 {
		t.Fatalf("%d GETs, want 3", gets.Load())
	}
}

func TestReadWhoseResponseWasLostIsRetried(t *testing.T) {
	var gets atomic.Int32
	c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
		if gets.Add(1) == 1 {
			loseResponse(w)
			return
		}
		_, _ = w.Write([]byte(`{"providers":[{"id":"google","type":"shared"}]}`))
	})
	ps, err := c.ListOAuthProviders(context.Background(), stubScope)
	if err != nil || len(ps) != 1 {
		t.Fatalf("ListOAuthProviders = %v, %v", ps, err)
	}
}

func TestRetriesStopAtTheCapAndReturnTheLastResponse(t *testing.T) {
	var calls atomic.Int32
	c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"code":"","message":"service unavailable"}`))
	})
	_, err := c.ListDomains(context.Background(), stubScope)
	var be *BudgetError
	if !errors.As(err, &be) || be.Limit != LimitRetries || be.Retries != fastRetry.MaxRetries {
		t.Fatalf("err = %v, want a BudgetError on the retries after %d", err, fastRetry.MaxRetries)
	}
	var ae *Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("err = %v, want the last response (503) inside", err)
	}
	if want := int32(fastRetry.MaxRetries + 1); calls.Load() != want {
		t.Fatalf("%d attempts, want %d", calls.Load(), want)
	}
}

// A 429 means the account is busy, not that the request is wrong: it is
// retried past max_retries for as long as the time budget lasts.
func TestThrottlingIsRetriedPastTheRetryCapWhileTimeRemains(t *testing.T) {
	throttled := int32(fastRetry.MaxRetries * 3)
	var calls atomic.Int32
	c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= throttled {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte(`{"domains":[]}`))
	})
	if _, err := c.ListDomains(context.Background(), stubScope); err != nil {
		t.Fatalf("err = %v after %d × 429, want success", err, throttled)
	}
	if got := calls.Load(); got != throttled+1 {
		t.Fatalf("%d attempts, want %d", got, throttled+1)
	}
}

// When the time budget runs out, a run of 429s ends with the budget error
// naming the time limit and the last answer.
func TestThrottlingStopsWhenTheTimeBudgetEnds(t *testing.T) {
	policy := fastRetry
	policy.Timeout = 300 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL + "/api/v2/", APIKey: "test-key", Retry: policy,
		RateLimit: RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListDomains(context.Background(), stubScope)
	var be *BudgetError
	if !errors.As(err, &be) || be.Limit != LimitTime || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("err = %v, want a BudgetError on time wrapping the 429", err)
	}
	if be.Retries <= policy.MaxRetries {
		t.Fatalf("%d retries before the time budget ended; 429s must not stop at max_retries (%d)", be.Retries, policy.MaxRetries)
	}
}

func TestCancelledContextStopsWaitingAtOnce(t *testing.T) {
	c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.ListDomains(ctx, stubScope)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("returned after %v; cancellation must stop the 5s wait at once", d)
	}
}

func TestRetryAfterLongerThanTheTimeBudgetIsNotWaited(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL + "/api/v2/", APIKey: "k",
		Retry: RetryPolicy{MaxRetries: 5, Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.ListDomains(context.Background(), stubScope)
	if err == nil || calls.Load() != 1 || time.Since(start) > 2*time.Second {
		t.Fatalf("err=%v calls=%d elapsed=%v; want an immediate error after one call", err, calls.Load(), time.Since(start))
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{"0", 0, true},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"", 0, false},
		{"-1", 0, false},
		{"soon", 0, false},
	} {
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	p := RetryPolicy{WaitMin: 100 * time.Millisecond, WaitMax: 400 * time.Millisecond}.withDefaults()
	for attempt := 1; attempt <= 8; attempt++ {
		d := backoff(p, attempt)
		ceiling := min(p.WaitMin<<(attempt-1), p.WaitMax)
		if d < ceiling/2 || d > ceiling {
			t.Errorf("attempt %d: wait %v outside [%v, %v]", attempt, d, ceiling/2, ceiling)
		}
	}
}

func TestSecretsAreNotPrintedByStringers(t *testing.T) {
	for _, v := range []interface{ String() string }{
		IntegrationCredentials{NeonAuthCreateIntegrationResponse: neonapi.NeonAuthCreateIntegrationResponse{PubClientKey: "pck_secret1", SecretServerKey: "ssk_secret2"}},
		OAuthProvider{NeonAuthOauthProvider: neonapi.NeonAuthOauthProvider{ID: "google", ClientSecret: Ptr("cs_secret3")}},
		EmailServer{neonapi.StandardEmailServer{Type: "standard", Password: Ptr("smtp_secret4")}},
		TransferOwnership{neonapi.NeonAuthTransferAuthProviderProjectResponse{URL: "https://confirm/secret5"}},
	} {
		s := v.String()
		for _, secret := range []string{"secret1", "secret2", "secret3", "secret4", "secret5"} {
			if strings.Contains(s, secret) {
				t.Errorf("%T.String() = %q leaks a secret", v, s)
			}
		}
	}
}

// The branch list follows pagination.next through every page, and stops on a
// cursor that comes back twice.
func TestListBranchesFollowsEveryPage(t *testing.T) {
	pages := map[string]string{
		"":   `{"branches":[{"id":"br-1","default":true}],"annotations":{},"pagination":{"next":"c2"}}`,
		"c2": `{"branches":[{"id":"br-2"},{"id":"br-3"}],"annotations":{},"pagination":{"next":"c3"}}`,
		"c3": `{"branches":[],"annotations":{}}`,
	}
	var limits []string
	c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
		limits = append(limits, r.URL.Query().Get("limit"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(pages[r.URL.Query().Get("cursor")]))
	})
	branches, err := c.ListBranches(context.Background(), "p")
	if err != nil || len(branches) != 3 || branches[2].ID != "br-3" {
		t.Fatalf("ListBranches = %+v, %v; want br-1..br-3", branches, err)
	}
	if len(limits) != 3 || limits[0] != "1000" {
		t.Errorf("requests with limits %q, want three pages of 1000", limits)
	}
	pages["c3"] = `{"branches":[{"id":"br-4"}],"annotations":{},"pagination":{"next":"c2"}}`
	if _, err := c.ListBranches(context.Background(), "p"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a repeating cursor: err = %v, want the loop to be refused", err)
	}
}
