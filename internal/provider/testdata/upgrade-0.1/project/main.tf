# Applied with the 0.1 development build and no auth_api (its default, the project-level
# endpoints): every resource type of a Stack Auth integration on the
# production branch. See ../generate.sh.
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

variable "other_project_id" {
  type = string
}

resource "neon_auth_integration" "stack" {
  project_id = var.project_id
}

resource "neon_auth_oauth_provider" "google" {
  project_id    = neon_auth_integration.stack.project_id
  provider_id   = "google"
  client_id     = "google-client"
  client_secret = "google-secret"
}

resource "neon_auth_oauth_provider" "github" {
  project_id  = neon_auth_integration.stack.project_id
  provider_id = "github"
}

resource "neon_auth_domain" "app" {
  project_id = neon_auth_integration.stack.project_id
  domain     = "https://app.example.com"
}

resource "neon_auth_email_server" "smtp" {
  project_id   = neon_auth_integration.stack.project_id
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = "smtp-secret"
  sender_email = "noreply@example.com"
  sender_name  = "Example"
}

resource "neon_auth_user" "seed" {
  project_id = neon_auth_integration.stack.project_id
  email      = "seed@example.com"
  name       = "Seed"
}

resource "neon_auth_sdk_keys" "app" {
  project_id = neon_auth_integration.stack.project_id
}

resource "neon_auth_ownership_transfer" "this" {
  project_id = neon_auth_integration.stack.project_id
}

# The authoritative whitelist, on a second project (it would own the domain
# above on the first).
resource "neon_auth_integration" "other" {
  project_id = var.other_project_id
}

resource "neon_auth_domains" "all" {
  project_id = neon_auth_integration.other.project_id
  domains    = ["https://admin.example.com", "https://app.example.com"]
}
