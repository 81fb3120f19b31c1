package emulator

import (
	"cmp"
	"errors"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// The routes of the platform API v2 the emulator serves, net/http.ServeMux
// patterns under /api/v2, and the way every request takes to its handler.

// apiRoute is one API endpoint. Its key, "METHOD /template", is its ServeMux
// pattern and names it in Stats, Faults.Routes and the rate limiter.
type apiRoute struct {
	key     string
	handler handlerFunc
}

// unmatchedRoute is the key of requests that no route takes.
const unmatchedRoute = "unmatched"

// apiRoutes lists every endpoint served under /api/v2: projects (with their
// operations and the accounts they are shared with), API keys, branches,
// their computes, databases (with their Data APIs) and roles, the JWKS a
// project trusts (databaseRoutes); Neon Auth in both families (see
// request_target.go), with its list-backed kinds (listedRoutes); and each
// Better Auth setting of internal/apispec/betterauth at its own path, with
// GET where the reference reads it.
func apiRoutes() []apiRoute {
	const p, br = "/projects/{project_id}", "/projects/{project_id}/branches/{branch_id}"
	const auth = br + "/auth"
	routes := []apiRoute{
		{"GET /projects", (*Emulator).listProjects},
		{"POST /projects", (*Emulator).createProjectAPI},
		{"GET " + p, (*Emulator).getProject},
		{"PATCH " + p, (*Emulator).updateProject},
		{"DELETE " + p, (*Emulator).deleteProject},
		{"GET " + p + "/branches", (*Emulator).listBranches},
		{"POST " + p + "/branches", (*Emulator).createBranch},
		{"GET " + br, (*Emulator).getBranch},
		{"PATCH " + br, (*Emulator).updateBranch},
		{"DELETE " + br, (*Emulator).deleteBranch},
		{"GET " + p + "/operations", (*Emulator).listOperations},
		{"GET " + p + "/operations/{operation_id}", (*Emulator).getOperation},
		{"GET " + p + "/permissions", (*Emulator).listPermissions},
		{"POST " + p + "/permissions", (*Emulator).grantPermission},
		{"DELETE " + p + "/permissions/{permission_id}", (*Emulator).revokePermission},
		{"GET /api_keys", (*Emulator).listAPIKeys},
		{"POST /api_keys", (*Emulator).createAPIKey},
		{"DELETE /api_keys/{key_id}", (*Emulator).revokeAPIKey},
		{"GET /organizations/{org_id}/api_keys", (*Emulator).listOrgAPIKeys},
		{"POST /organizations/{org_id}/api_keys", (*Emulator).createOrgAPIKey},
		{"DELETE /organizations/{org_id}/api_keys/{key_id}", (*Emulator).revokeOrgAPIKey},
	}
	routes = append(routes, databaseRoutes(p, br)...)
	routes = append(routes, []apiRoute{
		{"POST /projects/auth/create", (*Emulator).enableAuth},
		{"GET " + p + "/auth/integrations", (*Emulator).listIntegrations},
		{"POST /projects/auth/keys", (*Emulator).createSDKKeys},
		{"DELETE " + p + "/auth/integration/{auth_provider}", (*Emulator).disableAuth},
		{"POST /projects/auth/user", (*Emulator).createUser},
		{"DELETE " + p + "/auth/users/{auth_user_id}", (*Emulator).deleteUser},
		{"POST /projects/auth/transfer_ownership", (*Emulator).transferOwnership},
		{"GET " + p + "/auth/email_server", (*Emulator).getEmailProvider},
		{"PATCH " + p + "/auth/email_server", (*Emulator).updateEmailProvider},
	}...)
	routes = append(routes, listedRoutes(p+"/auth", true)...)
	routes = append(routes, listedRoutes(auth, false)...)
	routes = append(routes, []apiRoute{
		{"GET " + auth, (*Emulator).getAuth},
		{"POST " + auth, (*Emulator).enableAuth},
		{"DELETE " + auth, (*Emulator).disableAuth},
		{"GET " + auth + "/email_provider", (*Emulator).getEmailProvider},
		{"PATCH " + auth + "/email_provider", (*Emulator).updateEmailProvider},
		{"POST " + auth + "/email_provider/test", (*Emulator).testEmailProvider},
		{"POST " + auth + "/send_test_email", (*Emulator).sendTestEmail},
		{"POST " + auth + "/users", (*Emulator).createUser},
		{"DELETE " + auth + "/users/{auth_user_id}", (*Emulator).deleteUser},
		{"PUT " + auth + "/users/{auth_user_id}/role", (*Emulator).setUserRoles},
		{"GET " + auth + "/allow_localhost", (*Emulator).getAllowLocalhost},
		{"PATCH " + auth + "/allow_localhost", (*Emulator).updateAllowLocalhost},
		{"PATCH " + auth + "/config", (*Emulator).updateConfig},
		{"GET " + auth + "/plugins", (*Emulator).getPlugins},
	}...)
	for _, st := range betterauth.Settings {
		if st.Read {
			routes = append(routes, apiRoute{"GET " + auth + "/" + st.Path, readSetting(st)})
		}
		routes = append(routes, apiRoute{st.Write + " " + auth + "/" + st.Path, writeSetting(st)})
	}
	return routes
}

// databaseRoutes are the endpoints of a project's computes, its branches'
// databases (with their Data APIs) and roles, and the JWKS it trusts; p and br
// are the templates of the project's and the branch's paths.
func databaseRoutes(p, br string) []apiRoute {
	return []apiRoute{
		{"GET " + p + "/endpoints", (*Emulator).listProjectEndpoints},
		{"POST " + p + "/endpoints", (*Emulator).createEndpoint},
		{"GET " + p + "/endpoints/{endpoint_id}", (*Emulator).getEndpoint},
		{"PATCH " + p + "/endpoints/{endpoint_id}", (*Emulator).updateEndpoint},
		{"DELETE " + p + "/endpoints/{endpoint_id}", (*Emulator).deleteEndpoint},
		{"GET " + br + "/endpoints", (*Emulator).listBranchEndpoints},
		{"GET " + br + "/databases", (*Emulator).listDatabases},
		{"POST " + br + "/databases", (*Emulator).createDatabase},
		{"GET " + br + "/databases/{database_name}", (*Emulator).getDatabase},
		{"PATCH " + br + "/databases/{database_name}", (*Emulator).updateDatabase},
		{"DELETE " + br + "/databases/{database_name}", (*Emulator).deleteDatabase},
		{"GET " + br + "/data-api/{database_name}", (*Emulator).getDataAPI},
		{"POST " + br + "/data-api/{database_name}", (*Emulator).createDataAPI},
		{"PATCH " + br + "/data-api/{database_name}", (*Emulator).updateDataAPI},
		{"DELETE " + br + "/data-api/{database_name}", (*Emulator).deleteDataAPI},
		{"GET " + p + "/jwks", (*Emulator).listJWKS},
		{"POST " + p + "/jwks", (*Emulator).addJWKS},
		{"DELETE " + p + "/jwks/{jwks_id}", (*Emulator).deleteJWKS},
		{"GET " + br + "/roles", (*Emulator).listRoles},
		{"POST " + br + "/roles", (*Emulator).createRole},
		{"GET " + br + "/roles/{role_name}", (*Emulator).getRole},
		{"DELETE " + br + "/roles/{role_name}", (*Emulator).deleteRole},
		{"GET " + br + "/roles/{role_name}/reveal_password", (*Emulator).revealRolePassword},
	}
}

// New builds an emulator. With Options.StateFile set and the file present,
// the state is loaded from it; otherwise the seed projects are created.
func New(opts Options) (*Emulator, error) {
	// The API reference decides requests; it is read once per process,
	// before the first request rather than during it.
	if _, err := referenceOperations(); err != nil {
		return nil, err
	}
	e, err := newEmulator(opts)
	if err != nil {
		return nil, err
	}
	e.api = http.NewServeMux()
	for _, rt := range apiRoutes() {
		e.api.HandleFunc(rt.key, func(w http.ResponseWriter, r *http.Request) {
			c, _ := w.(*call) // serveAPI hands its call to the mux as the writer
			c.r = r
			e.runHandler(rt.handler, c)
		})
	}
	e.control = e.controlRoutes()
	return e, nil
}

// ServeHTTP serves the API under /api/v2/ and the control surface under /_emulator/.
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqID := requestID(r)
	w.Header().Set("X-Request-Id", reqID)
	switch {
	case strings.HasPrefix(r.URL.Path, apiPrefix+"/"):
		r = r.Clone(r.Context())
		r.URL.Path, r.URL.RawPath = strings.TrimPrefix(r.URL.Path, apiPrefix), strings.TrimPrefix(r.URL.RawPath, apiPrefix)
		e.serveAPI(w, r, reqID)
	case r.URL.Path == controlPrefix || strings.HasPrefix(r.URL.Path, controlPrefix+"/"):
		e.serveControl(w, r, reqID)
	default:
		writeError(w, reqID, errNotFound)
	}
}

