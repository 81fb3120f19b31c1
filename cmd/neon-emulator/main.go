// Command neon-emulator runs the in-memory platform API v2 emulator on its own,
// for demos, users' CI and manual checks. `neon-emulator -help` says it all;
// in short, once it listens it prints to stdout
//
//	NEON_API_BASE_URL=http://127.0.0.1:PORT/api/v2/   (https:// with -tls)
//	SSL_CERT_FILE=<file>                     (with -tls or -proxy: the generated CA certificate)
//	HTTPS_PROXY=http://127.0.0.1:PORT        (with -proxy; https:// with -tls)
//	NEON_API_KEY=<key>                       (only when the key was generated)
//	NEON_EMULATOR_CONTROL_TOKEN=<token>      (only when the token was generated)
//	NEON_EMULATOR_REMOTE_BASE_URLS=<urls>    (only for a wildcard listen address)
//
// and, with -ready-file, writes the same lines to that file atomically (the
// file is removed again on shutdown). SIGINT or SIGTERM shut it down
// gracefully, flushing the state file. The control surface is served under
// /_emulator/ (see package internal/emulator); unless the listener is
// loopback-only it needs the control token.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// This file holds the program's flags, its start (listener, TLS, emulator,
// ready lines) and its graceful shutdown.

func main() {
	if err := mainErr(); err != nil {
		fmt.Fprintln(os.Stderr, "neon-emulator:", err)
		os.Exit(1)
	}
}

// mainErr runs the emulator, or the `call` client, until a signal.
func mainErr() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run, args := run, os.Args[1:]
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok {
			run, args = sub, args[1:]
		}
	}
	if err := run(ctx, args, os.Stdout, os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		return err
	}
	return nil
}

// subcommands are the clients built into the binary, so that scripts and
// container health checks need no curl.
var subcommands = map[string]func(context.Context, []string, io.Writer, io.Writer) error{
	"call":   call,
	"health": health,
	"ca":     fetchCA,
}

// run serves the emulator until ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if cfg.showVersion {
		_, err := fmt.Fprintln(stdout, "neon-emulator", version)
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	ln, scheme, ts, err := secure(ln, cfg)
	if err != nil {
		return err
	}
	caFile := ts.generatedCA()
	if caFile != "" {
		defer os.Remove(caFile)
	}
	where := reachOf(ln.Addr(), scheme, splitNames(cfg.tlsNames))
	generatedToken := ""
	if cfg.controlToken == "" && !where.loopbackOnly {
		generatedToken = newControlToken()
		cfg.controlToken = generatedToken
	}
	em, handler, err := startEmulator(cfg, where.baseURL, stderr)
	if err != nil {
		return err
	}
	httpsProxy := ""
	if cfg.proxy {
		tn := newTunnel(ln, handler, ts)
		ln, handler, httpsProxy = tn, tn, proxyURL(where.baseURL)
	}

	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: handshakeLog(stderr, caFile, where.baseURL)}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	generatedKey := ""
	if cfg.bootstrapKey == "" {
		generatedKey = em.BootstrapKey()
	}
	ready := readyLines(where, caFile, httpsProxy, generatedKey, generatedToken)
	if err := announce(ready, cfg.readyFile, stdout); err != nil {
		return shutdown(srv, em, err)
	}
	if cfg.readyFile != "" {
		defer os.Remove(cfg.readyFile)
	}

	select {
	case <-ctx.Done():
		return shutdown(srv, em, nil)
	case err := <-served:
		return shutdown(srv, em, err)
	}
}

// parseFlags reads the flags, then the environment for those not given, and
// the -seed file.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	var cfg config
	var seedFile string
	fs := flagSet(&cfg, &seedFile, stderr)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if cfg.showVersion {
		return &cfg, nil
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if err := flagsFromEnv(fs); err != nil {
		return nil, err
	}
	if cfg.latency < 0 {
		return nil, fmt.Errorf("-latency %s: must not be negative", cfg.latency)
	}
	if seedFile != "" {
		src, err := os.ReadFile(seedFile)
		if err != nil {
			return nil, fmt.Errorf("reading -seed: %w", err)
		}
		if cfg.seed, err = emulator.ParseSeed(seedFile, src); err != nil {
			return nil, err
		}
	}
	if cfg.tlsCert != "" || cfg.tlsKey != "" {
		if cfg.proxy {
			return nil, errors.New("-proxy signs a certificate for " + proxiedHost + " with a CA of its own: it cannot be used with -tls-cert")
		}
		cfg.useTLS = true
	}
	return &cfg, nil
}

