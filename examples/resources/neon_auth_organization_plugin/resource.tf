resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# Multi-tenant apps: users create organizations and invite members.
resource "neon_auth_organization_plugin" "this" {
  project_id            = neon_auth_integration.this.project_id
  enabled               = true
  organization_limit    = 5
  membership_limit      = 50
  creator_role          = "owner"
  send_invitation_email = true
}
