// Package emulator is an in-memory emulator of the platform API v2 (the Neon
// API), limited to what the Terraform provider needs: projects, branches,
// API keys and Neon Auth, through both the project-level endpoints of
// internal/apispec/auth-api.md and their branch-scoped successors of
// internal/apispec/neon-api-v2-2026-07-13.openapi.json; and to what the
// official Neon provider manages beside it: the compute endpoints, databases
// and roles of branches (computes are state only: they never run). Neon Auth
// state lives on branches (at most one integration per branch); the
// project-level endpoints act on the production (default) branch.
//
// It is meant to be honest: a client that works against it should work
// against the real service. Where the specification leaves a behaviour open
// the emulator takes the stricter reading, for example:
//
//   - request bodies must be JSON objects with Content-Type application/json;
//     fields the API reference does not define and values that break its
//     rules are rejected with 400 (request.go);
//   - a project that a key may not see answers 404 "project not found", the
//     same as a project that does not exist;
//   - branch_id of an integration created through POST /projects/auth/create
//     must be the project's default branch;
//   - a request body naming an auth provider other than the integration's
//     addresses an integration that does not exist (404).
//
// Requests are processed in this order: authentication (401), rate limit
// (429), fault injection (see Faults), routing (404/405 are answered right
// after authentication), then the handler. Every response carries an
// X-Request-Id header; an incoming X-Request-ID is honoured.
//
// The control surface under /_emulator/ (see control.go) needs no API key
// (only the control token, when one is set), is never rate limited, faulted
// or counted in Stats.
package emulator

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Options configure an Emulator. The zero value is usable.
type Options struct {
	// BootstrapKey is the token of a personal key of the organization's
	// admin user; "" → generated at random.
	BootstrapKey string
	// SeedProjects is the number of projects created at start (0 → 1). Each
	// gets a default branch "main" with database "neondb" owned by role
	// "neondb_owner". Ignored when the state is loaded from StateFile.
	SeedProjects int
	// AccountRequestsPerMinute is the account-wide limit (0 → 700; negative →
	// no limit).
	AccountRequestsPerMinute int
	// RouteRequestsPerSecond is the per-route limit, also the burst (0 → 40;
	// negative → no limit).
	RouteRequestsPerSecond int
	// RateLimitReading is how the limits are enforced: "" or ReadingWindows
	// (at most the numbers in any minute and second), or ReadingBuckets
	// (token buckets; the account's holds at most 40).
	RateLimitReading RateLimitReading
	// Deviations are answers given as another description of the service
	// says instead of as the reference does (see deviations.go); none by
	// default.
	Deviations []Deviation
	// StateFile, when not empty, is loaded at New if it exists and rewritten
	// atomically after every mutation.
	StateFile string
	// BaseURL is only used to build URLs the emulator hands out.
	BaseURL string
	// Logger receives one line per API request (method, route, status,
	// request id; never keys or secrets). nil → no logs.
	Logger *slog.Logger
	// Seed, when not nil, is the starting state instead of SeedProjects
	// projects (see ParseSeed). With StateFile it applies only when the
	// file does not exist yet. POST /_emulator/reset returns to it.
	Seed *Seed
	// DataAPIBootTime is how long a new Data API reports the status
	// "provisioning" before "active" (0 → 1s; negative → active at once).
	DataAPIBootTime time.Duration
	// FetchJWKS, when not nil, is the client with which adding a JWKS URL
	// fetches it, refusing it unless it answers a JSON Web Key Set, as Neon
	// does. nil: the emulator needs no network; it checks what it can tell
	// offline (see checkJWKSOffline).
	FetchJWKS *http.Client
	// ControlToken, when not empty, protects the control surface: its
	// requests must carry "Authorization: Bearer <ControlToken>" (401
	// otherwise). Empty: the control surface is open, which is only safe on
	// a loopback listener.
	ControlToken string
	// Latency is added to every API request before it is handled: the round
	// trip of a client far from the API, for rehearsing a run's wall time.
	// Fault injection's latency (Faults.Latency) adds to it. 0 → none.
	Latency time.Duration
}

const (
	defaultAccountRPM = 700
	defaultRouteRPS   = 40

	// bootstrapKeyName is the name the API key lists give the bootstrap key.
	bootstrapKeyName = "bootstrap"

	apiPrefix     = "/api/v2"
	controlPrefix = "/_emulator"
)

