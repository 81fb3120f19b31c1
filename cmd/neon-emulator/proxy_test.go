package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// proxiedClient is a client configured as http.ProxyFromEnvironment would
// configure it from HTTPS_PROXY=proxy (and NO_PROXY unset), trusting the CA
// in caFile as SSL_CERT_FILE makes it trusted.
func proxiedClient(t *testing.T, proxy, caFile string) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatalf("the CA file of SSL_CERT_FILE: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s holds no certificate", caFile)
	}
	return proxiedClientTrusting(t, proxy, pool)
}

// proxiedClientTrusting is proxiedClient trusting the CAs of pool.
func proxiedClientTrusting(t *testing.T, proxy string, pool *x509.CertPool) *http.Client {
	t.Helper()
	fromEnv := (&httpproxy.Config{HTTPSProxy: proxy}).ProxyFunc()
	tr := &http.Transport{
		Proxy:             func(r *http.Request) (*url.URL, error) { return fromEnv(r.URL) },
		TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2: true,
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// getErr is the error of a GET that must fail.
func getErr(t *testing.T, c *http.Client, rawURL string) error {
	t.Helper()
	resp, err := c.Get(rawURL)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("GET %s answered %s", rawURL, resp.Status)
	}
	return err
}

// get sends a request with the key and decodes a JSON answer.
func get(t *testing.T, c *http.Client, method, rawURL, key string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = strings.NewReader(string(data))
	}
	req, err := http.NewRequestWithContext(t.Context(), method, rawURL, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, rawURL, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// A client with no base-URL setting reaches the emulator unchanged through
// HTTPS_PROXY and SSL_CERT_FILE: https://console.neon.tech/api/v2 is the
// emulator, while 127.0.0.1 is reached directly, as Go never proxies it.
func TestProxyServesTheAPIAsConsoleNeonTech(t *testing.T) {
	const key = "proxy-test-key"
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready.env")
	in := start(t, 3, "-proxy", "-bootstrap-key", key, "-tls-ca-file", filepath.Join(dir, "ca.pem"), "-ready-file", ready)
	proxy := readyValue(t, in.lines, "HTTPS_PROXY")
	if want := strings.TrimSuffix(in.baseURL, "/api/v2/"); proxy != want {
		t.Errorf("HTTPS_PROXY = %q, want %q (the listener itself)", proxy, want)
	}
	caFile := readyValue(t, in.lines, "SSL_CERT_FILE")
	if content, _ := os.ReadFile(ready); !strings.Contains(string(content), "HTTPS_PROXY="+proxy+"\n") {
		t.Errorf("ready file = %q, want the HTTPS_PROXY line", content)
	}
	c := proxiedClient(t, proxy, caFile)

	status, body := get(t, c, "GET", "https://console.neon.tech/api/v2/projects", key, nil)
	if projects, _ := body["projects"].([]any); status != http.StatusOK || len(projects) != 1 {
		t.Fatalf("GET https://console.neon.tech/api/v2/projects = %d %v", status, body)
	}
	status, body = get(t, c, "POST", "https://console.neon.tech/api/v2/projects", key,
		map[string]any{"project": map[string]any{"name": "through the proxy", "history_retention_seconds": 0}})
	if status != http.StatusCreated {
		t.Fatalf("POST through the proxy = %d %v", status, body)
	}
	id, _ := body["project"].(map[string]any)["id"].(string)
	// The same emulator, asked directly: loopback is never proxied.
	status, body = get(t, c, "GET", in.baseURL+"projects/"+id, key, nil)
	if p, _ := body["project"].(map[string]any); status != http.StatusOK || p["history_retention_seconds"] != float64(0) {
		t.Errorf("GET %sprojects/%s directly = %d %v", in.baseURL, id, status, body)
	}
	if status, _ := get(t, c, "GET", "https://console.neon.tech/api/v2/projects", "wrong-key", nil); status != http.StatusUnauthorized {
		t.Errorf("a wrong key through the proxy = %d, want 401", status)
	}
	// The control surface is the emulator's, not the API's.
	if status, _ := get(t, c, "GET", "https://console.neon.tech/_emulator/state", key, nil); status != http.StatusNotFound {
		t.Errorf("GET https://console.neon.tech/_emulator/state = %d, want 404", status)
	}
	// Without the CA, the certificate for console.neon.tech is refused.
	err := getErr(t, proxiedClientTrusting(t, proxy, x509.NewCertPool()), "https://console.neon.tech/api/v2/projects")
	if ue := (x509.UnknownAuthorityError{}); !errors.As(err, &ue) {
		t.Errorf("a client without the CA: %v, want an unknown authority", err)
	}
}

// The emulator is no open proxy: CONNECT to any target but
// console.neon.tech:443 is refused with 403, and nothing is dialled.
func TestProxyRefusesEveryOtherTarget(t *testing.T) {
	in := start(t, 3, "-proxy", "-bootstrap-key", "k", "-tls-ca-file", filepath.Join(t.TempDir(), "ca.pem"))
	proxy := readyValue(t, in.lines, "HTTPS_PROXY")
	bystander, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer bystander.Close()
	dialled := make(chan struct{}, 1)
	go func() {
		if conn, err := bystander.Accept(); err == nil {
			dialled <- struct{}{}
			_ = conn.Close()
		}
	}()
	for _, target := range []string{"example.com:443", "console.neon.tech:80", "api.neon.tech:443", "console.neon.tech.example.com:443",
		bystander.Addr().String(), strings.TrimPrefix(proxy, "http://")} {
		if status := connect(t, proxy, target); status != http.StatusForbidden {
			t.Errorf("CONNECT %s = %d, want 403", target, status)
		}
	}
	select {
	case <-dialled:
		t.Error("a refused CONNECT reached the target")
	case <-time.After(200 * time.Millisecond):
	}
	c := proxiedClient(t, proxy, readyValue(t, in.lines, "SSL_CERT_FILE"))
	if err := getErr(t, c, "https://example.com/"); !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("GET https://example.com/ through the emulator: %v, want the proxy's refusal", err)
	}
}

// connect sends CONNECT target to the proxy and returns the status.
func connect(t *testing.T, proxy, target string) int {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(proxy, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// With -tls the proxy itself speaks HTTPS (HTTPS_PROXY=https://…), trusted
// through the same CA as the tunnel.
func TestProxyOverTLS(t *testing.T) {
	in := start(t, 3, "-proxy", "-tls", "-bootstrap-key", "k", "-tls-ca-file", filepath.Join(t.TempDir(), "ca.pem"))
	proxy := readyValue(t, in.lines, "HTTPS_PROXY")
	if !strings.HasPrefix(proxy, "https://127.0.0.1:") {
		t.Fatalf("HTTPS_PROXY = %q, want https://127.0.0.1:PORT", proxy)
	}
	c := proxiedClient(t, proxy, readyValue(t, in.lines, "SSL_CERT_FILE"))
	if status, body := get(t, c, "GET", "https://console.neon.tech/api/v2/projects", "k", nil); status != http.StatusOK {
		t.Errorf("through an HTTPS proxy: %d %v", status, body)
	}
	if status, _ := get(t, c, "GET", in.baseURL+"projects", "k", nil); status != http.StatusOK {
		t.Errorf("directly over TLS: %d", status)
	}
}

func TestProxyFlagAndItsLimits(t *testing.T) {
	var stderr strings.Builder
	if err := run(t.Context(), []string{"-proxy", "-tls-cert", "c.pem", "-tls-key", "k.pem"}, io.Discard, &stderr); err == nil ||
		!strings.Contains(err.Error(), "-proxy signs a certificate for console.neon.tech") {
		t.Errorf("-proxy with -tls-cert: %v", err)
	}
	ready := filepath.Join(t.TempDir(), "ready.env")
	in := start(t, 1, "-bootstrap-key", "k", "-ready-file", ready)
	if content, _ := os.ReadFile(ready); strings.Contains(string(content), "HTTPS_PROXY") || strings.Contains(string(content), "SSL_CERT_FILE") {
		t.Errorf("without -proxy the ready lines are %q", content)
	}
	if status := connect(t, strings.TrimSuffix(in.baseURL, "/api/v2/"), "console.neon.tech:443"); status != http.StatusNotFound {
		t.Errorf("without -proxy CONNECT console.neon.tech:443 = %d, want 404", status)
	}
	stderr.Reset()
	_ = run(t.Context(), []string{"-help"}, io.Discard, &stderr)
	for _, want := range []string{"-proxy", "HTTPS_PROXY=http://127.0.0.1:PORT", "CONNECT to any other host is refused"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("-help does not mention %q", want)
		}
	}
}
