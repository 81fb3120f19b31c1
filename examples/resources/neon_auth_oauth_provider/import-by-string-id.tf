import {
  to = neon_auth_oauth_provider.google
  id = "autumn-frost-12345678/google"
}
