package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// clientTrusting is an API client that trusts only the CA in caFile.
func clientTrusting(t *testing.T, baseURL, key, caFile string) *apiclient.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if caFile != "" {
		data, err := os.ReadFile(caFile)
		if err != nil {
			t.Fatal(err)
		}
		if !pool.AppendCertsFromPEM(data) {
			t.Fatalf("%s holds no certificate", caFile)
		}
	}
	dt, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		t.Fatalf("http.DefaultTransport is a %T", http.DefaultTransport)
	}
	tr := dt.Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	c, err := apiclient.New(apiclient.Options{BaseURL: baseURL, APIKey: key, HTTPClient: &http.Client{Transport: tr},
		RateLimit: apiclient.RateLimit{RequestsPerMinute: -1, RouteRequestsPerSecond: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTLSServesHTTPSWithACAFileNamedInTheReadyLines(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready.env")
	caFile := filepath.Join(dir, "ca.pem")
	const key = "tlskeytlskeytlskeytlskey"
	in := start(t, 2, "-tls", "-tls-name", "neon-emulator.test", "-tls-ca-file", caFile, "-bootstrap-key", key, "-ready-file", ready)
	if !strings.HasPrefix(in.baseURL, "https://127.0.0.1:") {
		t.Fatalf("NEON_API_BASE_URL=%s; want https", in.baseURL)
	}
	if got := readyValue(t, in.lines, "SSL_CERT_FILE"); got != caFile {
		t.Errorf("SSL_CERT_FILE=%s; want %s", got, caFile)
	}
	content, err := os.ReadFile(ready)
	if err != nil || !strings.Contains(string(content), "SSL_CERT_FILE="+caFile+"\n") || !strings.Contains(string(content), "NEON_API_BASE_URL=https://") {
		t.Errorf("ready file = %q, %v; want the https base URL and SSL_CERT_FILE", content, err)
	}

	// Trusting the CA file: the printed URL and localhost both work.
	port := strings.TrimSuffix(strings.TrimPrefix(in.baseURL, "https://127.0.0.1:"), "/api/v2/")
	for _, base := range []string{in.baseURL, "https://localhost:" + port + "/api/v2/"} {
		if _, err := clientTrusting(t, base, key, caFile).ListProjects(context.Background(), apiclient.ListProjectsOptions{}); err != nil {
			t.Errorf("%s with the CA: %v", base, err)
		}
	}
	// Not trusting it: a certificate error that names SSL_CERT_FILE.
	_, err = clientTrusting(t, in.baseURL, key, "").ListProjects(context.Background(), apiclient.ListProjectsOptions{})
	if !errors.Is(err, apiclient.ErrCertificate) || !strings.Contains(err.Error(), "SSL_CERT_FILE") {
		t.Errorf("without the CA: %v; want a certificate error naming SSL_CERT_FILE", err)
	}

	// The built-in clients: health with the CA, and ca fetching the same CA.
	var out bytes.Buffer
	if err := health(context.Background(), []string{"-ca", caFile, in.baseURL}, &out, io.Discard); err != nil {
		t.Errorf("health -ca: %v", err)
	}
	if err := health(context.Background(), []string{in.baseURL}, &out, io.Discard); err == nil {
		t.Error("health without the CA succeeded; want a certificate error")
	}
	fetched := filepath.Join(dir, "fetched.pem")
	if err := fetchCA(context.Background(), []string{"-o", fetched, in.baseURL}, &out, io.Discard); err != nil {
		t.Fatalf("ca: %v", err)
	}
	want, _ := os.ReadFile(caFile)
	if got, _ := os.ReadFile(fetched); !bytes.Equal(got, want) {
		t.Errorf("ca wrote %q; want the emulator's CA file", got)
	}

	if err := in.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(caFile); !os.IsNotExist(err) {
		t.Errorf("CA file left after shutdown: %v", err)
	}
}

func TestTLSNamesLeadTheRemoteURLsOfAWildcardListener(t *testing.T) {
	t.Setenv(controlTokenEnv, "ctl-token-for-the-test")
	in := start(t, 4, "-listen", "0.0.0.0:0", "-tls", "-tls-name", "neon-emulator,emulator.ci.test", "-tls-ca-file", filepath.Join(t.TempDir(), "ca.pem"))
	remote := readyValue(t, in.lines, "NEON_EMULATOR_REMOTE_BASE_URLS")
	urls := strings.Split(remote, ",")
	if len(urls) < 2 || !strings.HasPrefix(urls[0], "https://neon-emulator:") || !strings.HasPrefix(urls[1], "https://emulator.ci.test:") {
		t.Errorf("NEON_EMULATOR_REMOTE_BASE_URLS=%s; want the -tls-name URLs first, https", remote)
	}
}

func TestTLSWithAGivenCertificate(t *testing.T) {
	dir := t.TempDir()
	caPEM, cert, err := generateCertificate([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, caFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "ca.pem")
	var chain []byte
	for _, der := range cert.Certificate {
		chain = append(chain, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	for f, data := range map[string][]byte{certFile: chain, keyFile: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), caFile: caPEM} {
		if err := os.WriteFile(f, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const key = "givencertkeygivencertkey"
	in := start(t, 1, "-tls-cert", certFile, "-tls-key", keyFile, "-bootstrap-key", key)
	if len(in.lines) > 0 && strings.Contains(strings.Join(in.lines, "\n"), "SSL_CERT_FILE") {
		t.Errorf("ready lines %q name a CA file; with -tls-cert the CA is the user's", in.lines)
	}
	if _, err := clientTrusting(t, in.baseURL, key, caFile).ListProjects(context.Background(), apiclient.ListProjectsOptions{}); err != nil {
		t.Errorf("with the given certificate's CA: %v", err)
	}
	if err := run(context.Background(), []string{"-tls-cert", certFile}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "give both") {
		t.Errorf("-tls-cert without -tls-key: %v", err)
	}
}

func TestSeedFlagAndItsEnvironmentVariable(t *testing.T) {
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed.hcl")
	seedSrc := `project "app" {
  id = "app-00000001"
}
api_key "ci" {
  token = "seededtokenseededtoken"
  type  = "personal"
}
`
	if err := os.WriteFile(seed, []byte(seedSrc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NEON_EMULATOR_SEED", seed)
	in := start(t, 1, "-bootstrap-key", "bootbootbootbootboot")
	status, body := in.call("seededtokenseededtoken", "GET", "/projects", nil)
	projects, _ := body["projects"].([]any)
	if status != http.StatusOK || len(projects) != 1 || !strings.Contains(body2string(projects[0]), "app-00000001") {
		t.Errorf("GET /projects with the seeded key = %d %v", status, body)
	}

	bad := filepath.Join(dir, "bad.hcl")
	// colour is on line 2, column 3.
	badSrc := `project "a" {
  colour = "red"
}
`
	if err := os.WriteFile(bad, []byte(badSrc), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"-seed", bad}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), bad+":2:3") {
		t.Errorf("a bad seed: %v; want the file and line 2", err)
	}
}

func body2string(v any) string {
	m, _ := v.(map[string]any)
	id, _ := m["id"].(string)
	return id
}

// A client that does not trust the emulator's certificate is told, once, in
// the emulator's log, which CA file to trust and how: Go's own line says
// only "bad certificate".
func TestTLSNamesTheCAFileWhenAClientRefusesTheCertificate(t *testing.T) {
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	const key = "tlskeytlskeytlskeytlskey"
	in := start(t, 2, "-tls", "-tls-ca-file", caFile, "-bootstrap-key", key)
	for range 2 {
		if _, err := clientTrusting(t, in.baseURL, key, "").ListProjects(context.Background(), apiclient.ListProjectsOptions{}); err == nil {
			t.Fatal("a client without the CA got an answer")
		}
	}
	hint := "SSL_CERT_FILE=" + caFile
	var logged string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if logged = in.stderr.String(); strings.Count(logged, "TLS handshake error") >= 2 {
			break
		}
	}
	if n := strings.Count(logged, hint); n != 1 || !strings.Contains(logged, "neon-emulator ca -o ca.pem https://127.0.0.1:") {
		t.Errorf("the log names %q %d times, want once, with how to fetch the CA from another host:\n%s", hint, n, logged)
	}
	if !strings.Contains(logged, "bad certificate") {
		t.Errorf("the log lacks the server's own line:\n%s", logged)
	}
}
