# Neon Auth on a preview branch, and the Data API of its database that
# accepts the tokens of that Neon Auth. The references to the integration
# make Terraform enable Neon Auth first (and destroy the Data API first).
resource "neon_auth_integration" "preview" {
  project_id = "autumn-frost-12345678"
  branch_id  = "br-quiet-leaf-12345678"
}

resource "neon_auth_data_api" "neondb" {
  project_id         = neon_auth_integration.preview.project_id
  branch_id          = neon_auth_integration.preview.branch_id
  database_name      = "neondb"
  auth_provider      = "neon_auth"
  add_default_grants = true # authenticated users may use the public schema's tables; RLS policies pick the rows

  # Change in place; those left out keep the values the Data API has.
  settings = {
    db_schemas                  = ["public", "api"]
    db_max_rows                 = 1000
    server_cors_allowed_origins = "https://app.example.com"
  }
}

# Another identity provider instead: its JWKS, given at creation.
resource "neon_auth_data_api" "clerk" {
  project_id    = "autumn-frost-12345678"
  database_name = "analytics" # on the production branch: no branch_id
  auth_provider = "external"
  jwks_url      = "https://example.clerk.accounts.dev/.well-known/jwks.json"
  provider_name = "Clerk"
  jwt_audience  = "analytics"
}

output "data_api_url" {
  value = neon_auth_data_api.neondb.url
}
