package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// containerfile is the image's ENV (name → value, in order) and the
// command of its HEALTHCHECK, read from ../../Containerfile.
type containerfile struct {
	env         [][2]string
	healthCheck []string
}

func readContainerfile(t *testing.T) containerfile {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "Containerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cf containerfile
	var instruction strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || (line == "" && instruction.Len() == 0) {
			continue
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			instruction.WriteString(cont + " ")
			continue
		}
		instruction.WriteString(line)
		cf.add(t, instruction.String())
		instruction.Reset()
	}
	if len(cf.env) == 0 || len(cf.healthCheck) == 0 {
		t.Fatalf("the Containerfile has no ENV (%q) or no HEALTHCHECK CMD (%q)", cf.env, cf.healthCheck)
	}
	return cf
}

// add reads one instruction: ENV name=value pairs, HEALTHCHECK's CMD array.
func (cf *containerfile) add(t *testing.T, instruction string) {
	t.Helper()
	keyword, rest, _ := strings.Cut(instruction, " ")
	switch keyword {
	case "ENV":
		for _, kv := range strings.Fields(rest) {
			name, value, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("ENV %q: not name=value", kv)
			}
			cf.env = append(cf.env, [2]string{name, value})
		}
	case "HEALTHCHECK":
		_, cmd, ok := strings.Cut(rest, " CMD ")
		if !ok || json.Unmarshal([]byte(cmd), &cf.healthCheck) != nil {
			t.Fatalf("HEALTHCHECK %q: want CMD [\"…\", …]", rest)
		}
	}
}

// freePort is a TCP port nothing listens on right now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// runImage sets the image's environment, with the changes a user makes to
// it (docker run -e NAME=value), the port of 8080 swapped for a free one and
// the image's /emulator directory for a temporary one; then it starts the
// emulator with no arguments, as the image's ENTRYPOINT does, and returns
// the port of NEON_EMULATOR_LISTEN.
func runImage(t *testing.T, cf containerfile, changes map[string]string) string {
	t.Helper()
	port, dir := freePort(t), t.TempDir()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "NEON_EMULATOR_") || name == "SSL_CERT_FILE" {
			t.Setenv(name, "")
		}
	}
	set := func(name, value string) {
		value = strings.ReplaceAll(value, ":8080", ":"+port)
		value = strings.ReplaceAll(value, "/emulator", dir)
		t.Setenv(name, value)
	}
	for _, kv := range cf.env {
		if _, changed := changes[kv[0]]; !changed {
			set(kv[0], kv[1])
		}
	}
	for name, value := range changes {
		set(name, value)
	}
	start(t, 1)
	_, port, err := net.SplitHostPort(os.Getenv("NEON_EMULATOR_LISTEN"))
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// imageHealth runs the image's HEALTHCHECK command in the environment
// runImage set.
func imageHealth(t *testing.T, cf containerfile, extra ...string) (string, error) {
	t.Helper()
	if !slices.Equal(cf.healthCheck[:2], []string{"/emulator/neon-emulator", "health"}) {
		t.Fatalf("the HEALTHCHECK runs %q; want /emulator/neon-emulator health", cf.healthCheck)
	}
	var out strings.Builder
	err := health(t.Context(), append(slices.Clone(cf.healthCheck[2:]), extra...), &out, io.Discard)
	return out.String(), err
}

// The image's health check follows the environment the container runs
// with: TLS on 8080 as built, and plain HTTP on another port when started
// with NEON_EMULATOR_TLS=false and another NEON_EMULATOR_LISTEN (a GitHub
// Actions service with `ports:`, its job on the runner).
func TestImageHealthCheckFollowsTheEnvironment(t *testing.T) {
	cf := readContainerfile(t)
	if len(cf.healthCheck) != 2 {
		t.Errorf("HEALTHCHECK CMD %q; want no URL or flag, so that it reads the container's environment", cf.healthCheck)
	}

	t.Run("TLS on, as built", func(t *testing.T) {
		port := runImage(t, cf, nil)
		out, err := imageHealth(t, cf)
		if err != nil || out != "healthy: https://127.0.0.1:"+port+"/_emulator/healthz\n" {
			t.Errorf("health = %q, %v; want healthy over https on port %s", out, err, port)
		}
		_, err = imageHealth(t, cf, "http://127.0.0.1:"+port+"/")
		wantError(t, "http:// to the TLS listener", err, "serves HTTPS", "use https://127.0.0.1:"+port+"/")
		_, err = imageHealth(t, cf, "https://127.0.0.1:"+port+"/")
		wantError(t, "https:// without the CA", err, "certificate", "-ca FILE", "SSL_CERT_FILE=FILE", "neon-emulator ca -o ca.pem")
	})

	t.Run("TLS off, another port", func(t *testing.T) {
		other := freePort(t)
		if port := runImage(t, cf, map[string]string{"NEON_EMULATOR_TLS": "false", "NEON_EMULATOR_LISTEN": "0.0.0.0:" + other}); port != other {
			t.Fatalf("NEON_EMULATOR_LISTEN names port %s; want %s", port, other)
		}
		out, err := imageHealth(t, cf)
		if err != nil || out != "healthy: http://127.0.0.1:"+other+"/_emulator/healthz\n" {
			t.Errorf("health = %q, %v; want healthy over http on port %s", out, err, other)
		}
		_, err = imageHealth(t, cf, "https://127.0.0.1:"+other+"/")
		wantError(t, "https:// to the plain listener", err, "serves plain HTTP", "use http://127.0.0.1:"+other+"/")
		err = fetchCA(t.Context(), []string{"https://127.0.0.1:" + other + "/"}, io.Discard, io.Discard)
		wantError(t, "ca from the plain listener", err, "serves plain HTTP", "no CA to fetch")
	})
}

