package emulator

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// The routes of the platform API v2 the emulator serves, and how a request path
// finds its handler.

// handlerFunc handles one API request. It writes the success response itself
// and returns an *apiError (or any other error, answered with 500) on failure.
type handlerFunc func(e *Emulator, c *call) error

// route is one API endpoint. Its key, "METHOD /template", names it in Stats,
// Faults.Routes and the rate limiter.
type route struct {
	method   string
	template string
	segs     []string
	handler  handlerFunc
	key      string
}

// branchAuthRoutes is the prefix of the branch-scoped Neon Auth routes.
const branchAuthRoutes = "/projects/{project_id}/branches/{branch_id}/auth"

type router struct {
	routes []*route
}

// routeMatch is the result of matching a request against the routes.
type routeMatch struct {
	route  *route            // nil: no route for this method and path
	key    string            // route key; "unmatched" when no template matched
	params map[string]string // path parameters, unescaped
	allow  []string          // methods allowed on the path when route is nil
}

const unmatchedRoute = "unmatched"

func (rt *router) handle(method, template string, h handlerFunc) {
	rt.routes = append(rt.routes, &route{
		method:   method,
		template: template,
		segs:     strings.Split(strings.TrimPrefix(template, "/"), "/"),
		handler:  h,
		key:      method + " " + template,
	})
}

