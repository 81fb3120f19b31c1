package apiclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Errors that retrying cannot fix stop an operation at once, and each says
// what to do. This file classifies transport failures, bounds the retries of
// a refused connection, and remembers the first 401 of a client so that no
// later request carries a key the API already refused.

// TransportCause names why a request got no HTTP response.
type TransportCause string

// The transport failures the client tells apart.
const (
	CauseOther        TransportCause = ""              // anything else (timeouts, resets): retried as before
	CauseCertificate  TransportCause = "certificate"   // the server's certificate is not trusted or not for this host
	CauseNoSuchHost   TransportCause = "no-such-host"  // DNS: the host name does not resolve
	CauseTLSHandshake TransportCause = "tls-handshake" // the TLS handshake failed (not TLS on the other end, a TLS alert)
	CauseRefused      TransportCause = "refused"       // nothing listens at the address
)

// Sentinels of the transport causes, for errors.Is on a *TransportError.
var (
	ErrCertificate       = errors.New("TLS certificate not trusted")
	ErrNoSuchHost        = errors.New("no such host")
	ErrTLSHandshake      = errors.New("TLS handshake failed")
	ErrConnectionRefused = errors.New("connection refused")
	// ErrInterrupted: the operation was cancelled (Ctrl-C, a Terraform
	// stop) while a request was under way or waiting.
	ErrInterrupted = errors.New("interrupted")
)

func (c TransportCause) sentinel() error {
	switch c {
	case CauseCertificate:
		return ErrCertificate
	case CauseNoSuchHost:
		return ErrNoSuchHost
	case CauseTLSHandshake:
		return ErrTLSHandshake
	case CauseRefused:
		return ErrConnectionRefused
	}
	return nil
}

// refusedRetryWindow bounds how long a refused connection is retried: long
// enough for a server that is just starting, short enough that a wrong
// address fails at once.
const refusedRetryWindow = 2 * time.Second

// classifyTransport tells why a request got no response, from typed errors.
func classifyTransport(err error) TransportCause {
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verification     *tls.CertificateVerificationError
		dnsErr           *net.DNSError
		recordHeader     tls.RecordHeaderError
		alert            tls.AlertError
		opErr            *net.OpError
	)
	switch {
	case errors.As(err, &verification), errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid):
		return CauseCertificate
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return CauseNoSuchHost
	case errors.Is(err, http.ErrSchemeMismatch), errors.As(err, &recordHeader), errors.As(err, &alert),
		// A TLS alert from the server (crypto/tls wraps it so, its type unexported).
		errors.As(err, &opErr) && opErr.Op == "remote error":
		return CauseTLSHandshake
	case errors.Is(err, syscall.ECONNREFUSED):
		return CauseRefused
	}
	return CauseOther
}

// transportHint is the fix for a transport failure, naming the address.
func transportHint(cause TransportCause, base *url.URL, err error) string {
	host := base.Host
	switch cause {
	case CauseCertificate:
		var hostname x509.HostnameError
		if errors.As(err, &hostname) {
			return fmt.Sprintf("the server's certificate is not valid for %q: use a base_url with a name the certificate was made for "+
				"(a neon-emulator names it with -tls-name %s)", base.Hostname(), base.Hostname())
		}
		return "the server's certificate is signed by an authority this machine does not trust: for a neon-emulator started " +
			"with -tls, set SSL_CERT_FILE to the emulator's CA (the file its SSL_CERT_FILE= line names)"
	case CauseNoSuchHost:
		return fmt.Sprintf("the host name %q does not resolve: check the host in base_url (or NEON_API_BASE_URL)", base.Hostname())
	case CauseTLSHandshake:
		if errors.Is(err, http.ErrSchemeMismatch) {
			return fmt.Sprintf("%s did not complete a TLS handshake: is it serving HTTPS? It answered in plain HTTP: start the neon-emulator "+
				"with -tls, or use http:// (loopback hosts only)", host)
		}
		return fmt.Sprintf("%s did not complete a TLS handshake: is it serving HTTPS? (a neon-emulator serves HTTPS with -tls; "+
			"plain http:// is for loopback only)", host)
	case CauseRefused:
		return fmt.Sprintf("nothing accepts connections at %s (retried for %s): start the emulator or API at %s, "+
			"or correct base_url (or NEON_API_BASE_URL)", host, refusedRetryWindow, base.String())
	}
	return ""
}

