// Package apiclient is a typed client for the platform API v2 (the auth
// integration endpoints and the few general endpoints they need). It knows
// HTTP and JSON and nothing of Terraform.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// DefaultBaseURL is the public platform API v2.
const DefaultBaseURL = "https://console.neon.tech/api/v2/"

// apiPath ends every base URL.
const apiPath = "/api/v2/"

// Documented limits of the platform API.
const (
	DefaultAccountRequestsPerMinute = 700
	DefaultRouteRequestsPerSecond   = 40
)

// maxResponseBytes bounds how much of a response body is read.
const maxResponseBytes = 16 << 20

// Logger receives one line per HTTP attempt. Fields never hold headers,
// bodies or secrets: method, path (with ids), status, attempt, request id,
// duration. The provider wires it to tflog.
type Logger interface {
	Debug(ctx context.Context, msg string, fields map[string]any)
}

// Options configure a Client. The zero value of every field means "default".
type Options struct {
	// BaseURL of the API, ending in /api/v2/. Plain http:// is accepted only
	// for loopback hosts so that the API key never travels in clear.
	BaseURL string
	// APIKey sent as `Authorization: Bearer <key>`.
	APIKey string
	// UserAgent sent with every request.
	UserAgent string
	// HTTPClient is cloned, never mutated. nil → a client over a clone of
	// http.DefaultTransport.
	HTTPClient *http.Client
	// Retry policy.
	Retry RetryPolicy
	// Client-side rate limits.
	RateLimit RateLimit
	// Logger for request lines; nil → silent.
	Logger Logger
}

// Client talks to the platform API v2. It is safe for concurrent use.
type Client struct {
	baseURL   *url.URL
	apiKey    string
	userAgent string
	http      *http.Client
	retry     RetryPolicy
	limiter   *limiter
	logger    Logger
}

// New builds a Client from options.
func New(opts Options) (*Client, error) {
	base, err := ParseBaseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(opts.APIKey) == "" {
		return nil, errors.New("an API key is required")
	}
	var hc http.Client
	if opts.HTTPClient != nil {
		hc = *opts.HTTPClient
	}
	if hc.Transport == nil {
		t, ok := http.DefaultTransport.(*http.Transport)
		if !ok {
			return nil, errors.New("http.DefaultTransport is not an *http.Transport; pass Options.HTTPClient")
		}
		hc.Transport = t.Clone()
	}
	lim := newLimiter(opts.RateLimit, accountID(base.Scheme, base.Host, opts.APIKey))
	gate := &keyGate{next: hc.Transport, basePath: base.Path}
	hc.Transport = &limitedTransport{next: gate, limiter: lim}
	ua := opts.UserAgent
	if ua == "" {
		ua = "terraform-provider-neon"
	}
	return &Client{
		baseURL:   base,
		apiKey:    opts.APIKey,
		userAgent: ua,
		http:      &hc,
		retry:     opts.Retry.withDefaults(),
		limiter:   lim,
		logger:    opts.Logger,
	}, nil
}

