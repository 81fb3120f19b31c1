# A preview branch's Neon Auth, the way Neon makes it. The branch was created
# from production — by the official Neon provider, the Vercel or GitHub
# integration, a CI job or the console — and started with a copy of
# production's Neon Auth — users, sign-in settings, plugins, OAuth providers,
# trusted domains and webhooks — and of production's Data API (./production
# configures them). This configuration takes over what the branch inherited
# (the provider warns about each object it takes over), adds the preview's own
# origin, sends the inherited webhooks to the preview instead of production,
# and gives the preview a Data API of its own that accepts the tokens of the
# preview's Neon Auth. Destroy puts back what it found; deleting the branch is
# left to whatever created it. See the README for how to get the branch id.

terraform {
  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.2"
    }
  }
}

# Branch mode, the default. inherited_auth = "adopt" (the default) takes over
# what the branch inherited; "refuse" would fail with an import hint instead.
provider "neon" {
  # api_key from NEON_API_KEY
}

variable "project_id" {
  description = "Neon project of the preview branch."
  type        = string
}

variable "preview_branch_id" {
  description = "The preview branch, created from production, such as the one a pull request made."
  type        = string
}

variable "preview_origin" {
  description = "Where the preview deployment of the app runs."
  type        = string
  default     = "https://pr-123.preview.example.com"
}

variable "google_client_id" {
  description = "Client id of the Google OAuth app production uses."
  type        = string
}

variable "google_client_secret" {
  description = "Its client secret. Sent write-only: never stored in state."
  type        = string
  sensitive   = true
  ephemeral   = true
}

# The integration the branch inherited: taken over, not created. Destroy
# leaves Neon Auth enabled, with production's name back.
resource "neon_auth_integration" "preview" {
  project_id      = var.project_id
  branch_id       = var.preview_branch_id
  name            = "Acme (preview)"
  allow_localhost = true
}

# The preview's own origin, next to the inherited ones.
resource "neon_auth_domain" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  domain     = var.preview_origin
}

# Inherited webhooks would send the preview's auth events to production's
# endpoint: send them to the preview deployment instead (or set
# enabled = false).
resource "neon_auth_webhooks" "preview" {
  project_id      = neon_auth_integration.preview.project_id
  branch_id       = neon_auth_integration.preview.branch_id
  enabled         = true
  webhook_url     = "${var.preview_origin}/api/auth-events"
  enabled_events  = ["user.created", "send.magic_link"]
  timeout_seconds = 5
}

# The inherited Google sign-in, with production's OAuth app. The branch has
# its own auth endpoint, so the app must also accept this branch's callback
# (the google_callback_url output) among its authorized redirect URIs.
resource "neon_auth_oauth_provider" "google" {
  project_id               = neon_auth_integration.preview.project_id
  branch_id                = neon_auth_integration.preview.branch_id
  provider_id              = "google"
  client_id                = var.google_client_id
  client_secret_wo         = var.google_client_secret
  client_secret_wo_version = 1
}

# Preview testers sign up without waiting for mail, and sign in by link.
resource "neon_auth_email_and_password" "preview" {
  project_id                 = neon_auth_integration.preview.project_id
  branch_id                  = neon_auth_integration.preview.branch_id
  require_email_verification = false
}

resource "neon_auth_magic_link_plugin" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  enabled    = true
  expires_in = 30
}

# The preview's Data API: the branch's copy of production's, on the preview's
# own endpoint, accepting the tokens of the preview's own Neon Auth (a token
# of production's is refused). Taken over when the branch inherited it,
# created otherwise; a smaller row limit for preview traffic. Destroy puts
# back the settings it found.
resource "neon_auth_data_api" "preview" {
  project_id    = neon_auth_integration.preview.project_id
  branch_id     = neon_auth_integration.preview.branch_id
  database_name = "neondb"
  auth_provider = "neon_auth"
  settings = {
    db_max_rows = 100
  }
}

# What the preview deployment needs to talk to its own Neon Auth and Data API.
output "auth_base_url" {
  value = neon_auth_integration.preview.base_url
}

output "jwks_url" {
  value = neon_auth_integration.preview.jwks_url
}

output "google_callback_url" {
  description = "Add it to the Google app's authorized redirect URIs."
  value       = "${neon_auth_integration.preview.base_url}/callback/google"
}

output "data_api_url" {
  description = "The preview's Data API: send requests with a token of the preview's Neon Auth."
  value       = neon_auth_data_api.preview.url
}
