package apiclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// script answers each request of a method with the next of its steps (the
// last one repeats): "lose" cuts the connection after the request arrived,
// a number is that status with an empty body, anything else is a 200 (201
// for POST) JSON body.
type script struct {
	mu    sync.Mutex
	steps map[string][]string
	sent  map[string]int
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	steps := s.steps[r.Method]
	n := s.sent[r.Method]
	s.sent[r.Method]++
	s.mu.Unlock()
	if len(steps) == 0 {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	step := steps[min(n, len(steps)-1)]
	switch {
	case step == "lose":
		loseResponse(w)
	case len(step) == 3 && step[0] >= '1' && step[0] <= '5':
		code := int(step[0]-'0')*100 + int(step[1]-'0')*10 + int(step[2]-'0')
		w.WriteHeader(code)
	default:
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		_, _ = w.Write([]byte(step))
	}
}

func (s *script) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[method]
}

const (
	stackIntegration = `{"auth_provider":"stack","auth_provider_project_id":"apid-1","branch_id":"br-1","db_name":"neondb",` +
		`"created_at":"2026-01-01T00:00:00Z","owned_by":"neon","jwks_url":"https://x/jwks.json"}`
	noDomain  = `{"domains":[]}`
	theDomain = `{"domains":[{"domain":"https://a.example","auth_provider":"stack"}]}`
)

