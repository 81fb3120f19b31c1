resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# Auth events posted to your service over https.
resource "neon_auth_webhooks" "this" {
  project_id      = neon_auth_integration.this.project_id
  enabled         = true
  webhook_url     = "https://hooks.example.com/neon-auth"
  enabled_events  = ["user.created", "send.otp", "send.magic_link"]
  timeout_seconds = 5
}
