import {
  to = neon_auth_phone_number_plugin.this
  id = "autumn-frost-12345678/br-quiet-leaf-12345678"
}
