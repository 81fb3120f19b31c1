import {
  to = neon_auth_domain.app["https://app.example.com"]
  identity = {
    project_id = "autumn-frost-12345678"
    domain     = "https://app.example.com"
  }
}
