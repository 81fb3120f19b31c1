resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# A fresh key pair for the SDKs. Change a trigger to rotate.
resource "neon_auth_sdk_keys" "app" {
  project_id = neon_auth_integration.this.project_id

  rotation_triggers = {
    rotated = "2026-11"
  }
}

output "publishable_client_key" {
  value     = neon_auth_sdk_keys.app.pub_client_key
  sensitive = true
}
