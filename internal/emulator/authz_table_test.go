package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Authorization, specified as a table: every API route the router serves,
// called with every kind of key, ends in exactly one outcome class.
//
//   - allowed: a 2xx. Every call is set up so that it would succeed (the
//     integration, user, OAuth provider and domain it names exist), so any
//     other status can only come from authentication or scope.
//   - 401: no header, an unknown key or a revoked key — before routing, body
//     validation or anything else.
//   - 403: a project-scoped key creating or deleting a project.
//   - 404 "project not found": a project-scoped key naming another project, in
//     the path or in the body's project_id — the same answer as for a project
//     that does not exist, so the key learns nothing about other projects.
//
// A request that is refused (401, 403, 404) changes nothing at all: the whole
// state, secrets included, is byte-identical before and after.

// authzScope says which keys a route accepts.
type authzScope int

const (
	// scopeAnyKey: any valid key (GET /projects lists what the key may see).
	scopeAnyKey authzScope = iota
	// scopeProject: the route names a project (path or body); a
	// project-scoped key may only name its own.
	scopeProject
	// scopeAccount: creating or deleting projects; project-scoped keys are
	// refused with 403 whatever project they name.
	scopeAccount
	// scopePersonalKeys: the user's personal keys (/api_keys); only a
	// personal key may manage them, any other is refused with 403.
	scopePersonalKeys
	// scopeOrganization: the organization's keys; personal (the admin's) and
	// organization keys manage them, project-scoped keys are refused with
	// 403.
	scopeOrganization
)

// authzOutcome is the class of a response.
type authzOutcome string

const (
	outcomeAllowed      authzOutcome = "allowed (2xx)"
	outcomeUnauthorized authzOutcome = "401 unauthorized"
	outcomeForbidden    authzOutcome = "403 forbidden by key type"
	outcomeHidden       authzOutcome = `404 "project not found" (out of the key's scope)`
)

// authzRequest is one API call.
type authzRequest struct {
	method, path string
	body         any
}

// authzRoute is a row of the table: how to call the route successfully on a
// project of the fixture.
type authzRoute struct {
	scope authzScope
	// createsIntegration: the call creates the stack integration, so the
	// fixture's projects must not have one yet.
	createsIntegration bool
	// request builds the call against the given project.
	request func(fx *authzFixture, project string) authzRequest
}

