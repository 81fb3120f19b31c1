import {
  to = neon_auth_integration.this
  identity = {
    project_id = "autumn-frost-12345678"
  }
}
