import {
  to = neon_auth_webhooks.this
  identity = {
    project_id = "autumn-frost-12345678"
    branch_id  = "br-quiet-leaf-12345678"
  }
}
