data "neon_auth_integrations" "this" {
  project_id = "autumn-frost-12345678"
}

output "integration_owner" {
  value = one(data.neon_auth_integrations.this.integrations[*].owned_by)
}
