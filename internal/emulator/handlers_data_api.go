package emulator

import (
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The Data API endpoints of a branch's database:
// /projects/{project_id}/branches/{branch_id}/data-api/{database_name}.
// A database has at most one Data API; GET answers 404 for a database
// without one (as Neon's clients read it), a second POST 409.

// inDatabaseAPI runs f, under the lock, on the database of the path and its
// Data API (nil: none).
func (e *Emulator) inDatabaseAPI(c *call, f func(p *projectState, b *branchState, d *DataAPI) error) error {
	return e.inDatabase(c, func(p *projectState, b *branchState, i int) error {
		return f(p, b, b.dataAPI(b.Databases[i].Name))
	})
}

// errNoDataAPI is the 404 of a database without a Data API.
func errNoDataAPI(b *branchState, database string) error {
	return notFound("the Data API is not enabled for database %s on branch %s", database, b.ID)
}

// getDataAPI serves GET …/data-api/{database_name}.
func (e *Emulator) getDataAPI(c *call) error {
	return e.inDatabaseAPI(c, func(p *projectState, b *branchState, d *DataAPI) error {
		if d == nil {
			return errNoDataAPI(b, c.param("database_name"))
		}
		return c.json(http.StatusOK, d.view(b.dataAPIHost(p.Project), now()))
	})
}

// checkDataAPISettings refuses what the reference's schema cannot say of
// DataAPISettings: openapi_mode outside the values its description names,
// a row limit below 1, a negative JWT cache lifetime, an empty or repeated
// schema, an empty anonymous role.
func checkDataAPISettings(s *neonapi.DataAPISettings) error {
	if s == nil {
		return nil
	}
	if m, ok := deref(s.OpenapiMode); ok && !slices.Contains(dataAPIOpenAPIModes, m) {
		return invalid("settings.openapi_mode", "must be one of %v", dataAPIOpenAPIModes)
	}
	if n, ok := deref(s.DBMaxRows); ok && n < 1 {
		return invalid("settings.db_max_rows", "must be at least 1")
	}
	if n, ok := deref(s.JwtCacheMaxLifetime); ok && n < 0 {
		return invalid("settings.jwt_cache_max_lifetime", "must not be negative")
	}
	if schemas, ok := deref(s.DBSchemas); ok {
		for _, name := range schemas {
			if name == "" {
				return invalid("settings.db_schemas", "must not hold an empty schema name")
			}
		}
		if err := distinct("settings.db_schemas", schemas); err != nil {
			return err
		}
	}
	return notEmpty("settings.db_anon_role", s.DBAnonRole)
}

// checkDataAPIAuth refuses a create whose auth fields do not go together:
// external needs jwks_url (provider_name is optional); a JWKS URL or
// provider name without external; neon_auth on a branch without Neon Auth.
func checkDataAPIAuth(req neonapi.DataAPICreateRequest, b *branchState, p *projectState) error {
	provider := ""
	if req.AuthProvider != nil {
		provider = string(*req.AuthProvider)
	}
	switch {
	case provider == dataAPIExternal && req.JWKSURL == nil:
		return invalid("jwks_url", "is required when auth_provider is %s", dataAPIExternal)
	case provider != dataAPIExternal && req.JWKSURL != nil:
		return invalid("jwks_url", "is only for auth_provider %s", dataAPIExternal)
	case provider != dataAPIExternal && req.ProviderName != nil:
		return invalid("provider_name", "is only for auth_provider %s", dataAPIExternal)
	case provider == dataAPINeonAuth && b.Auth == nil:
		return invalid("auth_provider", "Neon Auth is not enabled on branch %s of project %s: enable it first "+
			"(POST /projects/%s/branches/%s/auth), or use auth_provider %s", b.ID, p.Project.ID, p.Project.ID, b.ID, dataAPIExternal)
	}
	return firstError(notEmpty("provider_name", req.ProviderName), notEmpty("jwks_url", req.JWKSURL))
}

// createDataAPI serves POST …/data-api/{database_name} (an optional body):
// the Data API of the database, with the auth provider, create options and
// settings given; it boots for Options.DataAPIBootTime. Answers 201 {url}.
func (e *Emulator) createDataAPI(c *call) error {
	var req neonapi.DataAPICreateRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	if err := checkDataAPISettings(req.Settings); err != nil {
		return err
	}
	return e.inDatabaseAPI(c, func(p *projectState, b *branchState, existing *DataAPI) error {
		db := c.param("database_name")
		if existing != nil {
			return conflict("the Data API is already enabled for database %s on branch %s", db, b.ID)
		}
		if err := checkDataAPIAuth(req, b, p); err != nil {
			return err
		}
		at := now()
		d := &DataAPI{DatabaseName: db, JWKSURL: valueOf(req.JWKSURL), ProviderName: valueOf(req.ProviderName),
			JWTAudience: valueOf(req.JwtAudience), DefaultGrants: valueOf(req.AddDefaultGrants), AuthSchema: !valueOf(req.SkipAuthSchema),
			Settings: *orZero(req.Settings), CreatedAt: at, ReadyAt: at.Add(e.dataAPIBootTime()), SchemaCacheRefreshedAt: at}
		if req.AuthProvider != nil {
			d.AuthProvider = string(*req.AuthProvider)
		}
		b.DataAPIs = append(b.DataAPIs, d)
		return e.saved(c, http.StatusCreated, neonapi.DataAPICreateResponse{URL: d.url(b.dataAPIHost(p.Project))})
	})
}

// updateDataAPI serves PATCH …/data-api/{database_name}: settings, when
// given, replace the whole of them (those left out go back to their
// defaults); either way the schema cache is refreshed. Answers 201 {}.
func (e *Emulator) updateDataAPI(c *call) error {
	var req neonapi.DataAPIUpdateRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	if err := checkDataAPISettings(req.Settings); err != nil {
		return err
	}
	return e.inDatabaseAPI(c, func(_ *projectState, b *branchState, d *DataAPI) error {
		if d == nil {
			return errNoDataAPI(b, c.param("database_name"))
		}
		if req.Settings != nil {
			d.Settings = *req.Settings
		}
		d.SchemaCacheRefreshedAt = now()
		return e.saved(c, http.StatusCreated, neonapi.EmptyResponse{})
	})
}

// deleteDataAPI serves DELETE …/data-api/{database_name}. Answers 200 {}.
func (e *Emulator) deleteDataAPI(c *call) error {
	return e.inDatabaseAPI(c, func(_ *projectState, b *branchState, d *DataAPI) error {
		if d == nil {
			return errNoDataAPI(b, c.param("database_name"))
		}
		b.removeDataAPI(d.DatabaseName)
		return e.saved(c, http.StatusOK, neonapi.EmptyResponse{})
	})
}
