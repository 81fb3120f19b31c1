import {
  to = neon_auth_user.ci_bot
  identity = {
    project_id = "autumn-frost-12345678"
    user_id    = "3f1c9a52-8d0e-4b7a-9c1e-2a6f5b4d7e90"
  }
}
