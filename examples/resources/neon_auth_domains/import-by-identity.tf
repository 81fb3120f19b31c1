import {
  to = neon_auth_domains.all
  identity = {
    project_id = "autumn-frost-12345678"
  }
}
