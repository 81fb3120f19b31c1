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
	"strconv"
	"syscall"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// health checks a running emulator, for container health checks (the image
// has no shell and no curl):
//
//	neon-emulator health [-ca FILE] [-timeout D] [URL]
//
// URL is the emulator's address or any URL on it (its base URL will do).
// Without URL it checks the emulator that the environment describes, read as
// the emulator reads it: the port of NEON_EMULATOR_LISTEN on this host,
// https when NEON_EMULATOR_TLS (or NEON_EMULATOR_TLS_CERT) is set, and then
// the generated certificate's CA from NEON_EMULATOR_TLS_CA_FILE. The image's
// HEALTHCHECK runs it so, and follows whatever the container was started
// with. It asks GET /_emulator/healthz, which needs no control token, and
// fails unless the answer is 200. HTTPS is verified against the machine's
// roots, $SSL_CERT_FILE, and -ca.
func health(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("neon-emulator health", flag.ContinueOnError)
	fs.SetOutput(stderr)
	caFile := fs.String("ca", "", "also trust this CA certificate (PEM), such as the emulator's -tls-ca-file\n"+
		"(without URL: default $"+envName("tls-ca-file")+" when the emulator generates its certificate)")
	timeout := fs.Duration("timeout", 5*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var target healthTarget
	var err error
	switch fs.NArg() {
	case 0:
		target, err = healthTargetFromEnv()
	case 1:
		target, err = healthTargetOf(fs.Arg(0))
	default:
		err = errors.New("usage: neon-emulator health [-ca FILE] [URL]")
	}
	if err != nil {
		return err
	}
	if *caFile != "" {
		target.caFile, target.caFrom = *caFile, "-ca"
	}
	return probeHealth(ctx, target, *timeout, stdout)
}

// healthPath answers 200 while the emulator serves; it needs no token.
const healthPath = "/_emulator/healthz"

// healthTarget is what `health` asks, and how it trusts the answer.
type healthTarget struct {
	probe url.URL
	// caFile is a CA certificate to trust besides the system's ("" none),
	// caFrom where it was named (-ca, NEON_EMULATOR_TLS_CA_FILE, …).
	caFile, caFrom string
	// serverName is the name to verify the certificate for ("" the host).
	serverName string
	// from names the environment the target was read from ("" a URL).
	from string
}

// healthTargetOf is the health probe of an emulator URL.
func healthTargetOf(raw string) (healthTarget, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return healthTarget{}, fmt.Errorf("%q is not an http(s) URL such as https://127.0.0.1:8080/", raw)
	}
	return healthTarget{probe: url.URL{Scheme: u.Scheme, Host: u.Host, Path: healthPath}}, nil
}

