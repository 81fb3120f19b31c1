package emulator

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestOAuthProviders(t *testing.T) {
	v := newEnv(t, Options{})
	v.integrate()
	base := "/projects/" + v.project + "/auth/oauth_providers"

	t.Run("add without credentials is shared", func(t *testing.T) {
		r := v.do("POST", base, map[string]any{"id": "google"})
		wantStatus(t, r, http.StatusOK)
		wantJSON(t, "body", r.Body, `{"id":"google","type":"shared"}`)
	})
	t.Run("add with credentials is standard", func(t *testing.T) {
		r := v.do("POST", base, map[string]any{"id": "github", "client_id": "cid", "client_secret": "csecret"})
		wantStatus(t, r, http.StatusOK)
		var p OAuthProvider
		r.Decode(&p)
		if p != (OAuthProvider{ID: "github", Type: "standard", ClientID: "cid", ClientSecret: "csecret"}) {
			t.Errorf("provider = %+v", p)
		}
	})
	t.Run("list never shows credentials", func(t *testing.T) {
		r := v.do("GET", base, nil)
		wantStatus(t, r, http.StatusOK)
		wantJSON(t, "body", r.Body, `{"providers":[{"id":"google","type":"shared"},{"id":"github","type":"standard"}]}`)
	})
	t.Run("validation", func(t *testing.T) {
		cases := []struct {
			body   map[string]any
			prefix string
		}{
			{map[string]any{}, "id: is required"},
			{map[string]any{"id": "facebook"}, "id: "},
			{map[string]any{"id": "microsoft", "client_id": "x"}, "client_secret: "},
			{map[string]any{"id": "microsoft", "client_secret": "x"}, "client_id: "},
			{map[string]any{"id": "microsoft", "client_id": "", "client_secret": "x"}, "client_id: "},
		}
		for _, tc := range cases {
			wantError(t, v.do("POST", base, tc.body), http.StatusBadRequest, tc.prefix)
		}
		wantError(t, v.do("POST", base, map[string]any{"id": "google"}), http.StatusConflict, "")
	})
	t.Run("update sets own credentials", func(t *testing.T) {
		r := v.do("PATCH", base+"/google", map[string]any{"client_id": "id2", "client_secret": "s2"})
		wantStatus(t, r, http.StatusOK)
		var p OAuthProvider
		r.Decode(&p)
		if p != (OAuthProvider{ID: "google", Type: "standard", ClientID: "id2", ClientSecret: "s2"}) {
			t.Errorf("provider = %+v", p)
		}
		wantError(t, v.do("PATCH", base+"/google", map[string]any{"client_id": "only"}), http.StatusBadRequest, "client_secret: ")
		wantError(t, v.do("PATCH", base+"/google", map[string]any{}), http.StatusBadRequest, "client_id: ")
		wantError(t, v.do("PATCH", base+"/microsoft", map[string]any{"client_id": "a", "client_secret": "b"}), http.StatusNotFound, "")
	})
	t.Run("delete answers 200 without body", func(t *testing.T) {
		r := v.do("DELETE", base+"/google", nil)
		wantStatus(t, r, http.StatusOK)
		wantNoBody(t, r)
		wantError(t, v.do("DELETE", base+"/google", nil), http.StatusNotFound, "")
		got := v.e.OAuthProviders(v.project)
		if len(got) != 1 || got[0].ID != "github" {
			t.Errorf("providers = %+v", got)
		}
	})
	t.Run("out-of-band changes show through the API", func(t *testing.T) {
		if err := v.e.PutOAuthProvider(v.project, OAuthProvider{ID: "microsoft"}); err != nil {
			t.Fatal(err)
		}
		if err := v.e.DeleteOAuthProvider(v.project, "github"); err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "body", v.do("GET", base, nil).Body, `{"providers":[{"id":"microsoft","type":"shared"}]}`)
	})
}

