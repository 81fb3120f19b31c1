# Applied with the 0.1 development build and auth_api = "branch": every resource type of a
# Better Auth integration on a branch that is not the production one, whose
# 0.1 ids (<project_id>/better_auth, <project_id>/github, …) do not name it.
# See ../generate.sh.
terraform {
  required_providers {
    neon = {
      source = "neon-auth/neon"
    }
  }
}

variable "project_id" {
  type = string
}

variable "branch_id" {
  type = string
}

resource "neon_auth_integration" "dev" {
  project_id      = var.project_id
  branch_id       = var.branch_id
  name            = "Dev"
  allow_localhost = true
}

resource "neon_auth_oauth_provider" "github" {
  project_id  = neon_auth_integration.dev.project_id
  branch_id   = neon_auth_integration.dev.branch_id
  provider_id = "github"
}

resource "neon_auth_domain" "app" {
  project_id = neon_auth_integration.dev.project_id
  branch_id  = neon_auth_integration.dev.branch_id
  domain     = "https://dev.example.com"
}

resource "neon_auth_email_server" "smtp" {
  project_id   = neon_auth_integration.dev.project_id
  branch_id    = neon_auth_integration.dev.branch_id
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = "smtp-secret"
  sender_email = "noreply@example.com"
  sender_name  = "Example"
}

resource "neon_auth_user" "seed" {
  project_id = neon_auth_integration.dev.project_id
  branch_id  = neon_auth_integration.dev.branch_id
  email      = "seed@example.com"
  roles      = ["admin"]
}

resource "neon_auth_email_and_password" "this" {
  project_id                 = neon_auth_integration.dev.project_id
  branch_id                  = neon_auth_integration.dev.branch_id
  enabled                    = true
  email_verification_method  = "otp"
  require_email_verification = true
}

resource "neon_auth_magic_link_plugin" "this" {
  project_id = neon_auth_integration.dev.project_id
  branch_id  = neon_auth_integration.dev.branch_id
  enabled    = true
  expires_in = 15
}

resource "neon_auth_organization_plugin" "this" {
  project_id         = neon_auth_integration.dev.project_id
  branch_id          = neon_auth_integration.dev.branch_id
  enabled            = true
  organization_limit = 5
}

# allowed_attempts is left out: Neon removed it in 2026.
resource "neon_auth_phone_number_plugin" "this" {
  project_id     = neon_auth_integration.dev.project_id
  branch_id      = neon_auth_integration.dev.branch_id
  enabled        = true
  otp_expires_in = 300
}

resource "neon_auth_webhooks" "this" {
  project_id     = neon_auth_integration.dev.project_id
  branch_id      = neon_auth_integration.dev.branch_id
  enabled        = true
  webhook_url    = "https://hooks.example.com/neon-auth"
  enabled_events = ["send.otp"]
}
