resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# Sign-in with codes sent by SMS through the send.otp webhook event.
resource "neon_auth_phone_number_plugin" "this" {
  project_id     = neon_auth_integration.this.project_id
  enabled        = true
  otp_expires_in = 300
}

resource "neon_auth_webhooks" "this" {
  project_id     = neon_auth_integration.this.project_id
  enabled        = true
  webhook_url    = "https://hooks.example.com/neon-auth"
  enabled_events = ["send.otp"]
}
