# Secrets kept out of the configuration and out of the state: the API key
# from the environment, the OAuth client secret and the SMTP password as
# write-only arguments fed by ephemeral variables. Needs Terraform 1.11 or
# OpenTofu 1.11, or later.

terraform {
  # Write-only arguments need Terraform 1.11 (ephemeral variables: 1.10;
  # both OpenTofu 1.11).
  required_version = ">= 1.11"

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

# Ephemeral: the value may be used only where Terraform does not keep it
# (write-only arguments, provider blocks), never in state or a saved plan.
variable "github_client_secret" {
  description = "Client secret of the GitHub OAuth app (TF_VAR_github_client_secret)."
  type        = string
  sensitive   = true
  ephemeral   = true
}

variable "smtp_password" {
  description = "Password of the SMTP server (TF_VAR_smtp_password)."
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "neon_auth_integration" "this" {
  project_id = var.project_id
}

resource "neon_auth_oauth_provider" "github" {
  project_id       = neon_auth_integration.this.project_id
  branch_id        = neon_auth_integration.this.branch_id
  provider_id      = "github"
  client_id        = "Iv1.0123456789abcdef"
  client_secret_wo = var.github_client_secret
  # Terraform cannot see a new value of a write-only argument: increase the
  # version to send the secret again after rotating it.
  client_secret_wo_version = 1
}

resource "neon_auth_email_server" "smtp" {
  project_id          = neon_auth_integration.this.project_id
  branch_id           = neon_auth_integration.this.branch_id
  type                = "standard"
  host                = "smtp.example.com"
  port                = 587
  username            = "mailer"
  password_wo         = var.smtp_password
  password_wo_version = 1
  sender_email        = "noreply@example.com"
  sender_name         = "Acme"
}
