package apiclient

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
)

// Domains of the redirect URI whitelist (trusted domains). The client
// compares them in their canonical form when it reads back a write, and the
// provider validates and normalises configured ones with it.
//
// What the sources say (internal/apispec, auth-api-changes notes):
//   - Neon's docs (auth/guides/configure-domains): include the scheme, no
//     trailing slash; wildcard hosts such as https://*.preview.vercel.app are
//     accepted; any localhost port is pre-allowed (allow_localhost).
//   - the MCP server: entries may be `**` patterns or an app's own scheme
//     (myapp://); the API "may canonicalize" them: lower-case host, trailing
//     slash trimmed (hedged).
//   - the neon CLI matches entries exactly before deleting.
//
// So the canonical form is: the scheme in lower case; for http and https the
// origin — host (wildcard labels allowed) in lower case, the port if any, no
// path, no trailing slash; for an app's own scheme what follows `://` as
// written, without trailing slashes.

// refusedSchemes are schemes that are never a redirect target.
var refusedSchemes = []string{"javascript", "data", "vbscript", "file", "blob", "about", "ftp", "ws", "wss", "mailto"}

// CanonicalOrigin checks that s is a trusted domain and returns it in the
// canonical form the API stores and lists: `https://` or `http://` with a host
// (labels may be wildcards, `*.preview.example.com`) and an optional port,
// nothing else (a trailing "/" is tolerated and dropped); or a native app's
// own scheme (`myapp://callback`), kept as written but for the lower-case
// scheme and without trailing slashes.
func CanonicalOrigin(s string) (string, error) {
	switch {
	case s == "":
		return "", errors.New("must not be empty")
	case strings.ContainsAny(s, " \t\r\n"):
		return "", errors.New("must not contain whitespace")
	case strings.Contains(s, "#"):
		return "", errors.New("must not have a fragment (`#…`)")
	case strings.Contains(s, "?"):
		return "", errors.New("must not have a query (`?…`)")
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		if before, _, found := strings.Cut(s, ":"); found && (strings.EqualFold(before, "https") || strings.EqualFold(before, "http")) {
			return "", errors.New("is not an origin: write `" + strings.ToLower(before) + "://` before the host")
		}
		return "", errors.New("has no scheme: it must start with `https://`, `http://` or an app's own scheme such as `myapp://`")
	}
	if !validScheme(scheme) {
		return "", fmt.Errorf("has an invalid scheme %q", scheme)
	}
	scheme = strings.ToLower(scheme)
	switch {
	case slices.Contains(refusedSchemes, scheme):
		return "", fmt.Errorf("has the scheme %q, which is never a redirect target: use `https://`, `http://` or an app's own scheme", scheme)
	case scheme == "http" || scheme == "https":
		return webOrigin(scheme, rest)
	}
	return scheme + "://" + strings.TrimRight(rest, "/"), nil
}

// validScheme: RFC 3986 `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
func validScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// webOrigin is the canonical http(s) origin of rest, what follows `://`.
func webOrigin(scheme, rest string) (string, error) {
	rest = strings.TrimSuffix(rest, "/")
	switch {
	case strings.Contains(rest, "@"):
		return "", errors.New("must not contain user information (`user@`)")
	case strings.Contains(rest, "/"):
		_, p, _ := strings.Cut(rest, "/")
		return "", fmt.Errorf("must not have a path (found %q)", "/"+p)
	case rest == "":
		return "", errors.New("has no host")
	}
	var host, port string
	if strings.HasPrefix(rest, "[") {
		end := strings.Index(rest, "]")
		if end < 0 || net.ParseIP(rest[1:end]) == nil {
			return "", errors.New("has an invalid host")
		}
		host, port = rest[:end+1], strings.TrimPrefix(rest[end+1:], ":")
		if rest[end+1:] != "" && !strings.HasPrefix(rest[end+1:], ":") {
			return "", errors.New("has an invalid host")
		}
		if strings.HasSuffix(rest, ":") {
			return "", errors.New("has an empty port")
		}
	} else {
		var hasPort bool
		host, port, hasPort = strings.Cut(rest, ":")
		if hasPort && port == "" {
			return "", errors.New("has an empty port")
		}
		if err := validHostname(host); err != nil {
			return "", err
		}
	}
	out := scheme + "://" + strings.ToLower(host)
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || !isDigit(port[0]) {
			return "", errors.New("has a port outside 1–65535")
		}
		out += ":" + port
	}
	return out, nil
}

// validHostname accepts dot-separated labels of letters, digits, hyphens and
// wildcards (`*`, `**`, `pr-*`).
func validHostname(h string) error {
	if h == "" {
		return errors.New("has no host")
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" {
			return errors.New("has an invalid host (an empty label)")
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !isLetter(c) && !isDigit(c) && c != '-' && c != '*' {
				return fmt.Errorf("has an invalid host (the character %q)", c)
			}
		}
	}
	return nil
}

// SameOrigin reports whether two domains are the same once canonicalised.
// Values that are not domains compare as written.
func SameOrigin(a, b string) bool {
	ca, errA := CanonicalOrigin(a)
	cb, errB := CanonicalOrigin(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return ca == cb
}
