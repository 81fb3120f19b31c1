package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// call is a tiny HTTP client for scripts that drive a running emulator
// (its control surface, or the API with a key) without needing curl:
//
//	neon-emulator call [-key KEY] [-control-token TOKEN] METHOD URL [JSON-BODY]
//
// The API key goes to API URLs, the control token (default
// $NEON_EMULATOR_CONTROL_TOKEN) to /_emulator/ URLs. A 429 is sent again
// after the Retry-After it names, as the API asks, until the call's 30 s are
// up: a script reading the emulator between applies shares the account's
// rate limit with them. It prints the response body and fails on any other
// non-2xx status.
func call(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("neon-emulator call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	key := fs.String("key", "", "API key sent as a bearer token to the API (default $NEON_API_KEY)")
	controlToken := fs.String("control-token", "",
		"control token sent as a bearer token to /_emulator/ URLs (default $"+controlTokenEnv+")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	orEnv(key, "NEON_API_KEY")
	orEnv(controlToken, controlTokenEnv)
	if fs.NArg() < 2 || fs.NArg() > 3 {
		return fmt.Errorf("usage: neon-emulator call [-key KEY] [-control-token TOKEN] METHOD URL [JSON-BODY]")
	}
	method, url := strings.ToUpper(fs.Arg(0)), fs.Arg(1)
	var body io.Reader
	if fs.NArg() == 3 {
		body = strings.NewReader(fs.Arg(2))
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := retryablehttp.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	token, control := *key, strings.Contains(url, "/_emulator/")
	if control {
		token = *controlToken
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := rateLimitedRetries().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if len(data) > 0 {
		// Indented for people reading a script's output; bodies that are not
		// JSON are printed as they came.
		var pretty bytes.Buffer
		if json.Indent(&pretty, data, "", "  ") == nil {
			data = pretty.Bytes()
		}
		if _, err := stdout.Write(append(data, '\n')); err != nil {
			return err
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		hint := callHint(resp.StatusCode, control, token != "")
		if resp.StatusCode == http.StatusBadRequest && req.URL.Scheme == "http" && speaksTLS(ctx, req.URL.Host) {
			hint = fmt.Sprintf("; the emulator at %s serves HTTPS (it was started with -tls): use https://%s/", req.URL.Host, req.URL.Host)
		}
		return fmt.Errorf("%s %s: HTTP %d%s", method, url, resp.StatusCode, hint)
	}
	return nil
}

// rateLimitedRetries is an HTTP client that sends a request again after a
// 429 only, waiting what Retry-After says (at most 10 s a time). When the
// tries run out it hands back the last answer; when the request's context
// ends first, the context's error.
func rateLimitedRetries() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.Logger = nil
	c.RetryMax = 20
	c.RetryWaitMin, c.RetryWaitMax = 250*time.Millisecond, 10*time.Second
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return false, ctxErr
		}
		return err == nil && resp.StatusCode == http.StatusTooManyRequests, nil
	}
	c.Backoff = func(lo, hi time.Duration, n int, resp *http.Response) time.Duration {
		return min(retryablehttp.DefaultBackoff(lo, hi, n, resp), hi)
	}
	c.ErrorHandler = retryablehttp.PassthroughErrorHandler
	return c
}

// callHint is the fix for a refused call, or "": which variable holds the
// token it needs and where the emulator printed it. It never holds a token.
func callHint(status int, control, sent bool) string {
	if status != http.StatusUnauthorized {
		return ""
	}
	const printed = "the value of the NEON_EMULATOR_CONTROL_TOKEN= line the emulator printed on stdout when it started " +
		"and wrote to its -ready-file (or the token it was started with)"
	switch {
	case control && !sent:
		return "; the control surface needs the control token: set " + controlTokenEnv + " (or -control-token) to " + printed
	case control:
		return "; the control token sent (" + controlTokenEnv + " or -control-token) is not this emulator's: use " + printed
	case !sent:
		return "; the API needs a key: set NEON_API_KEY (or -key), such as the NEON_API_KEY= line the emulator printed"
	}
	return "; the API refused the key sent (NEON_API_KEY or -key): it is not a key of this emulator, or it was revoked"
}