// authzRoutes holds one row per route key ("METHOD /template") of the router.
// TestAuthzTableCoversEveryRoute fails when the router gains a route this
// table lacks.
func authzRoutes() map[string]authzRoute {
	path := func(method, format string) func(fx *authzFixture, p string) authzRequest {
		return func(fx *authzFixture, p string) authzRequest {
			r := strings.NewReplacer("{p}", p, "{branch}", fx.branch(p), "{dev}", fx.dev(p), "{user}", fx.user(p), "{ep}", fx.endpoint(p),
				"{jwks}", fx.jwksID(p), "{op}", fx.operationID(p), "{perm}", fx.permissionID(p), "{org}", fx.org,
				"{personal-key}", fx.revocable[KeyPersonal], "{org-key}", fx.revocable[KeyOrganization])
			return authzRequest{method: method, path: r.Replace(format)}
		}
	}
	withBody := func(method, format string, body func(p string) any) func(fx *authzFixture, p string) authzRequest {
		return func(fx *authzFixture, p string) authzRequest {
			req := path(method, format)(fx, p)
			req.body = body(p)
			return req
		}
	}
	stackBody := func(extra map[string]any) func(p string) any {
		return func(p string) any {
			b := map[string]any{"project_id": p, "auth_provider": "stack"}
			for k, v := range extra {
				b[k] = v
			}
			return b
		}
	}
	fixed := func(body any) func(string) any { return func(string) any { return body } }

	rows := map[string]authzRoute{
		// Projects and branches.
		"GET /projects": {scope: scopeAnyKey, request: path("GET", "/projects")},
		"POST /projects": {scope: scopeAccount, request: withBody("POST", "/projects",
			fixed(map[string]any{"project": map[string]any{"name": "created-by-authz-test"}}))},
		"GET /projects/{project_id}":                      {scope: scopeProject, request: path("GET", "/projects/{p}")},
		"DELETE /projects/{project_id}":                   {scope: scopeAccount, request: path("DELETE", "/projects/{p}")},
		"GET /projects/{project_id}/branches":             {scope: scopeProject, request: path("GET", "/projects/{p}/branches")},
		"GET /projects/{project_id}/branches/{branch_id}": {scope: scopeProject, request: path("GET", "/projects/{p}/branches/{branch}")},
		"POST /projects/{project_id}/branches": {scope: scopeProject, request: withBody("POST", "/projects/{p}/branches",
			fixed(map[string]any{"branch": map[string]any{"name": "feature"}}))},
		"DELETE /projects/{project_id}/branches/{branch_id}": {scope: scopeProject, request: path("DELETE", "/projects/{p}/branches/{dev}")},
		"PATCH /projects/{project_id}": {scope: scopeProject, request: withBody("PATCH", "/projects/{p}",
			fixed(map[string]any{"project": map[string]any{"name": "renamed", "history_retention_seconds": 3600}}))},
		"PATCH /projects/{project_id}/branches/{branch_id}": {scope: scopeProject, request: withBody("PATCH", "/projects/{p}/branches/{dev}",
			fixed(map[string]any{"branch": map[string]any{"name": "renamed", "protected": true}}))},

		// A project's operations (the fixture's JWKS started one) and the
		// accounts it is shared with (the fixture granted one).
		"GET /projects/{project_id}/operations":                {scope: scopeProject, request: path("GET", "/projects/{p}/operations")},
		"GET /projects/{project_id}/operations/{operation_id}": {scope: scopeProject, request: path("GET", "/projects/{p}/operations/{op}")},
		"GET /projects/{project_id}/permissions":               {scope: scopeProject, request: path("GET", "/projects/{p}/permissions")},
		"POST /projects/{project_id}/permissions": {scope: scopeProject, request: withBody("POST", "/projects/{p}/permissions",
			fixed(map[string]any{"email": "new-member@example.com"}))},
		"DELETE /projects/{project_id}/permissions/{permission_id}": {scope: scopeProject, request: path("DELETE", "/projects/{p}/permissions/{perm}")},

		// API keys: the user's own, and the organization's (the fixture made
		// one of each to revoke).
		"GET /api_keys":                        {scope: scopePersonalKeys, request: path("GET", "/api_keys")},
		"POST /api_keys":                       {scope: scopePersonalKeys, request: withBody("POST", "/api_keys", fixed(map[string]any{"key_name": "authz"}))},
		"DELETE /api_keys/{key_id}":            {scope: scopePersonalKeys, request: path("DELETE", "/api_keys/{personal-key}")},
		"GET /organizations/{org_id}/api_keys": {scope: scopeOrganization, request: path("GET", "/organizations/{org}/api_keys")},
		"POST /organizations/{org_id}/api_keys": {scope: scopeOrganization, request: withBody("POST", "/organizations/{org}/api_keys", func(p string) any {
			return map[string]any{"key_name": "authz", "project_id": p}
		})},
		"DELETE /organizations/{org_id}/api_keys/{key_id}": {scope: scopeOrganization, request: path("DELETE", "/organizations/{org}/api_keys/{org-key}")},

		// Compute endpoints, databases and roles; the production branch has
		// a read_write endpoint, dev none and a role "reader" that owns no
		// database.
		"GET /projects/{project_id}/endpoints": {scope: scopeProject, request: path("GET", "/projects/{p}/endpoints")},
		"POST /projects/{project_id}/endpoints": {scope: scopeProject, request: func(fx *authzFixture, p string) authzRequest {
			return authzRequest{method: "POST", path: "/projects/" + p + "/endpoints", body: map[string]any{
				"endpoint": map[string]any{"branch_id": fx.dev(p), "type": "read_write"}}}
		}},
		"GET /projects/{project_id}/endpoints/{endpoint_id}": {scope: scopeProject, request: path("GET", "/projects/{p}/endpoints/{ep}")},
		"PATCH /projects/{project_id}/endpoints/{endpoint_id}": {scope: scopeProject, request: withBody("PATCH", "/projects/{p}/endpoints/{ep}",
			fixed(map[string]any{"endpoint": map[string]any{"suspend_timeout_seconds": 600}}))},
		"DELETE /projects/{project_id}/endpoints/{endpoint_id}":     {scope: scopeProject, request: path("DELETE", "/projects/{p}/endpoints/{ep}")},
		"GET /projects/{project_id}/branches/{branch_id}/endpoints": {scope: scopeProject, request: path("GET", "/projects/{p}/branches/{branch}/endpoints")},
		"GET /projects/{project_id}/branches/{branch_id}/databases": {scope: scopeProject, request: path("GET", "/projects/{p}/branches/{branch}/databases")},
		"POST /projects/{project_id}/branches/{branch_id}/databases": {scope: scopeProject, request: withBody("POST", "/projects/{p}/branches/{branch}/databases",
			fixed(map[string]any{"database": map[string]any{"name": "app", "owner_name": "neondb_owner"}}))},
		"GET /projects/{project_id}/branches/{branch_id}/databases/{database_name}": {scope: scopeProject,
			request: path("GET", "/projects/{p}/branches/{branch}/databases/neondb")},
		"PATCH /projects/{project_id}/branches/{branch_id}/databases/{database_name}": {scope: scopeProject, request: withBody("PATCH",
			"/projects/{p}/branches/{dev}/databases/neondb", fixed(map[string]any{"database": map[string]any{"owner_name": "reader"}}))},
		"DELETE /projects/{project_id}/branches/{branch_id}/databases/{database_name}": {scope: scopeProject,
			request: path("DELETE", "/projects/{p}/branches/{dev}/databases/neondb")},
		"GET /projects/{project_id}/branches/{branch_id}/roles": {scope: scopeProject, request: path("GET", "/projects/{p}/branches/{branch}/roles")},
		"POST /projects/{project_id}/branches/{branch_id}/roles": {scope: scopeProject, request: withBody("POST", "/projects/{p}/branches/{branch}/roles",
			fixed(map[string]any{"role": map[string]any{"name": "app"}}))},
		"GET /projects/{project_id}/branches/{branch_id}/roles/{role_name}": {scope: scopeProject,
			request: path("GET", "/projects/{p}/branches/{branch}/roles/neondb_owner")},
		"DELETE /projects/{project_id}/branches/{branch_id}/roles/{role_name}": {scope: scopeProject,
			request: path("DELETE", "/projects/{p}/branches/{dev}/roles/reader")},
		"GET /projects/{project_id}/branches/{branch_id}/roles/{role_name}/reveal_password": {scope: scopeProject,
			request: path("GET", "/projects/{p}/branches/{branch}/roles/neondb_owner/reveal_password")},

		// The Data API of a database (dev's neondb has one) and the JWKS a
		// project trusts (the fixture added one).
		"GET /projects/{project_id}/branches/{branch_id}/data-api/{database_name}": {scope: scopeProject,
			request: path("GET", "/projects/{p}/branches/{dev}/data-api/neondb")},
		"POST /projects/{project_id}/branches/{branch_id}/data-api/{database_name}": {scope: scopeProject, request: withBody("POST",
			"/projects/{p}/branches/{branch}/data-api/neondb", fixed(map[string]any{"auth_provider": "external",
				"jwks_url": "https://auth.example.com/.well-known/jwks.json", "provider_name": "Example", "settings": map[string]any{"db_max_rows": 100}}))},
		"PATCH /projects/{project_id}/branches/{branch_id}/data-api/{database_name}": {scope: scopeProject, request: withBody("PATCH",
			"/projects/{p}/branches/{dev}/data-api/neondb", fixed(map[string]any{"settings": map[string]any{"db_schemas": []string{"public", "api"}}}))},
		"DELETE /projects/{project_id}/branches/{branch_id}/data-api/{database_name}": {scope: scopeProject,
			request: path("DELETE", "/projects/{p}/branches/{dev}/data-api/neondb")},
		"GET /projects/{project_id}/jwks": {scope: scopeProject, request: path("GET", "/projects/{p}/jwks")},
		"POST /projects/{project_id}/jwks": {scope: scopeProject, request: withBody("POST", "/projects/{p}/jwks",
			fixed(map[string]any{"jwks_url": "https://clerk.example.com/.well-known/jwks.json", "provider_name": "Clerk", "jwt_audience": "app"}))},
		"DELETE /projects/{project_id}/jwks/{jwks_id}": {scope: scopeProject, request: path("DELETE", "/projects/{p}/jwks/{jwks}")},

		// Auth integration (1–4).
		"POST /projects/auth/create": {scope: scopeProject, createsIntegration: true, request: func(fx *authzFixture, p string) authzRequest {
			return authzRequest{method: "POST", path: "/projects/auth/create", body: map[string]any{
				"auth_provider": "stack", "project_id": p, "branch_id": fx.branch(p),
				"database_name": "neondb", "role_name": "neondb_owner",
			}}
		}},
		"GET /projects/{project_id}/auth/integrations": {scope: scopeProject, request: path("GET", "/projects/{p}/auth/integrations")},
		"POST /projects/auth/keys":                     {scope: scopeProject, request: withBody("POST", "/projects/auth/keys", stackBody(nil))},
		"DELETE /projects/{project_id}/auth/integration/{auth_provider}": {scope: scopeProject,
			request: path("DELETE", "/projects/{p}/auth/integration/stack")},

		// Users (5, 6), ownership transfer (7).
		"POST /projects/auth/user": {scope: scopeProject, request: withBody("POST", "/projects/auth/user",
			stackBody(map[string]any{"email": "new-user@example.com"}))},
		"DELETE /projects/{project_id}/auth/users/{auth_user_id}": {scope: scopeProject,
			request: path("DELETE", "/projects/{p}/auth/users/{user}")},
		"POST /projects/auth/transfer_ownership": {scope: scopeProject,
			request: withBody("POST", "/projects/auth/transfer_ownership", stackBody(nil))},

		// Email server (15, 16).
		"GET /projects/{project_id}/auth/email_server": {scope: scopeProject, request: path("GET", "/projects/{p}/auth/email_server")},
		"PATCH /projects/{project_id}/auth/email_server": {scope: scopeProject, request: withBody("PATCH",
			"/projects/{p}/auth/email_server", fixed(map[string]any{"type": "shared"}))},

		// Neon Auth, branch-scoped, on the production branch (where the
		// fixture's integration is).
		"GET /projects/{project_id}/branches/{branch_id}/auth": {scope: scopeProject, request: path("GET", "/projects/{p}/branches/{branch}/auth")},
		"POST /projects/{project_id}/branches/{branch_id}/auth": {scope: scopeProject, createsIntegration: true, request: withBody("POST",
			"/projects/{p}/branches/{branch}/auth", fixed(map[string]any{"auth_provider": "better_auth"}))},
		"DELETE /projects/{project_id}/branches/{branch_id}/auth": {scope: scopeProject, request: path("DELETE", "/projects/{p}/branches/{branch}/auth")},
		"GET /projects/{project_id}/branches/{branch_id}/auth/email_provider": {scope: scopeProject,
			request: path("GET", "/projects/{p}/branches/{branch}/auth/email_provider")},
		"PATCH /projects/{project_id}/branches/{branch_id}/auth/email_provider": {scope: scopeProject, request: withBody("PATCH",
			"/projects/{p}/branches/{branch}/auth/email_provider", fixed(map[string]any{"type": "shared"}))},
		"POST /projects/{project_id}/branches/{branch_id}/auth/email_provider/test": {scope: scopeProject, request: withBody("POST",
			"/projects/{p}/branches/{dev}/auth/email_provider/test", fixed(map[string]any{"recipient_email": "to@example.com"}))},
		"POST /projects/{project_id}/branches/{branch_id}/auth/send_test_email": {scope: scopeProject, request: withBody("POST",
			"/projects/{p}/branches/{branch}/auth/send_test_email", fixed(map[string]any{"host": "smtp.example.com", "port": 587,
				"username": "u", "password": "p", "sender_email": "from@example.com", "sender_name": "A", "recipient_email": "to@example.com"}))},
		"POST /projects/{project_id}/branches/{branch_id}/auth/users": {scope: scopeProject, request: withBody("POST",
			"/projects/{p}/branches/{branch}/auth/users", fixed(map[string]any{"email": "new-user@example.com"}))},
		"DELETE /projects/{project_id}/branches/{branch_id}/auth/users/{auth_user_id}": {scope: scopeProject,
			request: path("DELETE", "/projects/{p}/branches/{branch}/auth/users/{user}")},
		"PUT /projects/{project_id}/branches/{branch_id}/auth/users/{auth_user_id}/role": {scope: scopeProject, request: withBody("PUT",
			"/projects/{p}/branches/{branch}/auth/users/{user}/role", fixed(map[string]any{"roles": []string{"admin"}}))},
		"GET /projects/{project_id}/branches/{branch_id}/auth/allow_localhost": {scope: scopeProject,
			request: path("GET", "/projects/{p}/branches/{branch}/auth/allow_localhost")},
		"PATCH /projects/{project_id}/branches/{branch_id}/auth/allow_localhost": {scope: scopeProject, request: withBody("PATCH",
			"/projects/{p}/branches/{branch}/auth/allow_localhost", fixed(map[string]any{"allow_localhost": false}))},
		"PATCH /projects/{project_id}/branches/{branch_id}/auth/config": {scope: scopeProject, request: withBody("PATCH",
			"/projects/{p}/branches/{branch}/auth/config", fixed(map[string]any{"name": "renamed"}))},

		"GET /projects/{project_id}/branches/{branch_id}/auth/plugins": {scope: scopeProject, request: path("GET", "/projects/{p}/branches/{branch}/auth/plugins")},
	}
	// The list-backed kinds (8–14 among them): each route's call from the
	// kind's example, on the production branch's stack integration, which
	// holds the example's held item.
	for _, k := range listedKinds {
		ex := k.example
		families := [][2]string{{"/projects/{project_id}/branches/{branch_id}/auth", "/projects/{p}/branches/{branch}/auth"}}
		if k.projectLevel {
			families = append(families, [2]string{"/projects/{project_id}/auth", "/projects/{p}/auth"})
		}
		for _, fam := range families {
			for _, r := range ex.requests(k, fam[0], fam[1], "stack", ex.heldID) {
				row := authzRoute{scope: scopeProject, request: path(r.method, r.path)}
				if r.body != nil {
					row.request = withBody(r.method, r.path, fixed(r.body))
				}
				rows[r.key] = row
			}
		}
	}
	// The Better Auth settings: each one's example write (settingSpecs).
	for _, st := range betterauth.Settings {
		route := apispec.BranchAuthPath + st.Path
		at := "/projects/{p}/branches/{branch}/auth/" + st.Path
		if st.Read {
			rows["GET "+route] = authzRoute{scope: scopeProject, request: path("GET", at)}
		}
		rows[st.Write+" "+route] = authzRoute{scope: scopeProject, request: withBody(st.Write, at, fixed(settingSpecs[st.Name].example))}
	}
	return rows
}

