import {
  to = neon_auth_email_and_password.this
  id = "autumn-frost-12345678/br-quiet-leaf-12345678"
}