// newAPIRouter lists every endpoint served under /api/v2.
func newAPIRouter() *router {
	rt := &router{}
	// Projects and branches.
	rt.handle(http.MethodGet, "/projects", (*Emulator).listProjects)
	rt.handle(http.MethodPost, "/projects", (*Emulator).createProjectAPI)
	rt.handle(http.MethodGet, "/projects/{project_id}", (*Emulator).getProject)
	rt.handle(http.MethodPatch, "/projects/{project_id}", (*Emulator).updateProject)
	rt.handle(http.MethodDelete, "/projects/{project_id}", (*Emulator).deleteProject)
	rt.handle(http.MethodGet, "/projects/{project_id}/branches", (*Emulator).listBranches)
	rt.handle(http.MethodPost, "/projects/{project_id}/branches", (*Emulator).createBranch)
	rt.handle(http.MethodGet, "/projects/{project_id}/branches/{branch_id}", (*Emulator).getBranch)
	rt.handle(http.MethodPatch, "/projects/{project_id}/branches/{branch_id}", (*Emulator).updateBranch)
	rt.handle(http.MethodDelete, "/projects/{project_id}/branches/{branch_id}", (*Emulator).deleteBranch)

	rt.handleComputes() // compute endpoints, databases and roles

	// Neon Auth, project-level (internal/apispec/auth-api.md; deprecated,
	// acting on the production branch).
	rt.handle(http.MethodPost, "/projects/auth/create", (*Emulator).enableAuth)
	rt.handle(http.MethodGet, "/projects/{project_id}/auth/integrations", (*Emulator).listIntegrations)
	rt.handle(http.MethodPost, "/projects/auth/keys", (*Emulator).createSDKKeys)
	rt.handle(http.MethodDelete, "/projects/{project_id}/auth/integration/{auth_provider}", (*Emulator).disableAuth)
	rt.handle(http.MethodPost, "/projects/auth/user", (*Emulator).createUser)
	rt.handle(http.MethodDelete, "/projects/{project_id}/auth/users/{auth_user_id}", (*Emulator).deleteUser)
	rt.handle(http.MethodPost, "/projects/auth/transfer_ownership", (*Emulator).transferOwnership)
	rt.handle(http.MethodGet, "/projects/{project_id}/auth/oauth_providers", (*Emulator).listOAuthProviders)
	rt.handle(http.MethodPost, "/projects/{project_id}/auth/oauth_providers", (*Emulator).addOAuthProvider)
	rt.handle(http.MethodPatch, "/projects/{project_id}/auth/oauth_providers/{oauth_provider_id}", (*Emulator).updateOAuthProvider)
	rt.handle(http.MethodDelete, "/projects/{project_id}/auth/oauth_providers/{oauth_provider_id}", (*Emulator).deleteOAuthProvider)
	rt.handle(http.MethodGet, "/projects/{project_id}/auth/domains", (*Emulator).listDomains)
	rt.handle(http.MethodPost, "/projects/{project_id}/auth/domains", (*Emulator).addDomain)
	rt.handle(http.MethodDelete, "/projects/{project_id}/auth/domains", (*Emulator).deleteDomains)
	rt.handle(http.MethodGet, "/projects/{project_id}/auth/email_server", (*Emulator).getEmailProvider)
	rt.handle(http.MethodPatch, "/projects/{project_id}/auth/email_server", (*Emulator).updateEmailProvider)

	// Neon Auth, branch-scoped (internal/apispec/neon-api-v2-2026-07-13.openapi.json
	// with internal/apispec/overlays).
	rt.handle(http.MethodGet, branchAuthRoutes, (*Emulator).getAuth)
	rt.handle(http.MethodPost, branchAuthRoutes, (*Emulator).enableAuth)
	rt.handle(http.MethodDelete, branchAuthRoutes, (*Emulator).disableAuth)
	rt.handle(http.MethodGet, branchAuthRoutes+"/domains", (*Emulator).listDomains)
	rt.handle(http.MethodPost, branchAuthRoutes+"/domains", (*Emulator).addDomain)
	rt.handle(http.MethodDelete, branchAuthRoutes+"/domains", (*Emulator).deleteDomains)
	rt.handle(http.MethodGet, branchAuthRoutes+"/oauth_providers", (*Emulator).listOAuthProviders)
	rt.handle(http.MethodPost, branchAuthRoutes+"/oauth_providers", (*Emulator).addOAuthProvider)
	rt.handle(http.MethodPatch, branchAuthRoutes+"/oauth_providers/{oauth_provider_id}", (*Emulator).updateOAuthProvider)
	rt.handle(http.MethodDelete, branchAuthRoutes+"/oauth_providers/{oauth_provider_id}", (*Emulator).deleteOAuthProvider)
	rt.handle(http.MethodGet, branchAuthRoutes+"/email_provider", (*Emulator).getEmailProvider)
	rt.handle(http.MethodPatch, branchAuthRoutes+"/email_provider", (*Emulator).updateEmailProvider)
	rt.handle(http.MethodPost, branchAuthRoutes+"/email_provider/test", (*Emulator).testEmailProvider)
	rt.handle(http.MethodPost, branchAuthRoutes+"/send_test_email", (*Emulator).sendTestEmail)
	rt.handle(http.MethodPost, branchAuthRoutes+"/users", (*Emulator).createUser)
	rt.handle(http.MethodDelete, branchAuthRoutes+"/users/{auth_user_id}", (*Emulator).deleteUser)
	rt.handle(http.MethodPut, branchAuthRoutes+"/users/{auth_user_id}/role", (*Emulator).setUserRoles)
	rt.handle(http.MethodGet, branchAuthRoutes+"/allow_localhost", (*Emulator).getAllowLocalhost)
	rt.handle(http.MethodPatch, branchAuthRoutes+"/allow_localhost", (*Emulator).updateAllowLocalhost)
	rt.handle(http.MethodPatch, branchAuthRoutes+"/config", (*Emulator).updateConfig)

	// The Better Auth configuration surface: the settings of
	// internal/apispec/betterauth, each at its own path, and most of them
	// together in GET …/plugins.
	rt.handle(http.MethodGet, branchAuthRoutes+"/plugins", (*Emulator).getPlugins)
	rt.handleSettings()
	return rt
}