func TestDomains(t *testing.T) {
	v := newEnv(t, Options{})
	v.integrate()
	base := "/projects/" + v.project + "/auth/domains"
	add := func(domain string) *response {
		return v.do("POST", base, map[string]any{"domain": domain, "auth_provider": "stack"})
	}

	t.Run("add stores the canonical origin", func(t *testing.T) {
		r := add("HTTPS://App.Example.COM/")
		wantStatus(t, r, http.StatusCreated)
		wantNoBody(t, r)
		wantStatus(t, add("http://localhost:3000"), http.StatusCreated)
		wantJSON(t, "list", v.do("GET", base, nil).Body,
			`{"domains":[{"domain":"https://app.example.com","auth_provider":"stack"},{"domain":"http://localhost:3000","auth_provider":"stack"}]}`)
	})
	t.Run("wildcard hosts and native apps' own schemes are accepted", func(t *testing.T) {
		for in, stored := range map[string]string{
			"https://*.Preview.example.com/": "https://*.preview.example.com",
			"MyApp://callback/":              "myapp://callback",
			"com.example.app://oauth/cb":     "com.example.app://oauth/cb",
		} {
			wantStatus(t, add(in), http.StatusCreated)
			if !slices.ContainsFunc(v.e.Domains(v.project), func(d Domain) bool { return d.Domain == stored }) {
				t.Errorf("%q is not stored as %q: %+v", in, stored, v.e.Domains(v.project))
			}
			wantError(t, add(stored), http.StatusConflict, "domain "+stored+" is already")
			wantStatus(t, v.do("DELETE", base, map[string]any{"auth_provider": "stack", "domains": []any{map[string]any{"domain": in}}}), http.StatusOK)
		}
		for _, bad := range []string{"javascript://alert(1)", "data://x", "https://a_b.example.com", "https://a..example.com", "https://example.com:"} {
			wantError(t, add(bad), http.StatusBadRequest, "domain: ")
		}
	})
	t.Run("a domain already present conflicts", func(t *testing.T) {
		wantError(t, add("https://APP.example.com"), http.StatusConflict, "")
	})
	t.Run("only origins are accepted", func(t *testing.T) {
		bad := []string{
			"app.example.com", "ftp://example.com", "https://example.com/path", "https://example.com/?q=1",
			"https://example.com#frag", "https://user:pw@example.com", "https://", "https://example.com:0",
			"https://example.com:99999", "https://exa mple.com", "mailto:a@example.com", "", "myapp:callback",
		}
		for _, d := range bad {
			wantError(t, add(d), http.StatusBadRequest, "domain: ")
		}
		wantError(t, v.do("POST", base, map[string]any{"domain": "https://b.example.com", "auth_provider": "auth0"}), http.StatusBadRequest, "auth_provider: ")
		wantError(t, v.do("POST", base, map[string]any{"domain": "https://b.example.com", "auth_provider": "mock"}), http.StatusNotFound,
			"integration with auth provider mock not found")
		wantError(t, v.do("POST", base, map[string]any{"domain": "https://b.example.com"}), http.StatusBadRequest, "auth_provider: is required")
	})
	t.Run("delete removes listed domains and ignores absent ones", func(t *testing.T) {
		r := v.do("DELETE", base, map[string]any{"auth_provider": "stack", "domains": []any{
			map[string]any{"domain": "https://App.Example.com/"},
			map[string]any{"domain": "https://never-added.example.com"},
		}})
		wantStatus(t, r, http.StatusOK)
		wantNoBody(t, r)
		got := v.e.Domains(v.project)
		if len(got) != 1 || got[0].Domain != "http://localhost:3000" {
			t.Errorf("domains = %+v", got)
		}
		wantError(t, v.do("DELETE", base, map[string]any{"auth_provider": "stack"}), http.StatusBadRequest, "domains: is required")
		wantError(t, v.do("DELETE", base, map[string]any{"auth_provider": "stack", "domains": []any{map[string]any{"domain": "nope"}}}), http.StatusBadRequest, "domains[0].domain: ")
	})
	t.Run("out-of-band changes", func(t *testing.T) {
		if err := v.e.AddDomain(v.project, "https://drift.example.com"); err != nil {
			t.Fatal(err)
		}
		if err := v.e.removeDomain(v.project, "http://localhost:3000/"); err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "list", v.do("GET", base, nil).Body, `{"domains":[{"domain":"https://drift.example.com","auth_provider":"stack"}]}`)
	})
}