// healthTargetFromEnv is the health probe of the emulator the environment
// configures (flagsFromEnv): a wildcard listen address is reached on
// 127.0.0.1, as the emulator's own NEON_API_BASE_URL line says.
func healthTargetFromEnv() (healthTarget, error) {
	listenVar := envName("listen")
	listen := os.Getenv(listenVar)
	if listen == "" {
		return healthTarget{}, fmt.Errorf("without a URL, health checks the emulator that %s describes, and it is not set: "+
			"give the emulator's URL, such as neon-emulator health http://127.0.0.1:8080/", listenVar)
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil || port == "" || port == "0" {
		return healthTarget{}, fmt.Errorf("%s=%s names no port to check (port 0 is any free port): give the emulator's URL instead",
			listenVar, listen)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	useTLS, err := envBool(envName("tls"))
	if err != nil {
		return healthTarget{}, err
	}
	t := healthTarget{from: fmt.Sprintf("%s=%s, %s=%t", listenVar, listen, envName("tls"), useTLS)}
	certFile := os.Getenv(envName("tls-cert"))
	scheme := "http"
	if useTLS || certFile != "" || os.Getenv(envName("tls-key")) != "" {
		scheme = "https"
		switch names := splitNames(os.Getenv(envName("tls-name"))); {
		case certFile == "": // a generated certificate, signed by the CA the emulator wrote
			t.caFile, t.caFrom = os.Getenv(envName("tls-ca-file")), envName("tls-ca-file")
			if t.caFile == "" {
				p, _ := strconv.Atoi(port)
				t.caFile, t.caFrom = defaultCAFile(p), "the default of -tls-ca-file"
			}
		case len(names) > 0: // a certificate of the user's, made for the names clients use
			t.serverName = names[0]
		}
	}
	t.probe = url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: healthPath}
	return t, nil
}

// envBool reads a boolean flag's environment variable as the flag package
// would; unset or empty is false.
func envBool(name string) (bool, error) {
	v := os.Getenv(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q is not a boolean: use true or false", name, v)
	}
	return b, nil
}

// probeHealth asks the target's health endpoint once.
func probeHealth(ctx context.Context, t healthTarget, timeout time.Duration, stdout io.Writer) error {
	client, err := healthClient(t)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	probe := t.probe.String()
	where := probe
	if t.from != "" {
		where += " (from " + t.from + ")"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, probe, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("unhealthy: GET %s: %w%s", where, err, healthHint(t, err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if t.probe.Scheme == "http" && speaksTLS(ctx, t.probe.Host) {
			hint = fmt.Sprintf(": the emulator at %s serves HTTPS (it was started with -tls): use https://%s/", t.probe.Host, t.probe.Host)
		}
		return fmt.Errorf("unhealthy: GET %s answered HTTP %d%s", where, resp.StatusCode, hint)
	}
	_, err = fmt.Fprintf(stdout, "healthy: %s\n", probe)
	return err
}

// healthClient is an HTTP client trusting the system's roots and t's CA.
func healthClient(t healthTarget) (*http.Client, error) {
	dt, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return nil, fmt.Errorf("http.DefaultTransport is a %T", http.DefaultTransport)
	}
	tr := dt.Clone()
	tr.TLSClientConfig = &tls.Config{ServerName: t.serverName, MinVersion: tls.VersionTLS12}
	if t.caFile != "" {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		data, err := os.ReadFile(t.caFile)
		if err != nil {
			return nil, fmt.Errorf("unhealthy: reading the emulator's CA certificate %s (%s): %w; the emulator writes it once it "+
				"serves TLS with a generated certificate", t.caFile, t.caFrom, err)
		}
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("%s (%s) holds no PEM certificate", t.caFile, t.caFrom)
		}
		tr.TLSClientConfig.RootCAs = pool
	}
	return &http.Client{Transport: tr}, nil
}

// healthHint is the fix for a failed health request, or "".
func healthHint(t healthTarget, err error) string {
	host := t.probe.Host
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	switch {
	case errors.As(err, &unknownAuthority):
		return fmt.Sprintf("; trust the emulator's CA: give -ca FILE with its CA certificate (the emulator's -tls-ca-file, "+
			"the file of its SSL_CERT_FILE= line) or set SSL_CERT_FILE=FILE; on another host, "+
			"neon-emulator ca -o ca.pem https://%s/ fetches it", host)
	case errors.As(err, &hostname):
		return fmt.Sprintf("; the certificate is not made for %s: use a URL with one of its names (-tls-name adds names)",
			hostname.Host)
	case errors.Is(err, http.ErrSchemeMismatch):
		return fmt.Sprintf("; the emulator at %s serves plain HTTP (it was started without -tls): use http://%s/", host, host)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("; nothing listens at %s: start the emulator, or check the port", host)
	}
	return ""
}

// speaksTLS reports whether host completes a TLS handshake, to explain the
// 400 an HTTPS listener answers to plain HTTP. Nothing is sent after the
// handshake, so the certificate needs no trust here.
func speaksTLS(ctx context.Context, host string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	d := &tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}} //nolint:gosec // only tells whether the listener speaks TLS; nothing is sent
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
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
		var plain tls.RecordHeaderError
		if errors.As(err, &plain) {
			return fmt.Errorf("connecting to %s: %w: it serves plain HTTP (the emulator was started without -tls), "+
				"so there is no CA to fetch: clients use http://%s/, on a loopback host only", host, err, host)
		}
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
	return emulator.WriteFileAtomic(*out, data)
}
