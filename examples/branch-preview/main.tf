# Neon Auth on a preview branch: its own sign-in, plugins and webhooks, next to
# production's. The branch itself is created elsewhere — by the official Neon
# provider, the Neon GitHub integration or a CI step — and passed in; the
# branch-scoped API (auth_api = "branch") reaches any branch.

terraform {
  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.1"
    }
  }
}

provider "neon" {
  # api_key from NEON_API_KEY
  auth_api = "branch"
}

variable "project_id" {
  description = "Neon project of the preview branch."
  type        = string
}

variable "preview_branch_id" {
  description = "The preview branch, such as the one a pull request created."
  type        = string
}

variable "preview_origin" {
  description = "Where the preview deployment of the app runs."
  type        = string
  default     = "https://pr-123.preview.example.com"
}

# Better Auth on the preview branch (the branch API's default provider).
resource "neon_auth_integration" "preview" {
  project_id      = var.project_id
  branch_id       = var.preview_branch_id
  name            = "Acme (preview)"
  allow_localhost = true
}

# Exactly the preview's origin may receive redirects.
resource "neon_auth_domains" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  domains    = [var.preview_origin]
}

resource "neon_auth_email_and_password" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  enabled    = true
  # Preview testers sign up without waiting for mail.
  require_email_verification = false
}

resource "neon_auth_organization_plugin" "preview" {
  project_id         = neon_auth_integration.preview.project_id
  branch_id          = neon_auth_integration.preview.branch_id
  enabled            = true
  organization_limit = 3
}

resource "neon_auth_magic_link_plugin" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  enabled    = true
  expires_in = 30
}

resource "neon_auth_webhooks" "preview" {
  project_id      = neon_auth_integration.preview.project_id
  branch_id       = neon_auth_integration.preview.branch_id
  enabled         = true
  webhook_url     = "${var.preview_origin}/api/auth-events"
  enabled_events  = ["user.created", "send.magic_link"]
  timeout_seconds = 5
}
