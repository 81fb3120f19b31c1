package emulator

import (
	"net/url"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The Data API of a database on a branch, as the state holds it: how one is
// made, what the API shows of it, and how a new branch inherits its
// parent's (see internal/apispec/data-api-and-jwks.md for the sources).

const (
	// dataAPIActive is the status of a Data API that serves requests: the
	// only value Neon documents.
	dataAPIActive = "active"
	// dataAPIProvisioning is the status the emulator reports while a new
	// Data API boots (Options.DataAPIBootTime). Neon documents no such
	// value; it says an instance takes about 15 seconds to boot while its
	// URL is returned at once.
	dataAPIProvisioning = "provisioning"

	// defaultDataAPIBootTime is how long a new Data API reports
	// dataAPIProvisioning when Options.DataAPIBootTime is 0.
	defaultDataAPIBootTime = time.Second

	// Auth providers of a Data API.
	dataAPINeonAuth = string(neonapi.DataAPICreateRequestAuthProviderNeonAuth)
	dataAPIExternal = string(neonapi.DataAPICreateRequestAuthProviderExternal)
)

// dataAPIOpenAPIModes are the values of DataAPISettings.openapi_mode, which
// the reference names in its description rather than as an enum.
var dataAPIOpenAPIModes = []string{"ignore-privileges", "disabled"}

// DataAPI is the Data API of one database of a branch: how it was created
// (which the API never shows again) and its settings as written (the API
// shows the defaults of those not written; see view).
type DataAPI struct {
	DatabaseName string `json:"database_name"`
	// AuthProvider is neon_auth, external, or "" (none configured).
	AuthProvider string `json:"auth_provider,omitempty"`
	JWKSURL      string `json:"jwks_url,omitempty"`
	ProviderName string `json:"provider_name,omitempty"`
	JWTAudience  string `json:"jwt_audience,omitempty"`
	// DefaultGrants: the create granted the public schema's tables to the
	// authenticated role (add_default_grants).
	DefaultGrants bool `json:"default_grants,omitempty"`
	// AuthSchema: the create made the auth schema with its RLS functions
	// (unless skip_auth_schema).
	AuthSchema bool                    `json:"auth_schema"`
	Settings   neonapi.DataAPISettings `json:"settings"`
	CreatedAt  time.Time               `json:"created_at"`
	// ReadyAt is when it starts serving (status active).
	ReadyAt time.Time `json:"ready_at"`
	// SchemaCacheRefreshedAt is the last refresh of the schema cache (every
	// create and PATCH refreshes it).
	SchemaCacheRefreshedAt time.Time `json:"schema_cache_refreshed_at"`
}

// dataAPIReported are the settings GET reports with their defaults when
// none was written; the others are reported only when written (Neon's
// example of a Data API created with defaults shows these four).
func dataAPIReported() neonapi.DataAPISettings {
	return neonapi.DataAPISettings{DBAggregatesEnabled: new(true), DBAnonRole: new("anonymous"),
		DBSchemas: &[]string{"public"}, JwtRoleClaimKey: new(".role")}
}

// status is the deployment status at t.
func (d *DataAPI) status(t time.Time) string {
	if t.Before(d.ReadyAt) {
		return dataAPIProvisioning
	}
	return dataAPIActive
}

// view is the Data API as GET shows it at t (DataAPIReponse): its URL on
// host (the branch's own, see branchState.dataAPIHost), its status, its
// settings (with the defaults of dataAPIReported for those not written) and
// the schemas it can expose.
func (d *DataAPI) view(host string, t time.Time) neonapi.DataAPIReponse {
	settings, defaults := d.Settings, dataAPIReported()
	settings.DBAggregatesEnabled = orDefault(settings.DBAggregatesEnabled, defaults.DBAggregatesEnabled)
	settings.DBAnonRole = orDefault(settings.DBAnonRole, defaults.DBAnonRole)
	settings.DBSchemas = orDefault(settings.DBSchemas, defaults.DBSchemas)
	settings.JwtRoleClaimKey = orDefault(settings.JwtRoleClaimKey, defaults.JwtRoleClaimKey)
	schemas := []string{"public"}
	if d.AuthSchema {
		schemas = []string{"auth", "public"}
	}
	return neonapi.DataAPIReponse{URL: d.url(host), Status: d.status(t), Settings: clonePtr(&settings), AvailableSchemas: &schemas}
}

// orDefault is v, or def when v is nil.
func orDefault[T any](v, def *T) *T {
	if v == nil {
		return def
	}
	return v
}

// url is where the Data API serves: on host, under the database's name, as
// https://ep-….apirest.<region>.aws.neon.tech/<database>/rest/v1.
func (d *DataAPI) url(host string) string {
	return "https://" + host + "/" + url.PathEscape(d.DatabaseName) + "/rest/v1"
}

// inheritedDataAPIs are the Data APIs a branch made from a branch with apis
// starts with: a copy of each, serving at once on the new branch's own host.
// Neon's documentation says the Data API's configuration branches with the
// database and rides the branch's compute endpoint.
func inheritedDataAPIs(apis []*DataAPI, at time.Time) []*DataAPI {
	out := make([]*DataAPI, 0, len(apis))
	for _, d := range apis {
		c := clonePtr(d)
		c.CreatedAt, c.ReadyAt, c.SchemaCacheRefreshedAt = at, at, at
		out = append(out, c)
	}
	return out
}
