# A preview branch's Neon Auth, the way the platforms make it. The branch was
# created from production — by the Vercel or GitHub integration, a CI job, the
# official Neon provider or the console — and started with a copy of
# production's Neon Auth — users, sign-in settings, plugins, OAuth providers,
# trusted domains and webhooks — and of production's Data API (./production
# configures them); the Vercel integration also put the preview's origin into
# its trusted domains. This configuration takes over what the branch has (the
# provider warns about each object it takes over), declares the preview's
# origin, sends the inherited webhooks to the preview instead of production,
# puts Google sign-in on Neon's shared keys (production's app accepts only
# production's callback), and gives the preview a Data API that accepts the
# tokens of the preview's own Neon Auth. The platform deletes the branch when
# the pull request closes, so destroy restores nothing (restore_on_destroy =
# false). See the README for how to find the branch, and
# examples/ci/neon-auth-preview.yml for a workflow that applies this to each
# pull request. Needs Terraform 1.8 or OpenTofu 1.10, or later.

terraform {
  required_version = ">= 1.8"
  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.2"
    }
  }
}

# Branch mode, the default. inherited_auth = "take_over" (the default) takes over
# what the branch already has; "refuse" would fail with an import hint
# instead. restore_on_destroy = false: the branch is disposable, so destroy
# leaves it as configured instead of restoring what was found (it sends
# nothing for what was taken over), and an inherited own OAuth app may be put
# on the shared keys. Leave it out (true) to have destroy restore the branch
# as found, for a branch that outlives this configuration.
provider "neon" {
  # api_key from NEON_API_KEY
  restore_on_destroy = false
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

# The integration the branch inherited: taken over, not created. Destroy
# leaves Neon Auth enabled, with the preview's name.
resource "neon_auth_integration" "preview" {
  project_id      = var.project_id
  branch_id       = var.preview_branch_id
  name            = "Acme (preview)"
  allow_localhost = true
}

# The preview's own origin, next to the inherited ones. Where the Vercel
# integration put it there already, it is taken over (destroy leaves it);
# otherwise it is added (destroy removes it).
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

# The inherited Google sign-in, on Neon's shared keys: production's own
# OAuth app accepts only the callbacks registered with it, and Google takes
# no wildcard redirect URIs, so a preview cannot use it. No secret reaches
# the preview's pipeline. To give previews a Google app of their own instead,
# register each preview's callback (the google_callback_url output) with it
# and set its credentials from variables marked sensitive, which works on
# every supported CLI (the secret is then kept, sensitive, in the state; the
# secrets guide shows the write-only way, Terraform 1.11 and OpenTofu 1.11):
#
#   variable "preview_google_client_secret" {
#     type      = string
#     sensitive = true
#   }
#   ...
#   client_id     = var.preview_google_client_id
#   client_secret = var.preview_google_client_secret
resource "neon_auth_oauth_provider" "google" {
  project_id  = neon_auth_integration.preview.project_id
  branch_id   = neon_auth_integration.preview.branch_id
  provider_id = "google"
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
# created otherwise; a smaller row limit for preview traffic.
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
  description = "The preview's Google callback: register it with a Google app of the previews' own, if they get one."
  value       = "${neon_auth_integration.preview.base_url}/callback/google"
}

output "data_api_url" {
  description = "The preview's Data API: send requests with a token of the preview's Neon Auth."
  value       = neon_auth_data_api.preview.url
}
