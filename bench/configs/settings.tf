resource "neon_auth_integration" "this" {
  project_id    = %q
  auth_provider = "better_auth"
}

resource "neon_auth_email_and_password" "this" {
  project_id                 = neon_auth_integration.this.project_id
  enabled                    = true
  email_verification_method  = "otp"
  require_email_verification = true
}

resource "neon_auth_organization_plugin" "this" {
  project_id            = neon_auth_integration.this.project_id
  enabled               = true
  organization_limit    = 5
  membership_limit      = 50
  creator_role          = "owner"
  send_invitation_email = true
}

resource "neon_auth_magic_link_plugin" "this" {
  project_id = neon_auth_integration.this.project_id
  enabled    = true
  expires_in = 15
}

resource "neon_auth_phone_number_plugin" "this" {
  project_id     = neon_auth_integration.this.project_id
  enabled        = true
  otp_expires_in = 300
}

resource "neon_auth_webhooks" "this" {
  project_id      = neon_auth_integration.this.project_id
  enabled         = true
  webhook_url     = "https://hooks.example.com/neon-auth"
  enabled_events  = ["user.created", "send.otp", "send.magic_link"]
  timeout_seconds = 5
}

resource "neon_auth_domain" "app" {
  for_each   = toset(["https://app.example.com", "https://staging.example.com", "http://localhost:3000"])
  project_id = neon_auth_integration.this.project_id
  domain     = each.value
}

resource "neon_auth_oauth_provider" "this" {
  for_each    = toset(["google", "github"])
  project_id  = neon_auth_integration.this.project_id
  provider_id = each.value
}

resource "neon_auth_email_server" "smtp" {
  project_id   = neon_auth_integration.this.project_id
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = "bench-smtp-password"
  sender_email = "noreply@example.com"
  sender_name  = "Bench"
}
