package main

import (
	"fmt"
	"io"
	"log"
	"strings"
	"sync"
)

// What the emulator says when a client does not trust its certificate. Go's
// HTTP server reports such a client only as "http: TLS handshake error from
// …: remote error: tls: bad certificate", which names neither the cause nor
// the fix; the first such line is followed, once, by which CA file the
// client must trust.

// handshakeLog is the HTTP server's error log, on stderr. caFile is the CA
// certificate clients must trust ("" when the certificate was given with
// -tls-cert), baseURL where the emulator serves.
func handshakeLog(stderr io.Writer, caFile, baseURL string) *log.Logger {
	return log.New(&handshakeHint{w: stderr, hint: untrustedHint(caFile, baseURL)}, "", log.LstdFlags)
}

// untrustedHint tells a client that refused the certificate what to trust.
func untrustedHint(caFile, baseURL string) string {
	if caFile == "" {
		return "neon-emulator: a client refused this emulator's certificate (given with -tls-cert): it must trust the CA " +
			"that signed it, through SSL_CERT_FILE or its own CA option."
	}
	return fmt.Sprintf("neon-emulator: a client refused this emulator's certificate: it does not trust the emulator's CA, "+
		"which is in %[1]s. Give it that file: SSL_CERT_FILE=%[1]s (Go programs such as Terraform providers, and many "+
		"others), or its own CA option such as curl --cacert %[1]s or neon-emulator call/health -ca %[1]s. On another "+
		"host, fetch it first: neon-emulator ca -o ca.pem %[2]s", caFile, strings.TrimSuffix(baseURL, "api/v2/"))
}

// handshakeHint passes the log through and adds its hint after the first
// line that reports a refused certificate.
type handshakeHint struct {
	w    io.Writer
	hint string
	once sync.Once
}

func (h *handshakeHint) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	if refusedCertificate(string(p)) {
		h.once.Do(func() { _, _ = fmt.Fprintln(h.w, h.hint) })
	}
	return n, err
}

// refusedCertificate reports whether a server log line is a handshake that
// failed because the client did not trust the certificate (the alerts Go,
// OpenSSL and browsers send for it).
func refusedCertificate(line string) bool {
	if !strings.Contains(line, "TLS handshake error") {
		return false
	}
	for _, alert := range []string{"bad certificate", "unknown certificate authority", "certificate unknown", "unknown ca"} {
		if strings.Contains(line, alert) {
			return true
		}
	}
	return false
}