// specEndpoints are the 17 endpoints of internal/apispec/auth-api.md, plus
// the project routes the provider relies on beyond them.
var specEndpoints = []string{
	"POST /projects/auth/create",                                             // 1
	"GET /projects/{project_id}/auth/integrations",                           // 2
	"POST /projects/auth/keys",                                               // 3
	"DELETE /projects/{project_id}/auth/integration/{auth_provider}",         // 4
	"POST /projects/auth/user",                                               // 5
	"DELETE /projects/{project_id}/auth/users/{auth_user_id}",                // 6
	"POST /projects/auth/transfer_ownership",                                 // 7
	"GET /projects/{project_id}/auth/oauth_providers",                        // 8
	"POST /projects/{project_id}/auth/oauth_providers",                       // 9
	"PATCH /projects/{project_id}/auth/oauth_providers/{oauth_provider_id}",  // 10
	"DELETE /projects/{project_id}/auth/oauth_providers/{oauth_provider_id}", // 11
	"GET /projects/{project_id}/auth/domains",                                // 12
	"POST /projects/{project_id}/auth/domains",                               // 13
	"DELETE /projects/{project_id}/auth/domains",                             // 14
	"GET /projects/{project_id}/auth/email_server",                           // 15
	"PATCH /projects/{project_id}/auth/email_server",                         // 16
	"GET /projects", // 17
	"GET /projects/{project_id}/branches",
	"POST /projects",
	"DELETE /projects/{project_id}",
}

