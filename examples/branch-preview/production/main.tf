# Production's Neon Auth, and the Data API that accepts its tokens. Every
# branch created from production starts with a copy of both: the preview
# configuration in the directory above takes those copies over on a preview
# branch. Needs Terraform 1.11 or OpenTofu 1.11, or later: the Google secret
# is an ephemeral variable sent write-only.

terraform {
  required_version = ">= 1.11"

  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.2"
    }
  }
}

provider "neon" {
  # api_key from NEON_API_KEY
}

variable "project_id" {
  description = "Neon project; its production branch gets Neon Auth."
  type        = string
}

variable "google_client_id" {
  description = "Client id of the Google OAuth app."
  type        = string
}

variable "google_client_secret" {
  description = "Its client secret. Sent write-only: never stored in state."
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "neon_auth_integration" "production" {
  project_id = var.project_id
  name       = "Acme"
}

resource "neon_auth_domains" "production" {
  project_id = neon_auth_integration.production.project_id
  domains    = ["https://app.example.com"]
}

resource "neon_auth_oauth_provider" "google" {
  project_id               = neon_auth_integration.production.project_id
  provider_id              = "google"
  client_id                = var.google_client_id
  client_secret_wo         = var.google_client_secret
  client_secret_wo_version = 1
}

resource "neon_auth_email_and_password" "production" {
  project_id                 = neon_auth_integration.production.project_id
  require_email_verification = true
}

resource "neon_auth_webhooks" "production" {
  project_id     = neon_auth_integration.production.project_id
  enabled        = true
  webhook_url    = "https://app.example.com/api/auth-events"
  enabled_events = ["user.created"]
}

# The Data API of production's database: a REST interface over it that
# accepts the JWTs of production's Neon Auth and applies row-level security
# (see the guide "Neon Auth and the Data API" for the policies).
resource "neon_auth_data_api" "production" {
  project_id         = neon_auth_integration.production.project_id
  branch_id          = neon_auth_integration.production.branch_id
  database_name      = "neondb"
  auth_provider      = "neon_auth"
  add_default_grants = true
  settings = {
    db_schemas  = ["public"]
    db_max_rows = 1000
  }
}
