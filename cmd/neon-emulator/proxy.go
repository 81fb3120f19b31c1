package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// This file holds -proxy: the emulator answering as the platform API's own
// host for clients that have no base-URL setting. The official Neon provider
// (its SDK always calls https://console.neon.tech/api/v2) reaches the
// emulator unchanged with
//
//	HTTPS_PROXY=http://127.0.0.1:PORT   SSL_CERT_FILE=<the emulator's CA>
//
// Its HTTP client asks the "proxy" to CONNECT console.neon.tech:443; the
// emulator accepts that one target only, answers the tunnel itself (TLS with
// a certificate for console.neon.tech signed by its own CA) and serves the
// API inside it. It never opens a connection anywhere: CONNECT to any other
// host or port is refused with 403, so it is no open proxy, and inside the
// tunnel only /api/v2/ is served (the control surface is not the API's).

// proxiedHost is the only host a CONNECT may name, on port 443.
const proxiedHost = "console.neon.tech"

// tunnel is the emulator's listener and handler with -proxy. As a handler,
// it answers CONNECT console.neon.tech:443 and passes every other request on;
// as a listener, it hands the server both the connections of its own
// listener and the tunnels' TLS connections, so one server serves both (and
// its graceful shutdown waits for both).
type tunnel struct {
	net.Listener              // the emulator's own listener
	next         http.Handler // the API and the control surface
	config       *tls.Config  // the certificate for console.neon.tech

	direct chan accepted // from the emulator's own listener
	opened chan net.Conn // the tunnels' TLS connections
	done   chan struct{}
	once   sync.Once
}

type accepted struct {
	conn net.Conn
	err  error
}

// newTunnel serves next on ln, and the tunnels with the certificate of ts.
func newTunnel(ln net.Listener, next http.Handler, ts *tlsSetup) *tunnel {
	t := &tunnel{
		Listener: ln,
		next:     next,
		config:   &tls.Config{Certificates: ts.config.Certificates, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}},
		direct:   make(chan accepted),
		opened:   make(chan net.Conn),
		done:     make(chan struct{}),
	}
	go t.acceptDirect()
	return t
}

// acceptDirect passes on what the emulator's own listener accepts, until the
// tunnel or the listener is closed.
func (t *tunnel) acceptDirect() {
	for {
		conn, err := t.Listener.Accept()
		select {
		case t.direct <- accepted{conn, err}:
		case <-t.done:
			if conn != nil {
				_ = conn.Close()
			}
			return
		}
		if errors.Is(err, net.ErrClosed) {
			return
		}
	}
}

// Accept returns the next connection of the listener or of a tunnel.
func (t *tunnel) Accept() (net.Conn, error) {
	select {
	case a := <-t.direct:
		return a.conn, a.err
	case c := <-t.opened:
		return c, nil
	case <-t.done:
		return nil, net.ErrClosed
	}
}

// Close closes the emulator's listener; tunnels opened after it are cut.
func (t *tunnel) Close() error {
	t.once.Do(func() { close(t.done) })
	return t.Listener.Close()
}

// ServeHTTP answers CONNECT, and serves everything else as next does; on
// the API's host (inside a tunnel) only the API.
func (t *tunnel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		t.connect(w, r)
	case isProxiedHost(r.Host) && !strings.HasPrefix(r.URL.Path, apiPath):
		http.Error(w, "not found", http.StatusNotFound)
	default:
		t.next.ServeHTTP(w, r)
	}
}

// connect opens a tunnel to console.neon.tech:443 that the emulator answers
// itself, and refuses any other target.
func (t *tunnel) connect(w http.ResponseWriter, r *http.Request) {
	if !strings.EqualFold(r.Host, proxiedHost+":443") {
		http.Error(w, fmt.Sprintf("neon-emulator: CONNECT %s refused: as a proxy the emulator answers only %s:443, itself",
			r.Host, proxiedHost), http.StatusForbidden)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "neon-emulator: this connection cannot carry a tunnel", http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	_ = conn.SetDeadline(time.Time{})
	if _, err := rw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n"); err != nil || rw.Flush() != nil {
		_ = conn.Close()
		return
	}
	if rw.Reader.Buffered() > 0 { // the client spoke before the answer
		conn = &bufferedConn{Conn: conn, r: rw.Reader}
	}
	select {
	case t.opened <- tls.Server(conn, t.config):
	case <-t.done:
		_ = conn.Close()
	}
}

// isProxiedHost reports whether a request's Host is the API's host.
func isProxiedHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.EqualFold(host, proxiedHost)
}

// bufferedConn is a connection whose first bytes were already read into r.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// proxyURL is the HTTPS_PROXY value that reaches the emulator from this
// host: its base URL without the API path.
func proxyURL(baseURL string) string {
	return strings.TrimSuffix(baseURL, apiPath)
}
