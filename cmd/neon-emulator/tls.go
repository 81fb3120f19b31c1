package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// TLS for the emulator: with -tls it makes a certificate authority of its
// own for this run, signs a server certificate for every name it can be
// reached by (and the -tls-name ones), and writes the CA certificate to a
// file that clients trust through SSL_CERT_FILE. With -tls-cert/-tls-key it
// serves a certificate you give instead.

// tlsSetup is what serving TLS needs and what the ready lines say about it.
type tlsSetup struct {
	config *tls.Config
	// caFile holds the generated CA certificate ("" with -tls-cert).
	caFile string
	names  []string // the names of the generated certificate
}

// generatedCA is the file of the generated CA certificate ("" when there is
// none: no TLS, or -tls-cert).
func (ts *tlsSetup) generatedCA() string {
	if ts == nil {
		return ""
	}
	return ts.caFile
}

// certValidity is how long a generated certificate is valid: a run of the
// emulator, with room for long CI jobs and clocks that differ a little.
const certValidity = 30 * 24 * time.Hour

// setupTLS loads the given certificate or generates one for names, writing
// the CA certificate to caFile.
func setupTLS(certFile, keyFile, caFile string, names []string) (*tlsSetup, error) {
	if certFile != "" || keyFile != "" {
		if certFile == "" || keyFile == "" {
			return nil, errors.New("-tls-cert and -tls-key go together: give both files (PEM)")
		}
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("loading -tls-cert %s and -tls-key %s: %w", certFile, keyFile, err)
		}
		return &tlsSetup{config: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}, nil
	}
	caPEM, cert, err := generateCertificate(names)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(caFile), 0o755); err != nil {
		return nil, fmt.Errorf("writing the CA certificate: %w", err)
	}
	if err := emulator.WriteFileAtomic(caFile, caPEM); err != nil {
		return nil, fmt.Errorf("writing the CA certificate to %s: %w", caFile, err)
	}
	return &tlsSetup{config: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, caFile: caFile, names: names}, nil
}

// generateCertificate makes a CA and a server certificate it signs for names
// (host names or IP addresses). It returns the CA certificate in PEM.
func generateCertificate(names []string) (caPEM []byte, server tls.Certificate, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, server, err
	}
	now := time.Now().Add(-time.Hour)
	ca := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "neon-emulator CA " + now.UTC().Format(time.RFC3339)},
		NotBefore:             now,
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, server, err
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		return nil, server, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, server, err
	}
	leaf := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "neon-emulator"},
		NotBefore:    now,
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, n)
		}
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, server, err
	}
	server = tls.Certificate{Certificate: [][]byte{leafDER, caDER}, PrivateKey: key}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), server, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

// certificateNames are the names a generated certificate covers: every
// address clients can use for the listener, "localhost" and this host's
// name where they reach it, and the extra names (-tls-name).
func certificateNames(addr *net.TCPAddr, extra []string) []string {
	var names []string
	switch {
	case addr.IP.IsUnspecified():
		names = append(names, "localhost", "127.0.0.1")
		if addr.IP.To4() == nil {
			names = append(names, "::1")
		}
		if h, err := os.Hostname(); err == nil && h != "" {
			names = append(names, h)
		}
		ipv4Only := addr.IP.To4() != nil
		for _, ip := range hostAddresses() {
			if ip.IsLoopback() || ip.IsLinkLocalUnicast() || (ipv4Only && ip.To4() == nil) {
				continue
			}
			names = append(names, ip.String())
		}
	case addr.IP.IsLoopback():
		names = append(names, "localhost", addr.IP.String())
	default:
		names = append(names, addr.IP.String())
	}
	for _, n := range extra {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// splitNames reads a -tls-name value: names separated by commas.
func splitNames(v string) []string {
	var out []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// defaultCAFile is where the CA certificate goes without -tls-ca-file.
func defaultCAFile(port int) string {
	return filepath.Join(os.TempDir(), "neon-emulator-"+strconv.Itoa(port)+"-ca.pem")
}