// The key kinds of the table, in column order.
const (
	keyPersonal     = "personal"             // the bootstrap key (the admin's personal key)
	keyOrganization = "organization"         // an organization key
	keyOwnProject   = "project-scoped-own"   // scoped to project A, the one every call names
	keyOtherProject = "project-scoped-other" // scoped to project B
	keyRevoked      = "revoked"              // an organization key, revoked
	keyUnknown      = "unknown"              // well-formed, never issued
	keyNoHeader     = "no-header"            // no Authorization header at all
)

var authzKeyKinds = []string{keyPersonal, keyOrganization, keyOwnProject, keyOtherProject, keyRevoked, keyUnknown, keyNoHeader}

// expectedAuthzOutcome is the rule the table checks, with the reason given in
// failure messages.
func expectedAuthzOutcome(scope authzScope, kind string) (authzOutcome, string) {
	switch kind {
	case keyRevoked, keyUnknown, keyNoHeader:
		return outcomeUnauthorized, "a request without a valid key fails with 401"
	}
	switch scope {
	case scopePersonalKeys:
		if kind != keyPersonal {
			return outcomeForbidden, "only a personal key manages personal keys"
		}
		return outcomeAllowed, "a personal key manages the user's keys"
	case scopeOrganization:
		if kind == keyOwnProject || kind == keyOtherProject {
			return outcomeForbidden, "a project-scoped key cannot manage the organization's keys"
		}
		return outcomeAllowed, "personal and organization keys manage the organization's keys"
	}
	switch kind {
	case keyPersonal, keyOrganization:
		return outcomeAllowed, "personal and organization keys reach every project of the organization"
	}
	switch scope {
	case scopeAccount:
		return outcomeForbidden, "a project-scoped key cannot create or delete projects"
	case scopeProject:
		if kind == keyOtherProject {
			return outcomeHidden, "a project-scoped key cannot see another project"
		}
		return outcomeAllowed, "a project-scoped key manages its own project"
	}
	return outcomeAllowed, "every valid key may list the projects it can see"
}

