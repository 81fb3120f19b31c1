import {
  to = neon_auth_data_api.neondb
  identity = {
    project_id    = "autumn-frost-12345678"
    branch_id     = "br-quiet-leaf-12345678"
    database_name = "neondb"
  }
}
