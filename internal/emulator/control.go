package emulator

import (
	"cmp"
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

// controlFunc serves a request of the control surface: the status and body
// of its answer (nil: no body), or an error; one of the Go API's errors
// (ErrNotFound, ErrConflict, ErrInvalid) answers 404, 409 or 400.
type controlFunc func(r *http.Request) (int, any, error)

// controlRoutes are the endpoints of the control surface, as ServeMux
// patterns.
func (e *Emulator) controlRoutes() *http.ServeMux {
	mux := http.NewServeMux()
	for pattern, h := range map[string]controlFunc{
		"GET /healthz": func(*http.Request) (int, any, error) {
			return http.StatusOK, map[string]string{"status": "ok", "base_url": e.opts.BaseURL}, nil
		},
		"POST /keys":                            e.controlCreateKey,
		"POST /keys/revoke":                     e.controlRevokeKey,
		"POST /projects":                        e.controlCreateProject,
		"POST /projects/{project_id}/branches":  e.controlCreateBranch,
		"GET /projects/{project_id}/users_sync": e.controlUsersSync,
		"POST /transfer/confirm":                e.controlConfirmTransfer,
		"GET /faults":                           e.controlFaults,
		"PUT /faults":                           e.controlSetFaults,
		"GET /stats":                            func(*http.Request) (int, any, error) { return http.StatusOK, e.Stats(), nil },
		"POST /stats/reset": func(*http.Request) (int, any, error) {
			e.ResetStats()
			return http.StatusNoContent, nil, nil
		},
		"GET /state":  e.controlState,
		"POST /reset": func(*http.Request) (int, any, error) { return http.StatusNoContent, nil, e.Reset() },
		"PUT /seed":   e.controlSeed,
	} {
		mux.HandleFunc(strings.Replace(pattern, " ", " "+controlPrefix, 1), func(w http.ResponseWriter, r *http.Request) {
			status, body, err := h(r)
			switch {
			case err != nil:
				writeError(w, w.Header().Get("X-Request-Id"), controlError(err))
			case body == nil:
				w.WriteHeader(status)
			default:
				writeJSON(w, status, body)
			}
		})
	}
	return mux
}

// controlError is the answer to an error of the control surface.
func controlError(err error) *apiError {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, ErrNotFound):
		return notFound("%v", err)
	case errors.Is(err, ErrConflict):
		return conflict("%v", err)
	case errors.Is(err, ErrInvalid):
		return &apiError{status: http.StatusBadRequest, msg: err.Error()}
	}
	return &apiError{status: http.StatusInternalServerError, msg: err.Error()}
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
	token, ok := bearerToken(r)
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(e.opts.ControlToken)) == 1
}

// decodeControl decodes a JSON body strictly into v.
func decodeControl(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &apiError{status: http.StatusBadRequest, msg: "invalid JSON body: " + err.Error()}
	}
	return nil
}

func (e *Emulator) controlCreateKey(r *http.Request) (int, any, error) {
	var req struct {
		Type      KeyKind `json:"type"`
		ProjectID string  `json:"project_id"`
	}
	if err := decodeControl(r, &req); err != nil {
		return 0, nil, err
	}
	token, err := e.CreateKey(req.Type, req.ProjectID)
	return http.StatusCreated, map[string]string{"key": token}, err
}

func (e *Emulator) controlRevokeKey(r *http.Request) (int, any, error) {
	var req struct {
		Key string `json:"key"`
	}
	if err := decodeControl(r, &req); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, e.RevokeKey(req.Key)
}

func (e *Emulator) controlCreateProject(r *http.Request) (int, any, error) {
	var req struct {
		Name string `json:"name"`
	}
	if err := decodeControl(r, &req); err != nil {
		return 0, nil, err
	}
	p, err := e.CreateProject(req.Name)
	return http.StatusCreated, p, err
}

func (e *Emulator) controlCreateBranch(r *http.Request) (int, any, error) {
	projectID := r.PathValue("project_id")
	var o BranchOptions
	if err := decodeControl(r, &o); err != nil {
		return 0, nil, err
	}
	b, err := e.CreateBranch(projectID, o)
	if err != nil {
		return 0, nil, err
	}
	out := map[string]any{"branch": newBranchView(&b), "neon_auth": nil}
	if a, ok := e.BranchAuth(projectID, b.ID); ok {
		out["neon_auth"] = maskedAuth(&a)
	}
	return http.StatusCreated, out, nil
}

func (e *Emulator) controlConfirmTransfer(r *http.Request) (int, any, error) {
	var req struct {
		ProjectID    string `json:"project_id"`
		AuthProvider string `json:"auth_provider"`
	}
	if err := decodeControl(r, &req); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, e.ConfirmTransfer(req.ProjectID, cmp.Or(req.AuthProvider, authProviderStack))
}