func TestEmailServer(t *testing.T) {
	v := newEnv(t, Options{})
	v.integrate()
	path := "/projects/" + v.project + "/auth/email_server"
	standard := func() map[string]any {
		return map[string]any{
			"type": "standard", "host": "smtp.example.com", "port": 587, "username": "mailer",
			"password": "hunter2", "sender_email": "noreply@example.com", "sender_name": "Example",
		}
	}

	t.Run("a new integration starts shared", func(t *testing.T) {
		r := v.do("GET", path, nil)
		wantStatus(t, r, http.StatusOK)
		wantJSON(t, "body", r.Body, `{"type":"shared"}`)
	})
	t.Run("standard is echoed and read back with the password blank", func(t *testing.T) {
		r := v.do("PATCH", path, standard())
		wantStatus(t, r, http.StatusOK)
		if strings.Contains(string(r.Body), "hunter2") || !strings.Contains(string(r.Body), `"password":""`) {
			t.Errorf("the PATCH answer does not redact the password: %s", r.Body)
		}
		want := EmailServer{Type: "standard", Host: "smtp.example.com", Port: 587, Username: "mailer",
			SenderEmail: "noreply@example.com", SenderName: "Example"}
		var got EmailServer
		r.Decode(&got)
		if got != want {
			t.Errorf("echo = %+v", got)
		}
		read := v.do("GET", path, nil)
		if strings.Contains(string(read.Body), "hunter2") {
			t.Errorf("read shows the password: %s", read.Body)
		}
		got = EmailServer{}
		read.Decode(&got)
		if got != want {
			t.Errorf("read = %+v", got)
		}
		if stored, _ := v.e.EmailServer(v.project); stored.Password != "hunter2" {
			t.Errorf("stored password = %q", stored.Password)
		}
	})
	t.Run("validation names the first bad field", func(t *testing.T) {
		with := func(k string, val any) map[string]any { return withField(standard(), k, val) }
		cases := []struct {
			name   string
			body   map[string]any
			prefix string
		}{
			{"missing type", with("type", nil), `request body: input does not contain the discriminator property "type"`},
			{"unknown type", with("type", "custom"), `request body: discriminator property "type" has invalid value`},
			{"missing host", with("host", nil), "host: is required"},
			{"missing port", with("port", nil), "port: is required"},
			{"port zero", with("port", 0), "port: "},
			{"port too big", with("port", 65536), "port: "},
			{"port as string", with("port", "587"), "port: value must be an integer"},
			{"missing username", with("username", nil), "username: is required"},
			{"missing password", with("password", nil), "password: is required"},
			{"missing sender_email", with("sender_email", nil), "sender_email: is required"},
			{"bad sender_email", with("sender_email", "nobody"), "sender_email: "},
			{"missing sender_name", with("sender_name", nil), "sender_name: is required"},
			{"host and port missing", with("port", nil), "port: "},
			{"shared with a host", map[string]any{"type": "shared", "host": "smtp.example.com"}, `request body: property "host" is unsupported`},
			{"shared with a password", map[string]any{"type": "shared", "password": "x"}, `request body: property "password" is unsupported`},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, v.do("PATCH", path, tc.body), http.StatusBadRequest, tc.prefix)
			})
		}
	})
	t.Run("switching to shared resets the stored config", func(t *testing.T) {
		r := v.do("PATCH", path, map[string]any{"type": "shared"})
		wantStatus(t, r, http.StatusOK)
		wantJSON(t, "body", r.Body, `{"type":"shared"}`)
		if stored, _ := v.e.EmailServer(v.project); stored != (EmailServer{Type: "shared"}) {
			t.Errorf("stored = %+v", stored)
		}
	})
	t.Run("out-of-band change", func(t *testing.T) {
		if err := v.e.SetEmailServer(v.project, EmailServer{Type: "standard", Host: "h", Port: 25, Username: "u", Password: "p", SenderEmail: "a@b.co", SenderName: "n"}); err != nil {
			t.Fatal(err)
		}
		var got EmailServer
		v.do("GET", path, nil).Decode(&got)
		if got.Host != "h" || got.Password != "" {
			t.Errorf("read = %+v", got)
		}
	})
}