// authzFixture is a fresh emulator with two projects A and B set up alike:
// a branch "dev" with a role "reader" and the Data API of its database
// neondb (an external identity provider's), a JWKS of every branch, and on
// the production branch (which
// has a read_write endpoint) a stack integration (unless
// the route creates it) holding a user and the held item of each list-backed
// kind's example; then on dev a Better Auth integration with
// a standard email provider.
type authzFixture struct {
	v         *env
	a, b      string
	branches  map[string]string
	devs      map[string]string
	endpoints map[string]string // the production branch's read_write endpoint
	users     map[string]string
	jwks      map[string]string // the id of the project's JWKS
	keys      map[string]string // key kind → token ("" for no header)
	// operations and permissions hold an operation of each project (its
	// JWKS's) and a grant of it to another account.
	operations, permissions map[string]string
	// org is the organization's id; revocable holds the id of a personal key
	// and of an organization key that no call uses.
	org       string
	revocable map[KeyKind]string
}

func newAuthzFixture(t *testing.T, withIntegration bool) *authzFixture {
	t.Helper()
	v := newEnv(t, Options{SeedProjects: 2})
	ids := v.e.ProjectIDs()
	fx := &authzFixture{v: v, a: ids[0], b: ids[1], branches: map[string]string{}, devs: map[string]string{}, users: map[string]string{},
		endpoints: map[string]string{}, jwks: map[string]string{}, operations: map[string]string{}, permissions: map[string]string{},
		org: v.e.st.OrgID, revocable: map[KeyKind]string{}}
	for _, p := range ids {
		fx.branches[p], _ = v.e.DefaultBranchID(p)
		fx.devs[p], _ = v.e.AddBranch(p, "dev")
		fx.endpoints[p] = digString(t, v.do("GET", "/projects/"+p+"/branches/"+fx.branches[p]+"/endpoints", nil).JSON(), "endpoints", 0, "id")
		wantStatus(t, v.do("POST", "/projects/"+p+"/branches/"+fx.devs[p]+"/roles", map[string]any{"role": map[string]any{"name": "reader"}}), http.StatusCreated)
		wantStatus(t, v.do("POST", "/projects/"+p+"/branches/"+fx.devs[p]+"/data-api/neondb", map[string]any{"auth_provider": "external",
			"jwks_url": "https://auth.example.com/.well-known/jwks.json", "provider_name": "Example"}), http.StatusCreated)
		added := v.do("POST", "/projects/"+p+"/jwks", map[string]any{"jwks_url": "https://auth.example.com/.well-known/jwks.json",
			"provider_name": "Example"}).JSON()
		fx.jwks[p], fx.operations[p] = digString(t, added, "jwks", "id"), digString(t, added, "operations", 0, "id")
		fx.permissions[p] = digString(t, v.do("POST", "/projects/"+p+"/permissions", map[string]any{"email": "member@example.com"}).JSON(), "id")
		if !withIntegration {
			continue
		}
		wantStatus(t, v.do("POST", "/projects/auth/create", v.createBody(p)), http.StatusCreated)
		r := v.do("POST", "/projects/auth/user", map[string]any{"project_id": p, "auth_provider": "stack", "email": "existing@example.com"})
		wantStatus(t, r, http.StatusCreated)
		fx.users[p], _ = r.JSON()["id"].(string)
		for _, k := range listedKinds {
			r := v.do("POST", "/projects/"+p+"/branches/"+fx.branches[p]+"/auth/"+k.path, k.example.body(k.example.held, "stack"))
			want2xx(t, r)
		}
		// dev has a Better Auth integration with a standard email provider,
		// which POST …/email_provider/test needs.
		wantStatus(t, v.do("POST", "/projects/"+p+"/branches/"+fx.devs[p]+"/auth", map[string]any{"auth_provider": "better_auth"}), http.StatusCreated)
		wantStatus(t, v.do("PATCH", "/projects/"+p+"/branches/"+fx.devs[p]+"/auth/email_provider", map[string]any{"type": "standard",
			"host": "smtp.example.com", "port": 587, "username": "u", "password": "p", "sender_email": "from@example.com", "sender_name": "A"}), http.StatusOK)
	}
	mustKey := func(kind KeyKind, project string) string {
		k, err := v.e.CreateKey(kind, project)
		if err != nil {
			t.Fatalf("CreateKey(%s, %q): %v", kind, project, err)
		}
		return k
	}
	for _, kind := range []KeyKind{KeyPersonal, KeyOrganization} {
		token := mustKey(kind, "")
		fx.revocable[kind] = strconv.FormatInt(v.e.st.key(token).ID, 10)
	}
	revoked := mustKey(KeyOrganization, "")
	if err := v.e.RevokeKey(revoked); err != nil {
		t.Fatal(err)
	}
	fx.keys = map[string]string{
		keyPersonal:     v.key,
		keyOrganization: mustKey(KeyOrganization, ""),
		keyOwnProject:   mustKey(KeyProject, fx.a),
		keyOtherProject: mustKey(KeyProject, fx.b),
		keyRevoked:      revoked,
		keyUnknown:      newAPIKeyToken(),
		keyNoHeader:     "",
	}
	return fx
}