// flagSet defines the program's flags over cfg and seedFile.
func flagSet(cfg *config, seedFile *string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("neon-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:0", "address to listen on (port 0: any free port; 0.0.0.0:PORT, [::]:PORT or\n"+
		":PORT for other hosts too, which puts the control surface behind the control token)")
	fs.StringVar(&cfg.controlToken, "control-token", "",
		"bearer token the control surface requires (default $"+controlTokenEnv+"; when neither is set:\n"+
			"none on a loopback-only listener, a random one, printed, on any other)")
	// Secrets from the environment are read after parsing, so that -help
	// never prints them as defaults.
	fs.StringVar(&cfg.bootstrapKey, "bootstrap-key", "", "token of the admin's personal API key (default $NEON_EMULATOR_BOOTSTRAP_KEY, else random)")
	fs.IntVar(&cfg.projects, "projects", 1, "number of projects created at start (fresh state only)")
	fs.IntVar(&cfg.accountRPM, "account-rpm", 700, "account-wide requests per minute (negative: unlimited)")
	fs.IntVar(&cfg.routeRPS, "route-rps", 40, "requests per second per route (negative: unlimited)")
	cfg.rateLimitReading = emulator.ReadingWindows
	fs.Func("rate-limit-reading", "how the limits are enforced: \"windows\" (the default: 429 only past -account-rpm in any\n"+
		"60 s or -route-rps in any second on a route) or \"buckets\" (token buckets, the account's holding at most 40:\n"+
		"a burst meets 429 sooner; the stricter reading, for testing a client's pacing)", func(s string) (err error) {
		cfg.rateLimitReading, err = emulator.ParseRateLimitReading(s)
		return err
	})
	fs.Func("deviate", "answer as another description of the service says where it differs from the API reference,\n"+
		"to rehearse a server that deviates (comma-separated): "+emulator.KnownDeviations(), func(s string) (err error) {
		cfg.deviations, err = emulator.ParseDeviations(s)
		return err
	})
	fs.StringVar(&cfg.stateFile, "state-file", "", "file to load the state from and save it to after every change")
	fs.StringVar(&cfg.readyFile, "ready-file", "", "file to write the ready lines to (mode 0600), removed on shutdown")
	fs.BoolVar(&cfg.verbose, "v", false, "log one line per API request to stderr (never keys or secrets)")
	fs.BoolVar(&cfg.validate, "validate", false, "check every API request and response against the OpenAPI document of the\n"+
		"platform API (internal/apispec) and log each violation to stderr: where and which rule, never a value")
	fs.StringVar(seedFile, "seed", "", "start from this seed file (HCL, or JSON when it ends in .json): projects, branches, API keys\n"+
		"with fixed tokens, Neon Auth per branch. With -state-file only when the state file is new.\n"+
		"POST /_emulator/reset returns to it")
	fs.BoolVar(&cfg.useTLS, "tls", false, "serve HTTPS with a certificate made at start for every name of the listener and -tls-name;\n"+
		"its CA certificate goes to -tls-ca-file, printed as SSL_CERT_FILE=<file>")
	fs.StringVar(&cfg.tlsNames, "tls-name", "", "more names for the generated certificate, comma-separated (such as neon-emulator,\n"+
		"the name of a CI service container); they also head NEON_EMULATOR_REMOTE_BASE_URLS")
	fs.StringVar(&cfg.tlsCAFile, "tls-ca-file", "", "file for the generated CA certificate (default <temp dir>/neon-emulator-<port>-ca.pem)")
	fs.StringVar(&cfg.tlsCert, "tls-cert", "", "serve HTTPS with this certificate (PEM, with its chain) instead of a generated one; needs -tls-key")
	fs.StringVar(&cfg.tlsKey, "tls-key", "", "private key (PEM) of -tls-cert")
	fs.BoolVar(&cfg.proxy, "proxy", false, "also answer as an HTTPS proxy that reaches only "+proxiedHost+":443, served by the emulator\n"+
		"itself, for clients with no base-URL setting (the official Neon provider): printed as HTTPS_PROXY=...,\n"+
		"trusted through SSL_CERT_FILE=<the CA>. CONNECT to any other host is refused")
	fs.DurationVar(&cfg.dataAPIBoot, "data-api-boot", time.Second, "how long a new Data API reports the status \"provisioning\" before\n"+
		"\"active\" (0: active at once)")
	fs.DurationVar(&cfg.latency, "latency", 0, "added to every API request before it is handled, such as 80ms: the round trip of a\n"+
		"client far from Neon's API, to rehearse a run's wall time (fault latency adds to it)")
	fs.BoolVar(&cfg.fetchJWKS, "fetch-jwks", false, "fetch a JWKS URL when it is added to a project and refuse it unless it answers a\n"+
		"JSON Web Key Set, as Neon does (needs the network; through HTTPS_PROXY when set). Without it the\n"+
		"emulator checks what it can offline: the URL's form, and the JWKS of the Neon Auth it serves")
	fs.BoolVar(&cfg.showVersion, "version", false, "print the version and exit")
	return fs
}

