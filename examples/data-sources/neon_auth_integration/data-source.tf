# One branch's integration, for checks in CI: no secrets.
data "neon_auth_integration" "prod" {
  project_id = "autumn-frost-12345678"
}

output "auth_provider" {
  value = data.neon_auth_integration.prod.auth_provider
}
