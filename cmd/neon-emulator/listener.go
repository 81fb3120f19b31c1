package main

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"strconv"
	"strings"
)

// This file holds how clients reach the listener and the ready lines that tell them.

// reach tells how clients reach a listener.
type reach struct {
	// baseURL works from this host: for a wildcard listen (0.0.0.0, [::],
	// :8080) it names 127.0.0.1.
	baseURL string
	// loopbackOnly: only this host can connect.
	loopbackOnly bool
	// wildcard: the listener takes connections on every address.
	wildcard bool
	// remoteBaseURLs are this host's non-loopback addresses with the port,
	// for other hosts (wildcard listens only).
	remoteBaseURLs []string
}

const apiPath = "/api/v2/"

// reachOf tells how clients reach addr with scheme ("http" or "https");
// names (-tls-name) come first among the URLs for other hosts.
func reachOf(addr net.Addr, scheme string, names []string) reach {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return reach{baseURL: scheme + "://" + addr.String() + apiPath}
	}
	port := strconv.Itoa(tcp.Port)
	url := func(host string) string { return scheme + "://" + net.JoinHostPort(host, port) + apiPath }
	var r reach
	if tcp.IP.IsUnspecified() {
		r = reach{baseURL: url("127.0.0.1"), wildcard: true}
	} else {
		r = reach{baseURL: url(tcp.IP.String()), loopbackOnly: tcp.IP.IsLoopback()}
	}
	if r.loopbackOnly {
		return r
	}
	for _, n := range names {
		r.remoteBaseURLs = append(r.remoteBaseURLs, url(n))
	}
	if !r.wildcard {
		return r
	}
	ipv4Only := tcp.IP.To4() != nil
	for _, ip := range hostAddresses() {
		if ip.IsLoopback() || ip.IsLinkLocalUnicast() || (ipv4Only && ip.To4() == nil) {
			continue
		}
		r.remoteBaseURLs = append(r.remoteBaseURLs, url(ip.String()))
	}
	return r
}

// hostAddresses lists the IP addresses of this host's interfaces.
func hostAddresses() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			ips = append(ips, n.IP)
		}
	}
	return ips
}

// newControlToken returns a random token for the control surface.
func newControlToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "ctl_" + hex.EncodeToString(b)
}

// readyLines are the KEY=value lines printed (and written to the ready
// file) once the emulator serves.
func readyLines(r reach, caFile, httpsProxy, generatedKey, generatedToken string) string {
	var b strings.Builder
	b.WriteString("NEON_API_BASE_URL=" + r.baseURL + "\n")
	if caFile != "" {
		b.WriteString("SSL_CERT_FILE=" + caFile + "\n")
	}
	if httpsProxy != "" {
		b.WriteString("HTTPS_PROXY=" + httpsProxy + "\n")
	}
	if generatedKey != "" {
		b.WriteString("NEON_API_KEY=" + generatedKey + "\n")
	}
	if generatedToken != "" {
		b.WriteString("NEON_EMULATOR_CONTROL_TOKEN=" + generatedToken + "\n")
	}
	if r.wildcard || len(r.remoteBaseURLs) > 0 {
		// From other hosts: one of these, comma-separated (empty when this
		// host has no other address).
		b.WriteString("NEON_EMULATOR_REMOTE_BASE_URLS=" + strings.Join(r.remoteBaseURLs, ",") + "\n")
	}
	return b.String()
}
