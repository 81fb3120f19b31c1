import {
  to = neon_auth_email_server.smtp
  identity = {
    project_id = "autumn-frost-12345678"
  }
}
