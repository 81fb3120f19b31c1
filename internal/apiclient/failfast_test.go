package apiclient

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// failFastBound is how long an error that no retry can fix may take.
const failFastBound = 3 * time.Second

// expectFastFailure runs f and checks that it fails within failFastBound with
// err matching target and a message containing each of want.
func expectFastFailure(t *testing.T, target error, f func() error, want ...string) error {
	t.Helper()
	start := time.Now()
	err := f()
	took := time.Since(start)
	if err == nil {
		t.Fatal("call succeeded; want a failure")
	}
	if !errors.Is(err, target) {
		t.Errorf("err = %v; want errors.Is %v", err, target)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %q; want it to contain %q", err, w)
		}
	}
	if took > failFastBound {
		t.Errorf("failed after %v; want under %v", took, failFastBound)
	}
	return err
}

// newFailFastClient is a client with the default retry policy (the one users
// get) over hc.
func newFailFastClient(t *testing.T, baseURL string, hc *http.Client) *Client {
	t.Helper()
	c, err := New(Options{BaseURL: baseURL, APIKey: "k", HTTPClient: hc,
		RateLimit: RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestUntrustedCertificateFailsAtOnceNamingSSLCertFile(t *testing.T) {
	var handshakes atomic.Int32
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = quietLog()
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			handshakes.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := newFailFastClient(t, srv.URL+"/api/v2/", nil) // the machine's roots: the test CA is not among them
	_ = expectFastFailure(t, ErrCertificate, func() error { _, err := c.ListDomains(context.Background(), stubScope); return err },
		"set SSL_CERT_FILE to the emulator's CA")
	if n := handshakes.Load(); n != 1 {
		t.Errorf("%d connections; a certificate error must not be retried", n)
	}
}

func TestCertificateForAnotherHostFailsAtOnceNamingTheHost(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = quietLog()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	// Trusted, but made for 127.0.0.1, ::1 and example.com: not "localhost".
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	c := newFailFastClient(t, "https://localhost:"+port+"/api/v2/", srv.Client())
	_ = expectFastFailure(t, ErrCertificate, func() error { _, err := c.ListDomains(context.Background(), stubScope); return err },
		`not valid for "localhost"`, "-tls-name localhost")
}

func TestUnresolvableHostFailsAtOnce(t *testing.T) {
	dns := nxdomainServer(t)
	dialer := &net.Dialer{Resolver: &net.Resolver{PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "udp", dns)
		}}}
	tr := cloneTransport(t, http.DefaultTransport)
	tr.DialContext = dialer.DialContext
	c := newFailFastClient(t, "https://neon-emulator.test:8443/api/v2/", &http.Client{Transport: tr})
	_ = expectFastFailure(t, ErrNoSuchHost, func() error { _, err := c.ListDomains(context.Background(), stubScope); return err },
		`"neon-emulator.test" does not resolve`)
}

func TestHTTPSToAPlainHTTPServerFailsAtOnce(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { requests.Add(1) }))
	t.Cleanup(srv.Close)
	c := newFailFastClient(t, strings.Replace(srv.URL, "http://", "https://", 1)+"/api/v2/", nil)
	_ = expectFastFailure(t, ErrTLSHandshake, func() error { _, err := c.ListDomains(context.Background(), stubScope); return err },
		"is it serving HTTPS?")
}

func TestTLSAlertFailsAtOnce(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = quietLog()
	srv.TLS = &tls.Config{MinVersion: tls.VersionTLS13}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	hc := srv.Client()
	tr := cloneTransport(t, hc.Transport)
	tr.TLSClientConfig.MaxVersion = tls.VersionTLS12
	c := newFailFastClient(t, srv.URL+"/api/v2/", &http.Client{Transport: tr})
	_ = expectFastFailure(t, ErrTLSHandshake, func() error { _, err := c.ListDomains(context.Background(), stubScope); return err },
		"did not complete a TLS handshake")
}

func TestRefusedConnectionIsRetriedForTwoSecondsAtMost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	c := newFailFastClient(t, "http://"+addr+"/api/v2/", nil)
	start := time.Now()
	_ = expectFastFailure(t, ErrConnectionRefused, func() error {
		_, err := c.AddDomain(context.Background(), stubScope, AddDomainRequest{Domain: "https://a.example", AuthProvider: "stack"})
		return err
	}, "nothing accepts connections at "+addr+" (retried for 2s): start the emulator or API at http://"+addr+"/api/v2/, "+
		"or correct base_url (or NEON_API_BASE_URL)")
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Errorf("gave up after %v; a refused connection is retried (a server may be starting)", took)
	}
}

