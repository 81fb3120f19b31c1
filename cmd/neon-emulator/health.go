package main

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// health checks a running emulator, for container health checks (the image
// has no shell and no curl):
//
//	neon-emulator health [-ca FILE] URL
//
// URL is the emulator's address or any URL on it (its base URL will do). It
// asks GET /_emulator/healthz, which needs no control token, and fails
// unless the answer is 200. HTTPS is verified against the machine's roots,
// $SSL_CERT_FILE, and -ca.
func health(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("neon-emulator health", flag.ContinueOnError)
	fs.SetOutput(stderr)
	caFile := fs.String("ca", "", "also trust this CA certificate (PEM), such as the emulator's -tls-ca-file")
	timeout := fs.Duration("timeout", 5*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: neon-emulator health [-ca FILE] URL")
	}
	u, err := url.Parse(fs.Arg(0))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("%q is not an http(s) URL such as https://127.0.0.1:8080/", fs.Arg(0))
	}
	dt, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return fmt.Errorf("http.DefaultTransport is a %T", http.DefaultTransport)
	}
	tr := dt.Clone()
	if *caFile != "" {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			return err
		}
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("-ca %s holds no PEM certificate", *caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	probe := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/_emulator/healthz"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, probe.String(), nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return fmt.Errorf("unhealthy: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("unhealthy: GET %s answered HTTP %d", probe.String(), resp.StatusCode)
	}
	_, err = fmt.Fprintf(stdout, "healthy: %s\n", probe.String())
	return err
}

// fetchCA writes the CA certificate of an emulator started with -tls (its
// generated one) to a file, for clients on other hosts, such as a CI job
// whose emulator runs as a service container:
//
//	neon-emulator ca [-o FILE] https://neon-emulator:8080/
//
// The emulator sends its CA with its certificate; this takes it from the TLS
// handshake, checks that it signed the server's certificate for the URL's
// host, and writes it (PEM). That is trust on first use: do it only where
// the network between the two is your own (a CI job and its services), and
// compare the printed fingerprint with the emulator's when in doubt.
func fetchCA(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("neon-emulator ca", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the CA certificate to this file (default stdout); then export SSL_CERT_FILE=<file>")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: neon-emulator ca [-o FILE] https://HOST:PORT/")
	}
	u, err := url.Parse(fs.Arg(0))
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%q is not an https:// URL such as https://neon-emulator:8080/", fs.Arg(0))
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d := &tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}} //nolint:gosec // verified below against the CA it sends
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", host, err)
	}
	tc, ok := conn.(*tls.Conn)
	if !ok {
		_ = conn.Close()
		return fmt.Errorf("connecting to %s: not a TLS connection (%T)", host, conn)
	}
	chain := tc.ConnectionState().PeerCertificates
	_ = conn.Close()
	if len(chain) < 2 || !chain[len(chain)-1].IsCA {
		return fmt.Errorf("%s sent no CA certificate with its own: it is not a neon-emulator with a generated certificate "+
			"(with -tls-cert, trust the CA that signed that certificate instead)", host)
	}
	ca := chain[len(chain)-1]
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := chain[0].Verify(x509.VerifyOptions{Roots: roots, DNSName: u.Hostname()}); err != nil {
		return fmt.Errorf("the certificate of %s does not verify with the CA it sent: %w", host, err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})
	sum := sha256.Sum256(ca.Raw)
	fmt.Fprintf(stderr, "CA %q, SHA-256 %s\n", ca.Subject.CommonName, hex.EncodeToString(sum[:]))
	if *out == "" {
		_, err = stdout.Write(data)
		return err
	}
	return writeFileAtomic(*out, data)
}