// retryTransport decides whether a request without a response is sent again,
// by its row of transportRules (status.go): never for a cause no retry can
// fix, a refused connection only within refusedRetryWindow of the first
// refusal, a request that was sent only when it is a read.
func retryTransport(st *callState, err error) bool {
	kind := kindOfTransport(classifyTransport(err), errors.Is(err, errKeyRefused), st.sent)
	if kind == transportRefused && st.refusedSince.IsZero() {
		st.refusedSince = time.Now()
	}
	return transportRules[kind].retries(st.method)
}

// refusedWindowLeft reports whether a retry after wait still ends within the
// window of a refused connection.
func (st *callState) refusedWindowLeft(wait time.Duration) bool {
	return st.refusedSince.IsZero() || time.Since(st.refusedSince)+wait <= refusedRetryWindow
}

// keyRefusal is the first request of a client whose key the API refused.
type keyRefusal struct {
	Method    string
	Path      string
	RequestID string
}

// errKeyRefused marks a request the key gate kept from the wire.
var errKeyRefused = errors.New("not sent: the API refused the API key earlier in this run")

// KeyRefusedError is a request that was not sent because the API answered an
// earlier request of the same client with 401: the key is missing, invalid or
// revoked, and every later request would be refused the same way.
type KeyRefusedError struct {
	Method string
	Path   string
	First  keyRefusal
}

func (e *KeyRefusedError) Error() string {
	s := fmt.Sprintf("%s %s: not sent, the API refused the API key earlier in this run (HTTP 401 on %s %s", e.Method, e.Path, e.First.Method, e.First.Path)
	if e.First.RequestID != "" {
		s += ", request_id " + e.First.RequestID
	}
	return s + "); see that error, fix api_key or NEON_API_KEY and run again"
}

// Is makes a KeyRefusedError an ErrUnauthorized.
func (e *KeyRefusedError) Is(target error) bool {
	return target == ErrUnauthorized || target == errKeyRefused
}

// keyGate sits between the rate limits and the network: once an answer was
// 401 it sends nothing more, so requests waiting for the rate limit when the
// first 401 arrives stay unsent too.
type keyGate struct {
	next     http.RoundTripper
	basePath string
	refused  atomic.Pointer[keyRefusal]
}

func (g *keyGate) RoundTrip(req *http.Request) (*http.Response, error) {
	if first := g.refused.Load(); first != nil {
		return nil, &KeyRefusedError{Method: req.Method, Path: g.display(req.URL.Path), First: *first}
	}
	resp, err := g.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		g.refused.CompareAndSwap(nil, &keyRefusal{Method: req.Method, Path: g.display(req.URL.Path), RequestID: resp.Header.Get("X-Request-Id")})
	}
	return resp, err
}

// display is a request path as the client's errors show it: below the base URL.
func (g *keyGate) display(p string) string {
	return "/" + strings.TrimPrefix(p, g.basePath)
}

// interrupted is the one short error of a call that was cancelled: what was
// under way, and whether a write may have been applied.
func interrupted(ctx context.Context, method, path string, sent bool) error {
	return &InterruptedError{Method: method, Path: path, Sent: sent && method != http.MethodGet, Err: context.Cause(ctx)}
}

// InterruptedError is a call ended by a cancelled context (Ctrl-C). It is
// never retried.
type InterruptedError struct {
	Method string
	Path   string
	// Sent: a write reached the server before the interrupt, so it may have
	// been applied; the next plan shows whether it was.
	Sent bool
	Err  error
}

func (e *InterruptedError) Error() string {
	reason := "interrupted"
	if e.Err != nil && !errors.Is(e.Err, context.Canceled) {
		reason = "stopped: " + e.Err.Error()
	}
	if e.Sent {
		return fmt.Sprintf("%s %s: %s; the request was sent and may have been applied (the next plan shows whether it was)", e.Method, e.Path, reason)
	}
	return fmt.Sprintf("%s %s: %s", e.Method, e.Path, reason)
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// Is makes an InterruptedError an ErrInterrupted.
func (e *InterruptedError) Is(target error) bool { return target == ErrInterrupted }