// secure wraps ln in TLS when cfg asks for it, returning the scheme clients
// use and the TLS set-up (nil without -tls and -proxy). -proxy adds the API's
// host to the generated certificate, which its tunnels present.
func secure(ln net.Listener, cfg *config) (_ net.Listener, scheme string, _ *tlsSetup, _ error) {
	if !cfg.useTLS && !cfg.proxy {
		return ln, "http", nil, nil
	}
	tcp, _ := ln.Addr().(*net.TCPAddr)
	if tcp == nil {
		return nil, "", nil, fmt.Errorf("-tls and -proxy need a TCP listener, got %s", ln.Addr())
	}
	if cfg.tlsCAFile == "" {
		cfg.tlsCAFile = defaultCAFile(tcp.Port)
	}
	var names []string
	if cfg.useTLS {
		names = certificateNames(tcp, splitNames(cfg.tlsNames))
	}
	if cfg.proxy {
		names = append(names, proxiedHost)
	}
	ts, err := setupTLS(cfg.tlsCert, cfg.tlsKey, cfg.tlsCAFile, names)
	if err != nil {
		return nil, "", nil, err
	}
	if !cfg.useTLS {
		return ln, "http", ts, nil
	}
	return tls.NewListener(ln, ts.config), "https", ts, nil
}