// serveAPI takes an API request (its path without /api/v2) through
// authentication (401), routing (404, 405), the rate limiter (429), fault
// injection and its handler, and counts it in Stats under its route.
func (e *Emulator) serveAPI(w http.ResponseWriter, r *http.Request, reqID string) {
	start := time.Now()
	if d := max(e.opts.Latency, 0) + e.faults.latency(); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	_, pattern := e.api.Handler(r)
	if path.Clean(r.URL.Path) != r.URL.Path { // the mux would redirect
		pattern = ""
	}
	sw := &StatusRecorder{ResponseWriter: w}
	c := &call{ResponseWriter: sw, r: r, reqID: reqID, route: cmp.Or(pattern, unmatchedRoute)}
	out := outcomeNormal
	var recorded sync.Once
	finish := func() {
		recorded.Do(func() {
			e.stats.record(c.route, sw.Status(), out)
			attrs := []any{"method", r.Method, "route", c.route, "status", sw.Status(),
				"request_id", reqID, "lost", out == outcomeLost, "duration", time.Since(start)}
			if c.route == unmatchedRoute {
				// No template names it: its path says what was asked for
				// (paths hold ids, never keys or secrets).
				attrs = append(attrs, "path", r.URL.EscapedPath())
			}
			e.log.Info("api request", attrs...)
		})
	}
	defer finish()

	key, ok := e.authenticate(r)
	switch {
	case !ok:
		writeError(sw, reqID, errUnauthorized)
		return
	case pattern == "":
		noRoute(e.api, sw, r, reqID)
		return
	}
	if ok, retry := e.limiter.allow(c.route); !ok {
		out = outcomeRateLimited
		writeError(sw, reqID, &apiError{status: http.StatusTooManyRequests, msg: "rate limit exceeded", retryAfter: retry})
		return
	}
	d := e.faults.decide(c.route, r.Method)
	if d.status != 0 {
		out = outcomeFault
		writeError(sw, reqID, faultError(d))
		return
	}
	c.key = key
	if d.lose {
		// Apply the request, then cut the connection before any byte of the
		// response is written.
		out = outcomeLost
		sw.ResponseWriter = &bufferedWriter{header: http.Header{}}
		e.api.ServeHTTP(c, r)
		finish() // count it before the client can observe the cut
		cutConnection(w)
		return
	}
	e.api.ServeHTTP(c, r)
}

// runHandler checks the query against the API reference and runs the
// route's handler, answering the error it returns.
func (e *Emulator) runHandler(h handlerFunc, c *call) {
	err := c.checkQuery()
	if err == nil {
		err = h(e, c)
	}
	if err == nil {
		return
	}
	var ae *apiError
	if !errors.As(err, &ae) {
		e.log.Error("internal error", "route", c.route, "request_id", c.reqID, "error", err.Error())
		ae = &apiError{status: http.StatusInternalServerError, msg: "internal server error"}
	}
	writeError(c, c.reqID, ae)
}

// authenticate checks the bearer token of r.
func (e *Emulator) authenticate(r *http.Request) (keyInfo, bool) {
	token, ok := bearerToken(r)
	if !ok {
		return keyInfo{}, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	k := e.st.key(token)
	if k == nil || k.Revoked {
		return keyInfo{}, false
	}
	e.noteKeyUse(k, r)
	return keyInfo{kind: k.Kind, projectID: k.ProjectID}, true
}
