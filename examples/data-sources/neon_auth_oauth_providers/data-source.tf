data "neon_auth_oauth_providers" "prod" {
  project_id = "autumn-frost-12345678"
}

# Production must use its own OAuth apps, not the platform's shared keys.
check "own_oauth_apps" {
  assert {
    condition     = alltrue([for p in data.neon_auth_oauth_providers.prod.providers : p.type == "standard"])
    error_message = "An OAuth provider of production uses the platform's shared keys."
  }
}