func (fx *authzFixture) branch(p string) string {
	if b, ok := fx.branches[p]; ok {
		return b
	}
	return "br-does-not-exist"
}

func (fx *authzFixture) dev(p string) string {
	if b, ok := fx.devs[p]; ok {
		return b
	}
	return "br-does-not-exist"
}

func (fx *authzFixture) endpoint(p string) string {
	if ep, ok := fx.endpoints[p]; ok {
		return ep
	}
	return "ep-does-not-exist"
}

func (fx *authzFixture) jwksID(p string) string {
	if id, ok := fx.jwks[p]; ok {
		return id
	}
	return "00000000-0000-4000-8000-000000000000"
}

func (fx *authzFixture) operationID(p string) string {
	if id, ok := fx.operations[p]; ok {
		return id
	}
	return "00000000-0000-4000-8000-000000000000"
}

func (fx *authzFixture) permissionID(p string) string {
	if id, ok := fx.permissions[p]; ok {
		return id
	}
	return "permission-does-not-exist"
}

func (fx *authzFixture) user(p string) string {
	if u, ok := fx.users[p]; ok {
		return u
	}
	return "00000000-0000-4000-8000-000000000000"
}

// send makes the call with the token ("" → no Authorization header).
func (fx *authzFixture) send(token string, req authzRequest) *response {
	fx.v.t.Helper()
	return fx.v.call(token, req.method, req.path, req.body)
}

// stateSnapshot is the whole state, secrets included, as the state file
// would hold it.
func (fx *authzFixture) stateSnapshot() []byte {
	fx.v.t.Helper()
	fx.v.e.mu.Lock()
	defer fx.v.e.mu.Unlock()
	b, err := json.Marshal(fx.v.e.st)
	if err != nil {
		fx.v.t.Fatal(err)
	}
	return b
}

// classify returns the outcome class of a response, or "" with a description
// when it fits none.
func classify(r *response) authzOutcome {
	switch {
	case r.Status >= 200 && r.Status <= 299:
		return outcomeAllowed
	case r.Status == http.StatusUnauthorized:
		return outcomeUnauthorized
	case r.Status == http.StatusForbidden:
		return outcomeForbidden
	case r.Status == http.StatusNotFound && errorMessage(r) == "project not found":
		return outcomeHidden
	}
	return authzOutcome("other")
}

// errorMessage is the message of an error body, "" when there is none.
func errorMessage(r *response) string {
	var eb neonapi.GeneralError
	if json.Unmarshal(r.Body, &eb) != nil {
		return ""
	}
	return eb.Message
}

// routeKeys lists the router's route keys in table order.
func routeKeys() []string {
	var keys []string
	for _, rt := range apiRoutes() {
		keys = append(keys, rt.key)
	}
	return keys
}

func TestAuthzTableCoversEveryRoute(t *testing.T) {
	table := authzRoutes()
	served := routeKeys()
	for _, key := range served {
		if _, ok := table[key]; !ok {
			t.Errorf("the router serves %q but the authorization table has no row for it: add one to authzRoutes "+
				"(a list-backed kind's come from its description's example)", key)
		}
	}
	for key := range table {
		if !slices.Contains(served, key) {
			t.Errorf("the authorization table has a row for %q, which the router does not serve", key)
		}
	}
	for _, key := range specEndpoints {
		if !slices.Contains(served, key) {
			t.Errorf("the router does not serve %q (an endpoint of the spec or one the provider needs)", key)
		}
	}
}

func TestAuthzEveryRouteWithEveryKeyKind(t *testing.T) {
	table := authzRoutes()
	checked := 0
	for _, key := range routeKeys() {
		row, ok := table[key]
		if !ok {
			t.Errorf("%s: no row in the authorization table (see TestAuthzTableCoversEveryRoute)", key)
			continue
		}
		t.Run(key, func(t *testing.T) {
			for _, kind := range authzKeyKinds {
				t.Run(kind, func(t *testing.T) {
					checked++
					fx := newAuthzFixture(t, !row.createsIntegration)
					want, why := expectedAuthzOutcome(row.scope, kind)
					req := row.request(fx, fx.a)
					before := fx.stateSnapshot()
					r := fx.send(fx.keys[kind], req)
					if got := classify(r); got != want {
						t.Fatalf("%s key, %s %s: got %d %s, want %s: %s",
							kind, req.method, req.path, r.Status, bytes.TrimSpace(r.Body), want, why)
					}
					switch want {
					case outcomeAllowed:
						return
					case outcomeUnauthorized:
						wantError(t, r, http.StatusUnauthorized, unauthorizedMsg)
					default:
						wantError(t, r, r.Status, "")
					}
					if after := fx.stateSnapshot(); !bytes.Equal(before, after) {
						t.Errorf("%s key, %s %s was refused with %d but changed the state:\nbefore %s\nafter  %s",
							kind, req.method, req.path, r.Status, before, after)
					}
				})
			}
		})
	}
	if want := len(routeKeys()) * len(authzKeyKinds); checked != want && !t.Failed() {
		t.Errorf("checked %d route × key-kind cells, want %d", checked, want)
	}
}

