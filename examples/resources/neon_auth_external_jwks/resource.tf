# Clerk's signing keys, trusted by every branch of the project: JWTs signed
# with them authenticate to the project's endpoints.
resource "neon_auth_external_jwks" "clerk" {
  project_id    = "autumn-frost-12345678"
  jwks_url      = "https://example.clerk.accounts.dev/.well-known/jwks.json"
  provider_name = "Clerk"
  jwt_audience  = "app"
}

# Auth0's, for one branch only.
resource "neon_auth_external_jwks" "auth0_staging" {
  project_id    = "autumn-frost-12345678"
  branch_id     = "br-quiet-leaf-12345678"
  jwks_url      = "https://example.eu.auth0.com/.well-known/jwks.json"
  provider_name = "Auth0"
}