// ParseBaseURL validates a base URL: http or https, a host, and plain http
// only on loopback. The result always ends in a slash.
func ParseBaseURL(raw string) (*url.URL, error) {
	if strings.TrimSpace(raw) == "" {
		raw = DefaultBaseURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base URL %q is not a valid URL: %w", raw, err)
	}
	if u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("base URL %q must be an absolute http(s) URL such as %s", raw, DefaultBaseURL)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("base URL %q must not carry credentials, a query or a fragment", raw)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("base URL %q uses plain http:// on a non-loopback host; the API key would travel in clear. "+
			"Use https:// (a neon-emulator serves it with -tls), or http:// only on a loopback host: localhost, 127.0.0.0/8 or [::1]", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	if !strings.HasSuffix(u.Path, apiPath) {
		fixed := *u
		fixed.Path = apiPathFor(u.Path)
		fixed.RawPath = ""
		return nil, fmt.Errorf("base URL %q must end in %s, the path of the platform API v2; did you mean %q?", raw, apiPath, fixed.String())
	}
	return u, nil
}

// otherAPIVersion is a path ending in another version of the API, or a
// version without its /api/ (/api/v1/, /v2/).
var otherAPIVersion = regexp.MustCompile(`(/api)?/v[0-9][^/]*/$`)

// apiPathFor is the path of the platform API v2 that a base URL's path
// (ending in a slash) most likely meant: the same prefix ending in /api/v2/.
func apiPathFor(p string) string {
	if before, _, found := strings.Cut(p, apiPath); found { // a path below the API's
		return before + apiPath
	}
	switch {
	case otherAPIVersion.MatchString(p): // /api/v1/ → /api/v2/
		return otherAPIVersion.ReplaceAllLiteralString(p, apiPath)
	case strings.HasSuffix(p, "/api/"):
		return p + "v2/"
	}
	return strings.TrimSuffix(p, "/") + apiPath
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// call describes one HTTP exchange of an operation.
type call struct {
	method string
	ep     endpoint
	query  url.Values
	body   any
	// out receives the decoded JSON body of a 2xx response (nil: ignore body).
	out any
}

// do performs one HTTP exchange — its attempts paced by the rate limits and
// retried within the operation's budget — and decodes the result.
func (c *Client) do(ctx context.Context, cl call) error {
	if ctx == nil {
		return errors.New("apiclient: nil context")
	}
	ctx, b := c.withBudget(ctx)
	displayPath := "/" + cl.ep.path
	u, err := url.Parse(c.baseURL.String() + cl.ep.path)
	if err != nil {
		return fmt.Errorf("building %s %s request: %w", cl.method, displayPath, err)
	}
	if len(cl.query) > 0 {
		u.RawQuery = cl.query.Encode()
	}
	var body []byte
	if cl.body != nil {
		if body, err = json.Marshal(cl.body); err != nil {
			return fmt.Errorf("encoding %s %s request: %w", cl.method, displayPath, err)
		}
	}

	st := &callState{route: cl.method + " /" + cl.ep.route, method: cl.method, start: time.Now(), budget: b}
	ctx = withCallState(ctx, st)
	var rawBody any
	if body != nil {
		rawBody = body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, cl.method, u.String(), rawBody)
	if err != nil {
		return fmt.Errorf("building %s %s request: %w", cl.method, displayPath, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	err = c.exchange(ctx, req, st, cl)
	if err != nil && st.exhausted != "" && ctx.Err() == nil {
		return &BudgetError{Limit: st.exhausted, Retries: b.retriesSpent(), Err: err}
	}
	return err
}

// exchange sends req with its retries and reads the answer into cl.out.
func (c *Client) exchange(ctx context.Context, req *retryablehttp.Request, st *callState, cl call) error {
	displayPath := "/" + cl.ep.path
	resp, err := c.retryClient(st).Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, cl.method, displayPath, st.sent)
		}
		var refused *KeyRefusedError
		if errors.As(err, &refused) {
			return refused
		}
		err = unwrapURLError(err)
		cause := classifyTransport(err)
		return &TransportError{Method: cl.method, Path: displayPath, Sent: st.sent, Err: err,
			Cause: cause, Hint: transportHint(cause, c.baseURL, err)}
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return &TransportError{Method: cl.method, Path: displayPath, Sent: true, Err: fmt.Errorf("reading response: %w", err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return newError(cl.method, displayPath, resp.StatusCode, resp.Header, data)
	}
	if cl.out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &DecodeError{Method: cl.method, Path: displayPath, RequestID: resp.Header.Get("X-Request-Id"), Err: errors.New("empty body where a JSON object was expected")}
	}
	if err := json.Unmarshal(data, cl.out); err != nil {
		return &DecodeError{Method: cl.method, Path: displayPath, RequestID: resp.Header.Get("X-Request-Id"), Err: err}
	}
	return nil
}

// unwrapURLError drops the *url.Error wrapper, whose text repeats the URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func (c *Client) log(ctx context.Context, msg string, fields map[string]any) {
	if c.logger != nil {
		c.logger.Debug(ctx, msg, fields)
	}
}
