package emulator

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The control surface, under /_emulator/, drives the emulator from tests and
// scripts. It needs no API key, is never rate limited or faulted, and is not
// counted in Stats. Bodies are JSON; errors use the API's error format. With
// Options.ControlToken set, every request must carry
// "Authorization: Bearer <control token>"; without it, or with another
// token, it is refused with 401.
//
//	GET  /_emulator/healthz                      → 200 {"status":"ok","base_url":"..."} (needs no control token)
//	POST /_emulator/reset                        → 204; the state goes back to the seed (or the start projects)
//	PUT  /_emulator/seed <seed, HCL or JSON>     → 204; the seed becomes the start and the state is reset to it
//	POST /_emulator/keys {"type":"personal|organization|project","project_id":"..."}
//	                                              → 201 {"key":"<token>"}
//	POST /_emulator/keys/revoke {"key":"<token>"} → 204
//	POST /_emulator/projects {"name":"..."}       → 201 <Project object, as in GET /projects>
//	POST /_emulator/projects/{project_id}/branches {"name":"...","parent_id":"...","init_source":"...","domains":["https://..."]}
//	                                              → 201 {"branch":<Branch>,"neon_auth":<its Neon Auth, secrets masked, or null>}
//	                                                 (a branch as the API creates it, with domains pre-set on the
//	                                                 Neon Auth it inherits, as the Vercel integration does)
//	POST /_emulator/transfer/confirm {"project_id":"...","auth_provider":"stack"} → 204
//	GET  /_emulator/faults                        → 200 <faults>
//	PUT  /_emulator/faults <faults>               → 200 <faults, defaults filled in>
//	GET  /_emulator/stats                         → 200 {"requests":{"GET /projects":{"200":3}},"total":3,"faults":0,"lost":0,"rate_limited":0}
//	POST /_emulator/stats/reset                   → 204
//	GET  /_emulator/state                         → 200 state dump; every secret shows as "(set)" or ""
//	GET  /_emulator/projects/{project_id}/users_sync → 200 {"rows":[{"id","email","name","created_at"}]}
//
// <faults> is {"rate":0.1,"statuses":[500,503],"retry_after":"2s",
// "lost_response_rate":0.05,"latency":"20ms","routes":["POST /projects/auth/create"],
// "no_loss_routes":["POST /projects/auth/user"],"seed":1}.
// Durations are Go duration strings ("1.5s", "250ms") or integer
// milliseconds (250). Omitted fields take their zero value (PUT replaces the
// whole configuration).

// controlRoutes are the endpoints of the control surface, as ServeMux
// patterns.
func (e *Emulator) controlRoutes() *http.ServeMux {
	mux := http.NewServeMux()
	for pattern, h := range map[string]func(http.ResponseWriter, *http.Request) error{
		"GET /healthz":                          e.controlHealthz,
		"POST /keys":                            e.controlCreateKey,
		"POST /keys/revoke":                     e.controlRevokeKey,
		"POST /projects":                        e.controlCreateProject,
		"POST /projects/{project_id}/branches":  e.controlCreateBranch,
		"GET /projects/{project_id}/users_sync": e.controlUsersSync,
		"POST /transfer/confirm":                e.controlConfirmTransfer,
		"GET /faults":                           e.controlFaults,
		"PUT /faults":                           e.controlSetFaults,
		"GET /stats":                            e.controlStats,
		"POST /stats/reset":                     e.controlResetStats,
		"GET /state":                            e.controlState,
		"POST /reset":                           e.controlReset,
		"PUT /seed":                             e.controlSeed,
	} {
		mux.HandleFunc(strings.Replace(pattern, " ", " "+controlPrefix, 1), func(w http.ResponseWriter, r *http.Request) {
			err := h(w, r)
			var ae *apiError
			if err != nil && !errors.As(err, &ae) {
				ae = &apiError{status: http.StatusInternalServerError, msg: err.Error()}
			}
			if ae != nil {
				writeError(w, w.Header().Get("X-Request-Id"), ae)
			}
		})
	}
	return mux
}

// serveControl serves a request of the control surface: 401 without the
// control token (but for the health check), 404 or 405 where no endpoint
// takes it. A trailing slash is ignored.
func (e *Emulator) serveControl(w http.ResponseWriter, r *http.Request, reqID string) {
	// Health tells nothing secret, and container health checks have no token.
	open := r.URL.Path == controlPrefix+"/healthz" && r.Method == http.MethodGet
	if !open && !e.controlAuthorized(r) {
		writeError(w, reqID, errControlUnauthorized)
		return
	}
	if p := strings.TrimSuffix(r.URL.Path, "/"); p != r.URL.Path {
		r = r.Clone(r.Context())
		r.URL.Path, r.URL.RawPath = p, ""
	}
	if _, pattern := e.control.Handler(r); pattern == "" {
		noRoute(e.control, w, r, reqID)
		return
	}
	e.control.ServeHTTP(w, r)
}

