package apiclient

import "testing"

// The canonical form of a domain, and what is not an origin.
func TestUnitCanonicalOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://app.example.com":        "https://app.example.com",
		"https://App.Example.COM/":       "https://app.example.com",
		"HTTP://localhost:3000":          "http://localhost:3000",
		"https://[::1]:8443/":            "https://[::1]:8443",
		"app.example.com":                "",
		"ftp://app.example.com":          "",
		"https://app.example.com/login":  "",
		"https://app.example.com?x=1":    "",
		"https://app.example.com/?":      "",
		"https://app.example.com#x":      "",
		"https://u:p@app.example.com":    "",
		"https://app.example.com:0":      "",
		"https://app.example.com:65536":  "",
		"https://":                       "",
		"https:app.example.com":          "",
		"https://app.example.com:":       "",
		"https://app .example.com":       "",
		"":                               "",
		"https://app.example.com:65535/": "https://app.example.com:65535",
		// Wildcard hosts, native apps' own schemes, no trailing slash.
		"https://*.Preview.example.com/":   "https://*.preview.example.com",
		"https://**.example.com":           "https://**.example.com",
		"https://pr-*.example.com:8443":    "https://pr-*.example.com:8443",
		"myapp://callback":                 "myapp://callback",
		"MyApp://Callback/":                "myapp://Callback",
		"com.example.app://oauth/redirect": "com.example.app://oauth/redirect",
		"myapp://":                         "myapp://",
		"javascript://alert(1)":            "",
		"data://text":                      "",
		"file:///etc/passwd":               "",
		"1app://x":                         "",
		"https://app_x.example.com":        "",
		"https://a..example.com":           "",
		"https://[::1":                     "",
		"http://localhost:3000/":           "http://localhost:3000",
		"localhost:3000":                   "",
	} {
		got, err := CanonicalOrigin(in)
		if want == "" {
			if err == nil {
				t.Errorf("CanonicalOrigin(%q) = %q, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("CanonicalOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if !SameOrigin("https://App.example.com/", "https://app.example.com") || SameOrigin("https://a.example.com", "http://a.example.com") {
		t.Error("SameOrigin compares the wrong way")
	}
}
