# Neon Auth on a project's production branch. With auth_api = "branch" the
# default auth provider is Better Auth; with "project", Stack Auth.
resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"

  # Optional:
  # branch_id       = "br-..."       # default: the production branch
  # auth_provider   = "better_auth"  # or "stack", "mock"
  # database_name   = "neondb"       # default: the branch's default database
  # name            = "Acme"         # shown in auth emails (auth_api = "branch")
  # allow_localhost = true           # development redirects (auth_api = "branch")
}

# Better Auth clients talk to base_url and verify tokens with the JWKS.
output "auth_base_url" {
  value = neon_auth_integration.this.base_url
}

output "jwks_url" {
  value = neon_auth_integration.this.jwks_url
}
