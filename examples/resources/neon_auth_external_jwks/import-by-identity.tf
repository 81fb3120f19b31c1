import {
  to = neon_auth_external_jwks.clerk
  identity = {
    project_id = "autumn-frost-12345678"
    jwks_id    = "8d0c4f7e-2b1a-4c3d-9e8f-1a2b3c4d5e6f"
  }
}
