import {
  to = neon_auth_domain.app["https://app.example.com"]
  id = "autumn-frost-12345678/https://app.example.com"
}
