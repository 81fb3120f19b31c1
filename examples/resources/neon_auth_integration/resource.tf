# The managed auth project of a Neon project, on its production branch.
resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"

  # Optional, shown with their defaults:
  # auth_provider = "stack"
  # database_name = "neondb"
  # role_name     = "neondb_owner"
  # branch_id     = "br-..."  # default: the branch whose `default` flag is true
}

output "jwks_url" {
  value = neon_auth_integration.this.jwks_url
}

# The keys are returned only at creation and are sensitive.
output "secret_server_key" {
  value     = neon_auth_integration.this.secret_server_key
  sensitive = true
}