// handleSettings adds the routes of the Better Auth settings of
// internal/apispec/betterauth: GET where the reference reads a setting, and
// its PATCH or PUT.
func (rt *router) handleSettings() {
	type endpoint struct {
		method  string
		handler handlerFunc
	}
	for _, st := range betterauth.Settings {
		endpoints := []endpoint{{st.Write, writeSetting(st)}}
		if st.Read {
			endpoints = append([]endpoint{{http.MethodGet, readSetting(st)}}, endpoints...)
		}
		for _, ep := range endpoints {
			rt.handle(ep.method, branchAuthRoutes+"/"+st.Path, ep.handler)
		}
	}
}

// handleComputes adds the routes of compute endpoints, databases and roles:
// what the official Neon provider creates and reads beside projects and
// branches.
func (rt *router) handleComputes() {
	const br = "/projects/{project_id}/branches/{branch_id}"
	rt.handle(http.MethodGet, "/projects/{project_id}/endpoints", (*Emulator).listProjectEndpoints)
	rt.handle(http.MethodPost, "/projects/{project_id}/endpoints", (*Emulator).createEndpoint)
	rt.handle(http.MethodGet, "/projects/{project_id}/endpoints/{endpoint_id}", (*Emulator).getEndpoint)
	rt.handle(http.MethodPatch, "/projects/{project_id}/endpoints/{endpoint_id}", (*Emulator).updateEndpoint)
	rt.handle(http.MethodDelete, "/projects/{project_id}/endpoints/{endpoint_id}", (*Emulator).deleteEndpoint)
	rt.handle(http.MethodGet, br+"/endpoints", (*Emulator).listBranchEndpoints)
	rt.handle(http.MethodGet, br+"/databases", (*Emulator).listDatabases)
	rt.handle(http.MethodPost, br+"/databases", (*Emulator).createDatabase)
	rt.handle(http.MethodGet, br+"/databases/{database_name}", (*Emulator).getDatabase)
	rt.handle(http.MethodPatch, br+"/databases/{database_name}", (*Emulator).updateDatabase)
	rt.handle(http.MethodDelete, br+"/databases/{database_name}", (*Emulator).deleteDatabase)
	rt.handle(http.MethodGet, br+"/roles", (*Emulator).listRoles)
	rt.handle(http.MethodPost, br+"/roles", (*Emulator).createRole)
	rt.handle(http.MethodGet, br+"/roles/{role_name}", (*Emulator).getRole)
	rt.handle(http.MethodDelete, br+"/roles/{role_name}", (*Emulator).deleteRole)
	rt.handle(http.MethodGet, br+"/roles/{role_name}/reveal_password", (*Emulator).revealRolePassword)
}

// match finds the route for method and escaped path. Among templates matching
// the path, the one with the most literal segments wins.
func (rt *router) match(method, escapedPath string) routeMatch {
	segs := strings.Split(strings.TrimPrefix(escapedPath, "/"), "/")
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil {
			return routeMatch{key: unmatchedRoute}
		}
		segs[i] = u
	}
	var best *route
	var bestParams map[string]string
	bestLiterals := -1
	var allow []string
	for _, r := range rt.routes {
		params, literals, ok := r.matchPath(segs)
		if !ok {
			continue
		}
		if r.method != method {
			if !slices.Contains(allow, r.method) {
				allow = append(allow, r.method)
			}
			continue
		}
		if literals > bestLiterals {
			best, bestParams, bestLiterals = r, params, literals
		}
	}
	if best == nil {
		key := unmatchedRoute
		slices.Sort(allow)
		return routeMatch{key: key, allow: allow}
	}
	return routeMatch{route: best, key: best.key, params: bestParams}
}

func (r *route) matchPath(segs []string) (params map[string]string, literals int, ok bool) {
	if len(segs) != len(r.segs) {
		return nil, 0, false
	}
	for i, t := range r.segs {
		if strings.HasPrefix(t, "{") {
			if segs[i] == "" {
				return nil, 0, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[strings.Trim(t, "{}")] = segs[i]
			continue
		}
		if segs[i] != t {
			return nil, 0, false
		}
		literals++
	}
	return params, literals, true
}
