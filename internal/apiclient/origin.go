package apiclient

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Domains of the redirect URI whitelist are origins. The API stores and lists
// them in canonical form, so the client compares them in that form when it
// reads back a write.

// CanonicalOrigin checks that s is an origin — scheme http or https, a host,
// an optional port, nothing else (a lone trailing "/" is tolerated) — and
// returns it with scheme and host in lower case and without trailing slash,
// the form the API stores and lists.
func CanonicalOrigin(s string) (string, error) {
	if s == "" {
		return "", errors.New("must not be empty")
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return "", errors.New("must not contain whitespace")
	}
	if strings.Contains(s, "#") {
		return "", errors.New("must not have a fragment (`#…`)")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", errors.New("is not a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "":
		return "", errors.New("has no scheme: it must start with `https://` or `http://`")
	case scheme != "http" && scheme != "https":
		return "", fmt.Errorf("has the scheme %q: only `https://` and `http://` are allowed", u.Scheme)
	case u.Opaque != "":
		return "", errors.New("is not an origin: write `" + scheme + "://` before the host")
	case u.User != nil:
		return "", errors.New("must not contain user information (`user@`)")
	case u.RawQuery != "" || u.ForceQuery:
		return "", errors.New("must not have a query (`?…`)")
	case u.Path != "" && u.Path != "/":
		return "", fmt.Errorf("must not have a path (found %q)", u.Path)
	case u.Hostname() == "":
		return "", errors.New("has no host")
	}
	host := strings.ToLower(u.Host)
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", errors.New("has a port outside 1–65535")
		}
	} else if strings.HasSuffix(host, ":") {
		return "", errors.New("has an empty port")
	}
	if h := u.Hostname(); strings.Contains(h, ":") && net.ParseIP(h) == nil {
		return "", errors.New("has an invalid host")
	}
	return scheme + "://" + host, nil
}

// SameOrigin reports whether two domains are the same origin once
// canonicalised. Values that are not origins compare as written.
func SameOrigin(a, b string) bool {
	ca, errA := CanonicalOrigin(a)
	cb, errB := CanonicalOrigin(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return ca == cb
}