func TestRejectedKeyFailsOnTheFirstAttemptAndLaterRequestsAreNotSent(t *testing.T) {
	var requests atomic.Int32
	c := newStubClient(t, func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.Header().Set("X-Request-Id", "req-401")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"code":"","message":"authorization failed"}`))
	})
	_ = expectFastFailure(t, ErrUnauthorized, func() error { _, err := c.ListDomains(context.Background(), stubScope); return err },
		"HTTP 401", "req-401")
	if n := requests.Load(); n != 1 {
		t.Fatalf("%d requests; a 401 must not be retried", n)
	}
	for range 5 {
		err := expectFastFailure(t, ErrUnauthorized, func() error {
			_, err := c.AddDomain(context.Background(), stubScope, AddDomainRequest{Domain: "https://a.example", AuthProvider: "stack"})
			return err
		}, "not sent, the API refused the API key earlier in this run", "GET /projects/p/auth/domains", "request_id req-401")
		var kr *KeyRefusedError
		if !errors.As(err, &kr) {
			t.Fatalf("err = %T; want *KeyRefusedError", err)
		}
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests; none may be sent after the first 401", n)
	}
}

func TestForbiddenFailsOnTheFirstAttempt(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"message":"project-scoped key may not access this project"}`))
	}))
	t.Cleanup(srv.Close)
	c := newFailFastClient(t, srv.URL+"/api/v2/", nil)
	_ = expectFastFailure(t, ErrForbidden, func() error { _, err := c.ListDomains(context.Background(), stubScope); return err },
		"HTTP 403", "may not access this project")
	// 403 is about one project: other requests are still sent.
	_, _ = c.ListDomains(context.Background(), stubScope)
	if n := requests.Load(); n != 2 {
		t.Errorf("%d requests; want 2 (one per call, no retry, no gate)", n)
	}
}

func TestInterruptEndsAnInFlightWriteWithOneShortMessage(t *testing.T) {
	var requests atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		select { // never answers before the interrupt
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c := newFailFastClient(t, srv.URL+"/api/v2/", nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	err := expectFastFailure(t, ErrInterrupted, func() error {
		_, err := c.AddDomain(ctx, stubScope, AddDomainRequest{Domain: "https://a.example", AuthProvider: "stack"})
		return err
	}, "POST /projects/p/auth/domains: interrupted; the request was sent and may have been applied")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want it to wrap context.Canceled", err)
	}
	if strings.Count(err.Error(), "interrupted") != 1 {
		t.Errorf("err = %q; want one short message", err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests; an interrupt is never retried", n)
	}
}

func TestInterruptDuringARetryWaitEndsAtOnce(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	c := newFailFastClient(t, srv.URL+"/api/v2/", nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_ = expectFastFailure(t, ErrInterrupted, func() error { _, err := c.ListDomains(ctx, stubScope); return err },
		"GET /projects/p/auth/domains: interrupted")
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests; want 1 (the wait for the retry is cut short)", n)
	}
}

func cloneTransport(t *testing.T, rt http.RoundTripper) *http.Transport {
	t.Helper()
	tr, ok := rt.(*http.Transport)
	if !ok {
		t.Fatalf("transport is a %T", rt)
	}
	return tr.Clone()
}

func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }

// nxdomainServer is a DNS server on loopback that answers every query with
// "no such name", so the resolver's own error path runs without leaving the
// machine.
func nxdomainServer(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			resp := append([]byte(nil), buf[:n]...)
			flags := binary.BigEndian.Uint16(resp[2:4])
			// QR=1, keep opcode and RD, RA=1, RCODE=3 (NXDOMAIN).
			flags = 0x8000 | flags&0x7900 | 0x0080 | 3
			binary.BigEndian.PutUint16(resp[2:4], flags)
			binary.BigEndian.PutUint16(resp[6:8], 0)   // no answers
			binary.BigEndian.PutUint16(resp[8:10], 0)  // no authority
			binary.BigEndian.PutUint16(resp[10:12], 0) // no additional (drops EDNS)
			// Keep only the header and the question.
			q := 12
			for q < len(resp) && resp[q] != 0 {
				q += int(resp[q]) + 1
			}
			if q+5 <= len(resp) {
				resp = resp[:q+5]
			}
			_, _ = pc.WriteTo(resp, from)
		}
	}()
	return pc.LocalAddr().String()
}