var errControlUnauthorized = &apiError{status: http.StatusUnauthorized,
	msg: "authorization failed: the control surface needs the control token as a bearer token: the one the emulator was " +
		"started with (-control-token or NEON_EMULATOR_CONTROL_TOKEN), or the one it generated, printed as " +
		"NEON_EMULATOR_CONTROL_TOKEN=... on stdout and wrote to the -ready-file"}

// controlAuthorized checks the control token, in constant time.
func (e *Emulator) controlAuthorized(r *http.Request) bool {
	if e.opts.ControlToken == "" {
		return true
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(e.opts.ControlToken)) == 1
}

// decodeControl decodes a JSON body strictly into v.
func decodeControl(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &apiError{status: http.StatusBadRequest, msg: "invalid JSON body: " + err.Error()}
	}
	return nil
}

// goAPIError maps an error of the Go API to a status.
func goAPIError(err error) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return &apiError{status: http.StatusNotFound, msg: err.Error()}
	case errors.Is(err, ErrConflict):
		return &apiError{status: http.StatusConflict, msg: err.Error()}
	case errors.Is(err, ErrInvalid):
		return &apiError{status: http.StatusBadRequest, msg: err.Error()}
	}
	return err
}

func (e *Emulator) controlHealthz(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "base_url": e.opts.BaseURL})
	return nil
}

func (e *Emulator) controlCreateKey(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Type      KeyKind `json:"type"`
		ProjectID string  `json:"project_id"`
	}
	if err := decodeControl(w, r, &req); err != nil {
		return err
	}
	token, err := e.CreateKey(req.Type, req.ProjectID)
	if err != nil {
		return goAPIError(err)
	}
	writeJSON(w, http.StatusCreated, map[string]string{"key": token})
	return nil
}

func (e *Emulator) controlRevokeKey(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Key string `json:"key"`
	}
	if err := decodeControl(w, r, &req); err != nil {
		return err
	}
	if err := e.RevokeKey(req.Key); err != nil {
		return goAPIError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (e *Emulator) controlCreateProject(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Name string `json:"name"`
	}
	if err := decodeControl(w, r, &req); err != nil {
		return err
	}
	p, err := e.CreateProject(req.Name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, p)
	return nil
}

func (e *Emulator) controlCreateBranch(w http.ResponseWriter, r *http.Request) error {
	projectID := r.PathValue("project_id")
	var req struct {
		Name       string   `json:"name"`
		ParentID   string   `json:"parent_id"`
		InitSource string   `json:"init_source"`
		Domains    []string `json:"domains"`
	}
	if err := decodeControl(w, r, &req); err != nil {
		return err
	}
	b, err := e.CreateBranch(projectID, BranchOptions{Name: req.Name, ParentID: req.ParentID, InitSource: req.InitSource, Domains: req.Domains})
	if err != nil {
		return goAPIError(err)
	}
	out := map[string]any{"branch": newBranchView(&b), "neon_auth": nil}
	if a, ok := e.BranchAuth(projectID, b.ID); ok {
		out["neon_auth"] = maskedAuth(&a)
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

func (e *Emulator) controlConfirmTransfer(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		ProjectID    string `json:"project_id"`
		AuthProvider string `json:"auth_provider"`
	}
	if err := decodeControl(w, r, &req); err != nil {
		return err
	}
	if req.AuthProvider == "" {
		req.AuthProvider = authProviderStack
	}
	if err := e.ConfirmTransfer(req.ProjectID, req.AuthProvider); err != nil {
		return goAPIError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (e *Emulator) controlReset(w http.ResponseWriter, _ *http.Request) error {
	if err := e.Reset(); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// controlSeed loads a seed sent as the body: JSON when it starts with "{",
// HCL otherwise. Its mistakes come back as a 400 naming each line.
func (e *Emulator) controlSeed(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return &apiError{status: http.StatusBadRequest, msg: "reading the seed: " + err.Error()}
	}
	name := "seed.hcl"
	if strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
		name = "seed.json"
	}
	s, err := ParseSeed(name, body)
	if err != nil {
		return &apiError{status: http.StatusBadRequest, msg: err.Error()}
	}
	if err := e.LoadSeed(s); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (e *Emulator) controlStats(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, e.Stats())
	return nil
}

func (e *Emulator) controlResetStats(w http.ResponseWriter, _ *http.Request) error {
	e.ResetStats()
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (e *Emulator) controlUsersSync(w http.ResponseWriter, r *http.Request) error {
	projectID := r.PathValue("project_id")
	e.mu.Lock()
	exists := e.st.project(projectID) != nil
	e.mu.Unlock()
	if !exists {
		return errProjectNotFound
	}
	rows := e.UsersSync(projectID)
	if rows == nil {
		rows = []UserRow{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"rows": rows})
	return nil
}

// faultsJSON is the wire form of Faults on the control surface.
type faultsJSON struct {
	Rate             float64      `json:"rate"`
	Statuses         []int        `json:"statuses"`
	RetryAfter       jsonDuration `json:"retry_after"`
	LostResponseRate float64      `json:"lost_response_rate"`
	Latency          jsonDuration `json:"latency"`
	Routes           []string     `json:"routes"`
	NoLossRoutes     []string     `json:"no_loss_routes,omitempty"`
	Seed             int64        `json:"seed"`
}

func faultsToJSON(f Faults) faultsJSON {
	return faultsJSON{
		Rate: f.Rate, Statuses: f.Statuses, RetryAfter: jsonDuration(f.RetryAfter),
		LostResponseRate: f.LostResponseRate, Latency: jsonDuration(f.Latency), Routes: f.Routes, NoLossRoutes: f.NoLossRoutes, Seed: f.Seed,
	}
}

func (e *Emulator) controlFaults(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, faultsToJSON(e.CurrentFaults()))
	return nil
}

func (e *Emulator) controlSetFaults(w http.ResponseWriter, r *http.Request) error {
	var req faultsJSON
	if err := decodeControl(w, r, &req); err != nil {
		return err
	}
	if req.Rate < 0 || req.Rate > 1 || req.LostResponseRate < 0 || req.LostResponseRate > 1 {
		return &apiError{status: http.StatusBadRequest, msg: "rate and lost_response_rate must be from 0 to 1"}
	}
	for _, s := range req.Statuses {
		if s < 400 || s > 599 {
			return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf("statuses: %d is not an error status", s)}
		}
	}
	e.SetFaults(Faults{
		Rate: req.Rate, Statuses: req.Statuses, RetryAfter: time.Duration(req.RetryAfter),
		LostResponseRate: req.LostResponseRate, Latency: time.Duration(req.Latency), Routes: req.Routes, NoLossRoutes: req.NoLossRoutes, Seed: req.Seed,
	})
	writeJSON(w, http.StatusOK, faultsToJSON(e.CurrentFaults()))
	return nil
}

// jsonDuration reads a Go duration string or integer milliseconds and writes
// a duration string.
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = 0
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("invalid duration %q", s)
		}
		*d = jsonDuration(v)
		return nil
	}
	ms, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("duration must be a string like \"1.5s\" or integer milliseconds")
	}
	*d = jsonDuration(time.Duration(ms) * time.Millisecond)
	return nil
}

