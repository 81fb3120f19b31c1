# The secrets of examples/guides/secrets through the arguments every
# supported CLI has: the OAuth client secret and the SMTP password come from
# variables marked sensitive and go to client_secret and password, which
# Terraform keeps in the state, marked sensitive (hidden in plans and
# output, in plain text in the state file). Needs Terraform 1.8 or OpenTofu
# 1.10, or later.

terraform {
  required_version = ">= 1.8"

  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.2"
    }
  }
}

# api_key is not set here: the provider reads NEON_API_KEY.
provider "neon" {
  auth_api = "branch"
}

variable "project_id" {
  description = "The Neon project, such as autumn-frost-12345678."
  type        = string
}

# Sensitive, not ephemeral: the value may go to the state, and Terraform
# hides it wherever it shows values.
variable "github_client_secret" {
  description = "Client secret of the GitHub OAuth app (TF_VAR_github_client_secret)."
  type        = string
  sensitive   = true
}

variable "smtp_password" {
  description = "Password of the SMTP server (TF_VAR_smtp_password)."
  type        = string
  sensitive   = true
}

resource "neon_auth_integration" "this" {
  project_id = var.project_id
}

# A new value of the variable plans an in-place update by itself: the state
# holds the value sent last.
resource "neon_auth_oauth_provider" "github" {
  project_id    = neon_auth_integration.this.project_id
  branch_id     = neon_auth_integration.this.branch_id
  provider_id   = "github"
  client_id     = "Iv1.0123456789abcdef"
  client_secret = var.github_client_secret
}

resource "neon_auth_email_server" "smtp" {
  project_id   = neon_auth_integration.this.project_id
  branch_id    = neon_auth_integration.this.branch_id
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = var.smtp_password
  sender_email = "noreply@example.com"
  sender_name  = "Acme"
}