// startEmulator makes the emulator cfg describes, and the handler that serves
// it (behind the OpenAPI validator with -validate).
func startEmulator(cfg *config, baseURL string, stderr io.Writer) (*emulator.Emulator, http.Handler, error) {
	opts := emulator.Options{
		BootstrapKey:             cfg.bootstrapKey,
		SeedProjects:             cfg.projects,
		AccountRequestsPerMinute: cfg.accountRPM,
		RouteRequestsPerSecond:   cfg.routeRPS,
		RateLimitReading:         cfg.rateLimitReading,
		Deviations:               cfg.deviations,
		StateFile:                cfg.stateFile,
		Seed:                     cfg.seed,
		BaseURL:                  baseURL,
		ControlToken:             cfg.controlToken,
		DataAPIBootTime:          cfg.dataAPIBoot,
		Latency:                  cfg.latency,
	}
	if cfg.dataAPIBoot == 0 {
		opts.DataAPIBootTime = -1 // the flag's 0 is "at once"; the Options' 0 is the default
	}
	if cfg.fetchJWKS {
		opts.FetchJWKS = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.verbose {
		opts.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	em, err := emulator.New(opts)
	if err != nil {
		return nil, nil, err
	}
	if !cfg.validate {
		return em, em, nil
	}
	handler, err := validating(em, stderr)
	if err != nil {
		return nil, nil, errors.Join(err, em.Close())
	}
	return em, handler, nil
}

// announce writes the ready lines: to the ready file first, so that it
// exists once stdout says ready, then to stdout.
func announce(ready, readyFile string, stdout io.Writer) error {
	if readyFile != "" {
		if err := emulator.WriteFileAtomic(readyFile, []byte(ready)); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(stdout, ready); err != nil {
		if readyFile != "" {
			_ = os.Remove(readyFile)
		}
		return err
	}
	if f, ok := stdout.(interface{ Sync() error }); ok {
		_ = f.Sync() // best effort: pipes cannot be synced
	}
	return nil
}

// version is set by the release build (-ldflags "-X main.version=…").
var version = "dev"

const usage = `Usage:
  neon-emulator [flags]
  neon-emulator call [-key KEY] [-control-token TOKEN] METHOD URL [JSON-BODY]
  neon-emulator health [-ca FILE] [URL]     exit 0 when the emulator at URL (default: the one
                                            NEON_EMULATOR_LISTEN and NEON_EMULATOR_TLS describe) answers
  neon-emulator ca [-o FILE] https://HOST:PORT/   fetch the CA of an emulator started with -tls

Runs an in-memory emulator of the Neon platform API v2 (projects, branches,
API keys, Neon Auth) until SIGINT or SIGTERM. Once it listens it prints, and
writes to -ready-file:

  NEON_API_BASE_URL=http://127.0.0.1:PORT/api/v2/   (https:// with -tls)
  SSL_CERT_FILE=...                     with -tls or -proxy: the CA certificate to trust
  HTTPS_PROXY=http://127.0.0.1:PORT     with -proxy (https:// with -tls)
  NEON_API_KEY=...                      only when the key was generated
  NEON_EMULATOR_CONTROL_TOKEN=...       only when the control token was generated
  NEON_EMULATOR_REMOTE_BASE_URLS=...    for a wildcard -listen address or -tls-name

A wildcard -listen address (0.0.0.0:PORT, [::]:PORT, :PORT) accepts other
hosts: NEON_API_BASE_URL then names 127.0.0.1 (usable on this host) and
NEON_EMULATOR_REMOTE_BASE_URLS lists this host's other addresses with the
port, comma-separated, for the other hosts.

The control surface under /_emulator/ (keys, faults, stats, state dump)
needs no API key. On a loopback-only listener (127.0.0.1, ::1, localhost) it
is open, unless a control token is given with -control-token or
$NEON_EMULATOR_CONTROL_TOKEN. On any other listener it always needs one: the
given token, or a random one printed as NEON_EMULATOR_CONTROL_TOKEN. Control
requests must then send "Authorization: Bearer <control token>"; without it,
or with a wrong one, they get 401. "neon-emulator call" sends
$NEON_EMULATOR_CONTROL_TOKEN to /_emulator/ URLs and $NEON_API_KEY to the API.

The provider refuses plain http:// on any host but loopback. For clients on
other hosts (a CI service container), start with -tls (and -tls-name with the
name they use); they trust the CA by SSL_CERT_FILE=<the printed file>, or,
on another host, by the file "neon-emulator ca -o FILE URL" writes.

Clients with no base-URL setting, such as the official Neon provider
(neondatabase/neon, whose SDK always calls https://console.neon.tech/api/v2),
reach the emulator with -proxy: export HTTPS_PROXY and SSL_CERT_FILE as
printed, and NEON_API_KEY. Their CONNECT console.neon.tech:443 is answered
by the emulator itself, with a certificate for console.neon.tech signed by
its CA; CONNECT to any other host is refused (403), so nothing leaves this
host. Requests to 127.0.0.1 and localhost never go through HTTPS_PROXY, so
the neon-auth/neon provider, pointed at NEON_API_BASE_URL, works beside it.

Every flag can also be set by an environment variable, NEON_EMULATOR_ and
the flag's name in capitals with _ for -: NEON_EMULATOR_TLS=true,
NEON_EMULATOR_TLS_NAME=neon-emulator, NEON_EMULATOR_SEED=/seed.hcl. A flag
on the command line wins.

Flags:
`

// validating puts the OpenAPI validator in front of h; each violation is one
// log line on stderr.
func validating(h http.Handler, stderr io.Writer) (http.Handler, error) {
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	v, err := apispec.NewValidator(func(x apispec.Violation) {
		logger.Warn("OpenAPI violation", "kind", x.Kind, "method", x.Method, "route", x.Route, "status", x.Status, "problem", x.Problem)
	})
	if err != nil {
		return nil, err
	}
	return v.Middleware(h), nil
}

// shutdown stops serving, flushes the state and returns the first error.
func shutdown(srv *http.Server, em *emulator.Emulator, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errs := []error{cause}
	if err := srv.Shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, em.Close())
	return errors.Join(errs...)
}
