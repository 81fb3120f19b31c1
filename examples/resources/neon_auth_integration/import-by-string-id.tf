import {
  to = neon_auth_integration.this
  id = "autumn-frost-12345678"
}
