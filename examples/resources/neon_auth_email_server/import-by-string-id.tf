import {
  to = neon_auth_email_server.smtp
  id = "autumn-frost-12345678"
}