func TestHealthWithoutURLNeedsAListenAddressWithAPort(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   map[string]string
		parts []string
	}{
		{"unset", map[string]string{"NEON_EMULATOR_LISTEN": ""}, []string{"NEON_EMULATOR_LISTEN", "is not set", "give the emulator's URL"}},
		{"port 0", map[string]string{"NEON_EMULATOR_LISTEN": "127.0.0.1:0"}, []string{"NEON_EMULATOR_LISTEN=127.0.0.1:0", "names no port"}},
		{"not a boolean", map[string]string{"NEON_EMULATOR_LISTEN": "127.0.0.1:8080", "NEON_EMULATOR_TLS": "yes"},
			[]string{`NEON_EMULATOR_TLS="yes" is not a boolean`}},
		{"nothing listens", map[string]string{"NEON_EMULATOR_LISTEN": "127.0.0.1:" + freePort(t), "NEON_EMULATOR_TLS": "false"},
			[]string{"unhealthy", "(from NEON_EMULATOR_LISTEN=127.0.0.1:", "nothing listens at 127.0.0.1:", "start the emulator, or check the port"}},
		{"TLS, no CA file yet", map[string]string{"NEON_EMULATOR_LISTEN": "127.0.0.1:" + freePort(t), "NEON_EMULATOR_TLS": "true",
			"NEON_EMULATOR_TLS_CA_FILE": "/nonexistent/ca.pem"},
			[]string{"/nonexistent/ca.pem (NEON_EMULATOR_TLS_CA_FILE)", "the emulator writes it once it serves TLS"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, value := range tc.env {
				t.Setenv(name, value)
			}
			err := health(t.Context(), nil, io.Discard, io.Discard)
			wantError(t, tc.name, err, tc.parts...)
			if err != nil && strings.HasSuffix(err.Error(), "?.") {
				t.Errorf("%s: %q", tc.name, err)
			}
		})
	}
}

// A refused control request says which variable holds the control token
// and where the emulator printed it, and never shows a token.
func TestCallNamesTheControlTokenAndWhereItWasPrinted(t *testing.T) {
	const token, wrong = "ctl-token-of-the-emulator", "ctl-token-someone-guessed"
	em, err := emulator.New(emulator.Options{SeedProjects: 1, ControlToken: token})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(em)
	defer srv.Close()
	t.Setenv(controlTokenEnv, "")
	err = call(t.Context(), []string{"POST", srv.URL + "/_emulator/stats/reset"}, io.Discard, io.Discard)
	wantError(t, "no token", err, "HTTP 401", "needs the control token", "set NEON_EMULATOR_CONTROL_TOKEN (or -control-token)",
		"NEON_EMULATOR_CONTROL_TOKEN= line the emulator printed on stdout", "-ready-file")
	t.Setenv(controlTokenEnv, wrong)
	err = call(t.Context(), []string{"POST", srv.URL + "/_emulator/stats/reset"}, io.Discard, io.Discard)
	wantError(t, "a wrong token", err, "HTTP 401", "is not this emulator's", "NEON_EMULATOR_CONTROL_TOKEN= line", "-ready-file")
	if err != nil && (strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), token)) {
		t.Errorf("the error shows a token: %v", err)
	}
	if err := call(t.Context(), []string{"-control-token", token, "POST", srv.URL + "/_emulator/stats/reset"}, io.Discard, io.Discard); err != nil {
		t.Errorf("with the token: %v", err)
	}
	err = call(t.Context(), []string{"-key", "not-a-key", "GET", srv.URL + "/api/v2/projects"}, io.Discard, io.Discard)
	wantError(t, "a wrong API key", err, "HTTP 401", "NEON_API_KEY or -key")

	tlsSrv := httptest.NewTLSServer(em)
	defer tlsSrv.Close()
	plain := strings.Replace(tlsSrv.URL, "https://", "http://", 1)
	err = call(t.Context(), []string{"-control-token", token, "POST", plain + "/_emulator/stats/reset"}, io.Discard, io.Discard)
	wantError(t, "http:// to a TLS listener", err, "HTTP 400", "serves HTTPS", "use https://"+strings.TrimPrefix(plain, "http://")+"/")
}

// wantError fails unless err holds every part, in order.
func wantError(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error; want one saying %q", what, parts)
		return
	}
	rest := err.Error()
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			t.Errorf("%s: %q lacks %q (after the earlier parts)", what, err, p)
			return
		}
		rest = rest[i+len(p):]
	}
}
