import {
  to = neon_auth_data_api.neondb
  id = "autumn-frost-12345678/br-quiet-leaf-12345678/neondb"
}