// Emulator is an http.Handler serving /api/v2/... and /_emulator/....
// It is safe for concurrent use.
type Emulator struct {
	opts         Options
	bootstrapKey string
	log          *slog.Logger

	mu          sync.Mutex // guards st, sharedOAuth and keyUse
	st          *state
	sharedOAuth []string         // OAuth provider ids with shared keys; none: all
	keyUse      map[int64]keyUse // the last use of each key, by id (not part of the state)

	seedMu sync.Mutex // guards opts.Seed

	api     *http.ServeMux // the routes under /api/v2, without that prefix
	control *http.ServeMux // the control surface
	limiter *rateLimiter
	faults  *faultInjector
	stats   *statsRecorder
}

// newEmulator builds an emulator without its routes (see New): its limits,
// and its state, loaded from Options.StateFile when that file exists.
func newEmulator(opts Options) (*Emulator, error) {
	if opts.SeedProjects < 0 {
		return nil, errors.New("emulator: SeedProjects must not be negative")
	}
	opts.SeedProjects = cmp.Or(opts.SeedProjects, 1)
	opts.AccountRequestsPerMinute = cmp.Or(opts.AccountRequestsPerMinute, defaultAccountRPM)
	opts.RouteRequestsPerSecond = cmp.Or(opts.RouteRequestsPerSecond, defaultRouteRPS)
	reading, err := ParseRateLimitReading(string(opts.RateLimitReading))
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	// The API reference decides the defaults of the settings; it is read
	// once per process, before the first request rather than during it.
	if _, err := referenceSettingDefaults(); err != nil {
		return nil, err
	}
	e := &Emulator{
		opts:    opts,
		log:     cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)),
		limiter: newRateLimiter(reading, opts.AccountRequestsPerMinute, opts.RouteRequestsPerSecond, time.Now),
		faults:  newFaultInjector(),
		stats:   newStatsRecorder(),
		keyUse:  map[int64]keyUse{},
	}
	if opts.StateFile != "" {
		if e.st, err = loadState(opts.StateFile); err != nil {
			return nil, err
		}
	}
	if e.st == nil {
		e.st = e.initialState()
	}
	e.bootstrapKey = cmp.Or(opts.BootstrapKey, newAPIKeyToken())
	e.st.ensureKey(e.bootstrapKey, KeyPersonal, "", bootstrapKeyName, now())
	if err := e.saveLocked(); err != nil {
		return nil, err
	}
	return e, nil
}

// dataAPIBootTime is how long a new Data API boots.
func (e *Emulator) dataAPIBootTime() time.Duration {
	switch d := e.opts.DataAPIBootTime; {
	case d == 0:
		return defaultDataAPIBootTime
	case d < 0:
		return 0
	default:
		return d
	}
}

// initialState is the state of a fresh start: the seed, or SeedProjects
// projects.
func (e *Emulator) initialState() *state {
	e.seedMu.Lock()
	seed := e.opts.Seed
	e.seedMu.Unlock()
	if seed != nil {
		return seedState(seed, now())
	}
	st := newState()
	for i := 1; i <= e.opts.SeedProjects; i++ {
		st.addProject(fmt.Sprintf("seed-project-%d", i), now())
	}
	return st
}

// Reset replaces the whole state with the starting one (the seed, or the
// start projects), keeping the bootstrap key. Keys created since are gone.
func (e *Emulator) Reset() error {
	st := e.initialState()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.st = st
	e.keyUse = map[int64]keyUse{}
	e.st.ensureKey(e.bootstrapKey, KeyPersonal, "", bootstrapKeyName, now())
	return e.saveLocked()
}

// LoadSeed makes s the starting state and resets to it.
func (e *Emulator) LoadSeed(s *Seed) error {
	e.seedMu.Lock()
	e.opts.Seed = s
	e.seedMu.Unlock()
	return e.Reset()
}

// BootstrapKey returns the token of the admin's personal key.
func (e *Emulator) BootstrapKey() string { return e.bootstrapKey }

// Close writes the state file (if any). The emulator stays usable.
func (e *Emulator) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.saveLocked()
}

// saveLocked persists the state if a state file is configured. e.mu must be held.
func (e *Emulator) saveLocked() error {
	if e.opts.StateFile == "" {
		return nil
	}
	data, err := json.MarshalIndent(e.st, "", "  ")
	if err == nil {
		err = WriteFileAtomic(e.opts.StateFile, data)
	}
	if err != nil {
		return fmt.Errorf("emulator: save state: %w", err)
	}
	return nil
}