// A write whose answer is lost, or a 500/502/504 that does not say whether
// it was applied, is resolved by the rule of its endpoint, within the
// operation's one budget of retries and time.
func TestWriteWithUnknownOutcome(t *testing.T) {
	addDomain := func(c *Client) (bool, error) {
		return c.AddDomain(context.Background(), stubScope, AddDomainRequest{Domain: "https://A.example", AuthProvider: "stack"})
	}
	createUser := func(c *Client) (bool, error) {
		_, err := c.CreateUser(context.Background(), stubScope, CreateUserRequest{AuthProvider: "stack", Email: "a@b.c"})
		return false, err
	}
	mintKeys := func(c *Client) (bool, error) {
		_, err := c.CreateSDKKeys(context.Background(), stubScope, "stack")
		return false, err
	}
	createIntegration := func(c *Client) (bool, error) {
		creds, err := c.CreateIntegration(context.Background(), stubScope, CreateIntegrationRequest{AuthProvider: "stack"})
		if err != nil {
			return false, err
		}
		if creds.AuthProviderProjectID != "apid-1" {
			return creds.Recovered, errors.New("the recovered integration was not read back: " + creds.String())
		}
		return creds.Recovered, nil
	}
	setEmail := func(c *Client) (bool, error) {
		_, err := c.UpdateEmailServer(context.Background(), stubScope, EmailServer{neonapi.StandardEmailServer{Type: "shared"}})
		return false, err
	}
	for _, tc := range []struct {
		name      string
		op        func(*Client) (bool, error)
		steps     map[string][]string
		policy    RetryPolicy
		wantSent  map[string]int
		recovered bool
		wantErr   []error // errors.Is targets; nil: success
		limit     BudgetLimit
		errText   string
	}{
		{name: "user creation is never sent blindly again", op: createUser,
			steps:    map[string][]string{"POST": {"lose", `{"id":"u"}`}},
			wantSent: map[string]int{"POST": 1}, wantErr: []error{ErrOutcomeUnknown}},
		{name: "SDK key minting answered 500 is not sent again", op: mintKeys,
			steps:    map[string][]string{"POST": {"500", `{}`}},
			wantSent: map[string]int{"POST": 1}, wantErr: []error{ErrOutcomeUnknown}},
		{name: "a lost add that was applied is recovered after one read-back", op: addDomain,
			steps:    map[string][]string{"POST": {"lose"}, "GET": {theDomain}},
			wantSent: map[string]int{"POST": 1, "GET": 1}, recovered: true},
		{name: "a re-send answered 409 after a lost add whose read-back lagged is the lost add, recovered", op: addDomain,
			steps:    map[string][]string{"POST": {"lose", "409"}, "GET": {noDomain}},
			wantSent: map[string]int{"POST": 2, "GET": 1}, recovered: true},
		{name: "a 409 to the first attempt is not recovered", op: addDomain,
			steps:    map[string][]string{"POST": {"409"}, "GET": {theDomain}},
			wantSent: map[string]int{"POST": 1, "GET": 0}, wantErr: []error{ErrConflict}},
		{name: "a second enable after a lost one is recovered, read back", op: createIntegration,
			steps:    map[string][]string{"POST": {"lose", "409"}, "GET": {`{"data":[]}`, `{"data":[` + stackIntegration + `]}`}},
			wantSent: map[string]int{"POST": 2, "GET": 2}, recovered: true},
		{name: "a second enable without a lost one is refused", op: createIntegration,
			steps:    map[string][]string{"POST": {"409"}, "GET": {`{"data":[` + stackIntegration + `]}`}},
			wantSent: map[string]int{"POST": 1, "GET": 0}, wantErr: []error{ErrConflict}},
		{name: "an add answered 500 and not applied is sent again", op: addDomain,
			steps:    map[string][]string{"POST": {"500", `{}`}, "GET": {noDomain}},
			wantSent: map[string]int{"POST": 2, "GET": 1}},
		{name: "a read-back that fails stops the write with both stories", op: addDomain,
			steps:    map[string][]string{"POST": {"lose"}, "GET": {"403"}},
			wantSent: map[string]int{"POST": 1, "GET": 1}, wantErr: []error{ErrOutcomeUnknown, ErrForbidden},
			errText: "reading back to find out whether it was applied failed too"},
		{name: "a whole-value PATCH is sent again until answered", op: setEmail,
			steps:    map[string][]string{"PATCH": {"lose", "502", `{"type":"shared"}`}},
			wantSent: map[string]int{"PATCH": 3}},
		{name: "re-sends stop when the retry budget is spent", op: addDomain,
			steps:    map[string][]string{"POST": {"500"}, "GET": {noDomain}},
			policy:   RetryPolicy{MaxRetries: 3},
			wantSent: map[string]int{"POST": 4, "GET": 4}, wantErr: []error{ErrOutcomeUnknown}, limit: LimitRetries},
		{name: "read-back retries draw on the same budget", op: addDomain,
			steps:    map[string][]string{"POST": {"lose"}, "GET": {"503"}},
			policy:   RetryPolicy{MaxRetries: 3},
			wantSent: map[string]int{"POST": 1, "GET": 4}, wantErr: []error{ErrOutcomeUnknown}, limit: LimitRetries},
		{name: "re-sends stop when the time budget would be passed", op: addDomain,
			steps:    map[string][]string{"POST": {"500"}, "GET": {noDomain}},
			policy:   RetryPolicy{MaxRetries: 10, WaitMin: 200 * time.Millisecond, WaitMax: 200 * time.Millisecond, Timeout: 90 * time.Millisecond},
			wantSent: map[string]int{"POST": 1, "GET": 1}, wantErr: []error{ErrOutcomeUnknown}, limit: LimitTime},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := &script{steps: tc.steps, sent: map[string]int{}}
			srv := httptest.NewServer(sc)
			t.Cleanup(srv.Close)
			policy := tc.policy
			if policy.WaitMin == 0 {
				policy.WaitMin, policy.WaitMax = time.Millisecond, 5*time.Millisecond
			}
			if policy.Timeout == 0 {
				policy.Timeout = 10 * time.Second
			}
			c, err := New(Options{BaseURL: srv.URL + "/api/v2/", APIKey: "k", Retry: policy,
				RateLimit: RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1}})
			if err != nil {
				t.Fatal(err)
			}
			recovered, err := tc.op(c)
			for method, want := range tc.wantSent {
				if got := sc.count(method); got != want {
					t.Errorf("%s sent %d times, want %d", method, got, want)
				}
			}
			if recovered != tc.recovered {
				t.Errorf("recovered = %v, want %v", recovered, tc.recovered)
			}
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
				return
			}
			for _, target := range tc.wantErr {
				if !errors.Is(err, target) {
					t.Errorf("err = %v; errors.Is(err, %v) = false", err, target)
				}
			}
			var be *BudgetError
			if got := errors.As(err, &be); got != (tc.limit != "") || got && be.Limit != tc.limit {
				t.Errorf("err = %v; want a BudgetError for limit %q: %v", err, tc.limit, got)
			}
			if tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)) {
				t.Errorf("err = %v, want it to say %q", err, tc.errText)
			}
		})
	}
}

// loseResponse cuts the connection after the request arrived, before any
// byte of the response: a lost response.
func loseResponse(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}
