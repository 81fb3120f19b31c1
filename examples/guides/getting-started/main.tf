# Neon Auth with Better Auth on the production branch of an existing Neon
# project, through the branch-scoped API. Needs Terraform 1.8 or OpenTofu
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

# The API key comes from NEON_API_KEY.
provider "neon" {
  auth_api = "branch"
}

variable "project_id" {
  description = "The Neon project, such as autumn-frost-12345678."
  type        = string
}

variable "app_origin" {
  description = "Where your application runs: the only origin sign-in may redirect to."
  type        = string
  default     = "https://app.example.com"
}

# No branch_id: the project's production branch, recorded in the state.
resource "neon_auth_integration" "this" {
  project_id      = var.project_id
  auth_provider   = "better_auth"
  name            = "Acme" # the application name in auth emails
  allow_localhost = true   # sign-in from http://localhost during development
}

# The other resources name the integration's project and branch, so they are
# created after it, on the same branch.
resource "neon_auth_domains" "this" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  domains    = [var.app_origin]
}

resource "neon_auth_email_and_password" "this" {
  project_id                 = neon_auth_integration.this.project_id
  branch_id                  = neon_auth_integration.this.branch_id
  enabled                    = true
  require_email_verification = true
}

# GitHub sign-in with the platform's shared OAuth app; give client_id and a
# client secret to use your own (see the secrets guide).
resource "neon_auth_oauth_provider" "github" {
  project_id  = neon_auth_integration.this.project_id
  branch_id   = neon_auth_integration.this.branch_id
  provider_id = "github"
}

output "branch_id" {
  description = "The production branch that has Neon Auth."
  value       = neon_auth_integration.this.branch_id
}

output "auth_base_url" {
  description = "Base URL of the auth service, for the Better Auth client of your application."
  value       = neon_auth_integration.this.base_url
}

output "jwks_url" {
  description = "Key set to verify the tokens that Neon Auth issues."
  value       = neon_auth_integration.this.jwks_url
}
