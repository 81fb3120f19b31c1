import {
  to = neon_auth_domains.all
  id = "autumn-frost-12345678"
}