// keepAliveClient talks to a real server over one reused connection and
// reports whether each request went over an already used connection.
type keepAliveClient struct {
	t      *testing.T
	base   string
	client *http.Client
}

func (c *keepAliveClient) send(token string, req authzRequest) (status int, reused bool) {
	c.t.Helper()
	var body io.Reader
	if req.body != nil {
		data, err := json.Marshal(req.body)
		if err != nil {
			c.t.Fatal(err)
		}
		body = bytes.NewReader(data)
	}
	hr, err := http.NewRequestWithContext(c.t.Context(), req.method, c.base+apiPrefix+req.path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		hr.Header.Set("Authorization", "Bearer "+token)
	}
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused }}
	hr = hr.WithContext(httptrace.WithClientTrace(hr.Context(), trace))
	resp, err := c.client.Do(hr)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.method, req.path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, reused
}

func TestAuthzRevokedKeyFailsOnTheVeryNextRequest(t *testing.T) {
	revokers := map[string]func(fx *authzFixture, token string){
		"RevokeKey": func(fx *authzFixture, token string) {
			if err := fx.v.e.RevokeKey(token); err != nil {
				fx.v.t.Fatal(err)
			}
		},
		"control surface": func(fx *authzFixture, token string) {
			wantStatus(fx.v.t, fx.v.control("POST", "/keys/revoke", map[string]string{"key": token}), http.StatusNoContent)
		},
	}
	for _, how := range []string{"RevokeKey", "control surface"} {
		for _, kind := range []KeyKind{KeyPersonal, KeyOrganization, KeyProject} {
			t.Run(how+"/"+string(kind), func(t *testing.T) {
				fx := newAuthzFixture(t, true)
				project := ""
				if kind == KeyProject {
					project = fx.a
				}
				token, err := fx.v.e.CreateKey(kind, project)
				if err != nil {
					t.Fatal(err)
				}
				srv := httptest.NewServer(fx.v.e)
				defer srv.Close()
				transport := transportClone(t)
				transport.MaxConnsPerHost = 1
				defer transport.CloseIdleConnections()
				c := &keepAliveClient{t: t, base: srv.URL, client: &http.Client{Transport: transport}}

				read := authzRequest{method: "GET", path: "/projects/" + fx.a + "/auth/integrations"}
				for i := 0; i < 3; i++ { // warm whatever a cache could hold
					if status, _ := c.send(token, read); status != http.StatusOK {
						t.Fatalf("before revocation: %s %s = %d, want 200", read.method, read.path, status)
					}
				}
				revokers[how](fx, token)
				status, reused := c.send(token, read)
				if status != http.StatusUnauthorized {
					t.Fatalf("the first request after revocation got %d, want 401: revocation must be immediate", status)
				}
				if !reused {
					t.Errorf("the first request after revocation used a new connection; want the same keep-alive connection, to show nothing is cached per connection")
				}
				before := fx.stateSnapshot()
				table := authzRoutes()
				for _, key := range routeKeys() {
					req := table[key].request(fx, fx.a)
					if status, _ := c.send(token, req); status != http.StatusUnauthorized {
						t.Errorf("revoked %s key, %s %s = %d, want 401", kind, req.method, req.path, status)
					}
				}
				if after := fx.stateSnapshot(); !bytes.Equal(before, after) {
					t.Errorf("requests with a revoked key changed the state")
				}
				// Other keys are unaffected.
				if status, _ := c.send(fx.keys[keyOrganization], read); status != http.StatusOK {
					t.Errorf("another key after the revocation: %d, want 200", status)
				}
			})
		}
	}
}