// The state dump masks secrets: a secret shows as "(set)" when it has a
// value, "" otherwise. API key tokens are never shown.
const maskSet = "(set)"

func mask(s string) string {
	if s == "" {
		return ""
	}
	return maskSet
}

type stateDump struct {
	OrgID    string        `json:"org_id"`
	OwnerID  string        `json:"owner_id"`
	Keys     []keyDump     `json:"keys"`
	Projects []projectDump `json:"projects"`
}

type keyDump struct {
	Kind      KeyKind   `json:"kind"`
	ProjectID string    `json:"project_id,omitempty"`
	Revoked   bool      `json:"revoked"`
	CreatedAt time.Time `json:"created_at"`
}

type projectDump struct {
	Project  Project      `json:"project"`
	Branches []branchDump `json:"branches"`
}

// branchDump is a branch with its Neon Auth (null when not enabled).
type branchDump struct {
	Branch
	NeonAuth *authDump `json:"neon_auth"`
}

type authDump struct {
	BranchAuth
	TransferPending bool `json:"transfer_pending"`
}

// maskedAuth is a copy of a with every secret masked.
func maskedAuth(a *BranchAuth) *authDump {
	d := &authDump{BranchAuth: a.clone(), TransferPending: a.TransferStatus == transferInitiated}
	d.TransferCode = ""
	d.PubClientKey = mask(d.PubClientKey)
	d.SecretServerKey = mask(d.SecretServerKey)
	if d.EmailProvider != nil {
		d.EmailProvider.Password = mask(d.EmailProvider.Password)
	}
	for i := range d.OAuthProviders {
		d.OAuthProviders[i].ClientSecret = mask(d.OAuthProviders[i].ClientSecret)
	}
	return d
}

func (e *Emulator) controlState(w http.ResponseWriter, _ *http.Request) error {
	e.mu.Lock()
	d := stateDump{OrgID: e.st.OrgID, OwnerID: e.st.OwnerID, Keys: []keyDump{}, Projects: []projectDump{}}
	for _, k := range e.st.Keys {
		d.Keys = append(d.Keys, keyDump{Kind: k.Kind, ProjectID: k.ProjectID, Revoked: k.Revoked, CreatedAt: k.CreatedAt})
	}
	for _, p := range e.st.Projects {
		pd := projectDump{Project: p.Project, Branches: []branchDump{}}
		for _, b := range p.Branches {
			bd := branchDump{Branch: b.Branch}
			if b.Auth != nil {
				bd.NeonAuth = maskedAuth(b.Auth)
			}
			pd.Branches = append(pd.Branches, bd)
		}
		d.Projects = append(d.Projects, pd)
	}
	// Marshal while holding the lock: the dump shares slices with the state.
	b, err := json.Marshal(d)
	e.mu.Unlock()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b, '\n'))
	return nil
}
