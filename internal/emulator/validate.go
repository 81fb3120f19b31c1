package emulator

import (
	"errors"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

func runeCount(s string) int { return utf8.RuneCountInString(s) }

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

// canonicalOrigin checks that s is an origin — scheme http or https, a host,
// an optional port, nothing else (a lone trailing "/" is tolerated) — and
// returns it with scheme and host in lower case and no trailing slash.
func canonicalOrigin(s string) (string, error) {
	if s == "" {
		return "", errors.New("is required")
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return "", errors.New("must not contain whitespace")
	}
	if strings.Contains(s, "#") {
		return "", errors.New("must not have a fragment")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", errors.New("must be an origin such as https://example.com")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "http" && scheme != "https":
		return "", errors.New("must start with http:// or https://")
	case u.Opaque != "":
		return "", errors.New("must be an origin such as https://example.com")
	case u.User != nil:
		return "", errors.New("must not contain user information")
	case u.RawQuery != "" || u.ForceQuery:
		return "", errors.New("must not have a query")
	case u.Path != "" && u.Path != "/":
		return "", errors.New("must not have a path")
	case u.Hostname() == "":
		return "", errors.New("must have a host")
	}
	host := strings.ToLower(u.Host)
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", errors.New("must have a port from 1 to 65535")
		}
	} else if strings.HasSuffix(host, ":") {
		return "", errors.New("must have a port from 1 to 65535")
	}
	if h := u.Hostname(); strings.Contains(h, ":") && net.ParseIP(h) == nil {
		return "", errors.New("must have a valid host")
	}
	return scheme + "://" + host, nil
}