// controlSeed loads a seed sent as the body: JSON when it starts with "{",
// HCL otherwise. Its mistakes come back as a 400 naming each line.
func (e *Emulator) controlSeed(r *http.Request) (int, any, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBodyBytes))
	if err != nil {
		return 0, nil, &apiError{status: http.StatusBadRequest, msg: "reading the seed: " + err.Error()}
	}
	name := "seed.hcl"
	if strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
		name = "seed.json"
	}
	s, err := ParseSeed(name, body)
	if err != nil {
		return 0, nil, &apiError{status: http.StatusBadRequest, msg: err.Error()}
	}
	return http.StatusNoContent, nil, e.LoadSeed(s)
}

func (e *Emulator) controlUsersSync(r *http.Request) (int, any, error) {
	projectID := r.PathValue("project_id")
	if _, err := e.DefaultBranchID(projectID); err != nil {
		return 0, nil, errProjectNotFound
	}
	return http.StatusOK, map[string]any{"rows": orEmpty(e.UsersSync(projectID))}, nil
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

func (e *Emulator) controlFaults(*http.Request) (int, any, error) {
	f := e.CurrentFaults()
	return http.StatusOK, faultsJSON{Rate: f.Rate, Statuses: f.Statuses, RetryAfter: jsonDuration(f.RetryAfter), LostResponseRate: f.LostResponseRate,
		Latency: jsonDuration(f.Latency), Routes: f.Routes, NoLossRoutes: f.NoLossRoutes, Seed: f.Seed}, nil
}

func (e *Emulator) controlSetFaults(r *http.Request) (int, any, error) {
	var req faultsJSON
	if err := decodeControl(r, &req); err != nil {
		return 0, nil, err
	}
	if req.Rate < 0 || req.Rate > 1 || req.LostResponseRate < 0 || req.LostResponseRate > 1 {
		return 0, nil, &apiError{status: http.StatusBadRequest, msg: "rate and lost_response_rate must be from 0 to 1"}
	}
	for _, s := range req.Statuses {
		if s < 400 || s > 599 {
			return 0, nil, &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf("statuses: %d is not an error status", s)}
		}
	}
	e.SetFaults(Faults{Rate: req.Rate, Statuses: req.Statuses, RetryAfter: time.Duration(req.RetryAfter), LostResponseRate: req.LostResponseRate,
		Latency: time.Duration(req.Latency), Routes: req.Routes, NoLossRoutes: req.NoLossRoutes, Seed: req.Seed})
	return e.controlFaults(r)
}

// jsonDuration reads a Go duration string or integer milliseconds and writes
// a duration string.
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var s string
	if string(b) == "null" {
		*d = 0
	} else if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("invalid duration %q", s)
		}
		*d = jsonDuration(v)
	} else if ms, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*d = jsonDuration(time.Duration(ms) * time.Millisecond)
	} else {
		return fmt.Errorf("duration must be a string like \"1.5s\" or integer milliseconds")
	}
	return nil
}

// maskSet shows a secret that has a value in the state dump; one without
// shows as "".
const maskSet = "(set)"

func mask(s string) string {
	if s == "" {
		return ""
	}
	return maskSet
}

// authDump is a branch's Neon Auth in the state dump.
type authDump struct {
	BranchAuth
	TransferPending bool `json:"transfer_pending"`
}

// maskedAuth is a copy of a with every secret masked.
func maskedAuth(a *BranchAuth) *authDump {
	d := &authDump{BranchAuth: a.clone(), TransferPending: a.TransferStatus == transferInitiated}
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

// controlState dumps the state: every secret masked, API keys without
// their tokens' hashes, and each branch with its Neon Auth (null when not
// enabled).
func (e *Emulator) controlState(*http.Request) (int, any, error) {
	type branchDump struct {
		Branch
		NeonAuth *authDump `json:"neon_auth"`
	}
	type projectDump struct {
		Project  Project      `json:"project"`
		Branches []branchDump `json:"branches"`
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	d := struct {
		OrgID    string        `json:"org_id"`
		OwnerID  string        `json:"owner_id"`
		Keys     []apiKey      `json:"keys"`
		Projects []projectDump `json:"projects"`
	}{OrgID: e.st.OrgID, OwnerID: e.st.OwnerID, Keys: []apiKey{}, Projects: []projectDump{}}
	for _, k := range e.st.Keys {
		d.Keys = append(d.Keys, apiKey{ID: k.ID, Name: k.Name, Kind: k.Kind, ProjectID: k.ProjectID, Revoked: k.Revoked, CreatedAt: k.CreatedAt})
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
	// Encoded now, under the lock: the dump shares slices with the state.
	return http.StatusOK, json.RawMessage(mustEncode(d)), nil
}
