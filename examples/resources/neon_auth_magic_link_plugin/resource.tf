resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# Passwordless sign-in by emailed links, valid for 15 minutes.
resource "neon_auth_magic_link_plugin" "this" {
  project_id = neon_auth_integration.this.project_id
  enabled    = true
  expires_in = 15
}