func TestAuthzProjectScopedKeyListsOnlyItsOwnProject(t *testing.T) {
	v := newEnv(t, Options{SeedProjects: 5})
	ids := v.e.ProjectIDs()
	own := ids[2]
	key, err := v.e.CreateKey(KeyProject, own)
	if err != nil {
		t.Fatal(err)
	}
	type page struct {
		Projects   []Project
		Pagination *struct{ Cursor string }
	}
	list := func(query string) page {
		t.Helper()
		r := v.call(key, "GET", "/projects"+query, nil)
		wantStatus(t, r, http.StatusOK)
		var p page
		r.Decode(&p)
		return p
	}
	onlyOwn := func(what string, p page) {
		t.Helper()
		var got []string
		for _, pr := range p.Projects {
			got = append(got, pr.ID)
		}
		if len(got) != 1 || got[0] != own {
			t.Errorf("%s: listed %v, want only its own project %s", what, got, own)
		}
	}

	all := list("")
	onlyOwn("GET /projects", all)
	onlyOwn("GET /projects?limit=400", list("?limit=400"))
	onlyOwn("filtered by its organization", list("?org_id="+*all.Projects[0].OrgID))

	t.Run("paging with limit=1 never reaches another project", func(t *testing.T) {
		first := list("?limit=1")
		onlyOwn("first page", first)
		if first.Pagination == nil {
			t.Fatal("first page has no cursor")
		}
		if rest := list("?limit=1&cursor=" + first.Pagination.Cursor); len(rest.Projects) != 0 {
			t.Errorf("the page after its project lists %+v, want none", rest.Projects)
		}
	})
	t.Run("a cursor taken with an organization key leaks nothing", func(t *testing.T) {
		r := v.do("GET", "/projects?limit=1", nil)
		var p page
		r.Decode(&p)
		got := list("?limit=10&cursor=" + p.Pagination.Cursor)
		onlyOwn("cursor from another key", got)
	})
	t.Run("search by another project's id or name finds nothing", func(t *testing.T) {
		for _, other := range []string{ids[0], ids[1], ids[3], ids[4]} {
			if got := list("?search=" + other); len(got.Projects) != 0 {
				t.Errorf("search=%s listed %+v, want none", other, got.Projects)
			}
		}
		if got := list("?search=seed-project-1"); len(got.Projects) != 0 {
			t.Errorf("search=seed-project-1 (another project's name) listed %+v, want none", got.Projects)
		}
		onlyOwn("search by its own id", list("?search="+own))
	})
	t.Run("organization keys still list all of them", func(t *testing.T) {
		var p page
		v.do("GET", "/projects", nil).Decode(&p)
		if len(p.Projects) != len(ids) {
			t.Errorf("the bootstrap key lists %d projects, want %d", len(p.Projects), len(ids))
		}
	})
}

func TestAuthzProjectScopedKeyCannotTouchAnotherProject(t *testing.T) {
	table := authzRoutes()
	for _, key := range routeKeys() {
		row := table[key]
		if row.scope != scopeProject {
			continue
		}
		t.Run(key, func(t *testing.T) {
			fx := newAuthzFixture(t, !row.createsIntegration)
			token := fx.keys[keyOtherProject] // scoped to B
			before := fx.stateSnapshot()
			onA := row.request(fx, fx.a)
			rA := fx.send(token, onA)
			if classify(rA) != outcomeHidden {
				t.Fatalf("key of project B, %s %s naming project A: got %d %s, want 404 \"project not found\"",
					onA.method, onA.path, rA.Status, bytes.TrimSpace(rA.Body))
			}
			if after := fx.stateSnapshot(); !bytes.Equal(before, after) {
				t.Errorf("key of project B changed the state through %s %s naming project A", onA.method, onA.path)
			}
			missing := row.request(fx, "no-such-project-00000000")
			rMissing := fx.send(token, missing)
			if rA.Status != rMissing.Status || errorMessage(rA) != errorMessage(rMissing) {
				t.Errorf("another project answers %d %q, a missing one %d %q: want the same, so that a key cannot probe other projects",
					rA.Status, errorMessage(rA), rMissing.Status, errorMessage(rMissing))
			}
			onB := row.request(fx, fx.b)
			if r := fx.send(token, onB); classify(r) != outcomeAllowed {
				t.Errorf("control: key of project B, %s %s naming its own project: got %d %s, want 2xx",
					onB.method, onB.path, r.Status, bytes.TrimSpace(r.Body))
			}
		})
	}
}

func TestAuthzBodyProjectIDIsCheckedAgainstTheKeyScope(t *testing.T) {
	// Routes whose project is named only by the body's project_id.
	table := authzRoutes()
	var bodyRoutes []string
	for _, key := range routeKeys() {
		if strings.HasPrefix(key, "POST /projects/auth/") {
			bodyRoutes = append(bodyRoutes, key)
		}
	}
	if len(bodyRoutes) < 4 {
		t.Fatalf("found %d POST /projects/auth/* routes (%v), want at least create, keys, user and transfer_ownership", len(bodyRoutes), bodyRoutes)
	}
	for _, key := range bodyRoutes {
		t.Run(key, func(t *testing.T) {
			row := table[key]
			fx := newAuthzFixture(t, !row.createsIntegration)
			token := fx.keys[keyOwnProject] // scoped to A
			before := fx.stateSnapshot()
			other := row.request(fx, fx.b)
			if r := fx.send(token, other); classify(r) != outcomeHidden {
				t.Fatalf("key of project A with project_id=%s (project B) in the body: got %d %s, want 404 \"project not found\"",
					fx.b, r.Status, bytes.TrimSpace(r.Body))
			}
			if after := fx.stateSnapshot(); !bytes.Equal(before, after) {
				t.Errorf("key of project A changed project B through the body's project_id")
			}
			own := row.request(fx, fx.a)
			if r := fx.send(token, own); classify(r) != outcomeAllowed {
				t.Errorf("control: the same call with project_id=%s (its own) got %d %s, want 2xx", fx.a, r.Status, bytes.TrimSpace(r.Body))
			}
		})
	}
	t.Run("project_id smuggled into a path-scoped body is refused", func(t *testing.T) {
		fx := newAuthzFixture(t, true)
		before := fx.stateSnapshot()
		r := fx.send(fx.keys[keyOwnProject], authzRequest{method: "POST", path: "/projects/" + fx.a + "/auth/domains",
			body: map[string]any{"project_id": fx.b, "domain": "https://smuggled.example.com", "auth_provider": "stack"}})
		wantError(t, r, http.StatusBadRequest, `request body: property "project_id" is unsupported`)
		if after := fx.stateSnapshot(); !bytes.Equal(before, after) {
			t.Errorf("a refused request changed the state")
		}
	})
}
