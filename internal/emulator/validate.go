package emulator

import (
	"errors"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Validation of field values (emails, URLs, origins, names) as the platform API
// checks them.

// validEmail accepts a bare address ("a@example.com"), at most 256
// characters, with a dotted domain; no display name, no angle brackets.
func validEmail(s string) bool {
	if len(s) > 256 || strings.ContainsAny(s, " \t\r\n<>") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	return at > 0 && strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
}

// refusedSchemes are never a redirect target.
var refusedSchemes = []string{"javascript", "data", "vbscript", "file", "blob", "about", "ftp", "ws", "wss", "mailto"}

var (
	schemePattern   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)
	hostnamePattern = regexp.MustCompile(`^[A-Za-z0-9*-]+(\.[A-Za-z0-9*-]+)*$`)
)

// canonicalOrigin checks a trusted domain as Neon documents it and returns
// the form stored and listed: scheme in lower case; for http and https an
// origin (host, whose labels may be wildcards, in lower case; an optional
// port; no path, query, fragment or user information; a trailing "/"
// dropped); for a native app's own scheme (myapp://callback) the rest as
// written, without trailing slashes.
func canonicalOrigin(s string) (string, error) {
	switch {
	case s == "":
		return "", errors.New("is required")
	case strings.ContainsAny(s, " \t\r\n"):
		return "", errors.New("must not contain whitespace")
	case strings.ContainsAny(s, "#?"):
		return "", errors.New("must not have a query or fragment")
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !schemePattern.MatchString(scheme) {
		return "", errors.New("must start with a scheme such as https:// or myapp://")
	}
	scheme = strings.ToLower(scheme)
	if slices.Contains(refusedSchemes, scheme) {
		return "", errors.New("must not use the scheme " + scheme)
	}
	if scheme != "http" && scheme != "https" {
		return scheme + "://" + strings.TrimRight(rest, "/"), nil
	}
	u, err := url.Parse("http://" + strings.TrimSuffix(rest, "/"))
	switch {
	case err != nil && !strings.Contains(rest, "*"):
		return "", errors.New("must be an origin such as https://example.com")
	case strings.Contains(rest, "@"):
		return "", errors.New("must not contain user information")
	case strings.Contains(strings.TrimSuffix(rest, "/"), "/"):
		return "", errors.New("must not have a path")
	}
	host, port := strings.TrimSuffix(rest, "/"), ""
	if u != nil && err == nil {
		host, port = u.Hostname(), u.Port()
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
	} else if h, p, found := strings.Cut(host, ":"); found {
		host, port = h, p
	}
	if strings.HasSuffix(strings.TrimSuffix(rest, "/"), ":") {
		return "", errors.New("must have a port from 1 to 65535")
	}
	if host == "" || !strings.HasPrefix(host, "[") && !hostnamePattern.MatchString(host) {
		return "", errors.New("must have a valid host")
	}
	out := scheme + "://" + strings.ToLower(host)
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", errors.New("must have a port from 1 to 65535")
		}
		out += ":" + port
	}
	return out, nil
}
