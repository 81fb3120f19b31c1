import {
  to = neon_auth_oauth_provider.google
  identity = {
    project_id  = "autumn-frost-12345678"
    provider_id = "google"
  }
}
