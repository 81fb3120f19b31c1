# The Data API with another identity provider (Clerk, Auth0, Cognito,
# Stytch, …) instead of Neon Auth: it accepts the JWTs that provider issues,
# verified with the keys its JWKS URL publishes. Needs Terraform 1.8 or
# OpenTofu 1.10, or later.

terraform {
  required_version = ">= 1.8"

  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.2"
    }
  }
}

provider "neon" {}

variable "project_id" {
  description = "The Neon project, such as autumn-frost-12345678."
  type        = string
}

variable "branch_id" {
  description = "The branch, such as br-quiet-leaf-12345678; null: the production branch."
  type        = string
  default     = null
}

variable "jwks_url" {
  description = "The identity provider's JSON Web Key Set; Clerk's is https://<your-app>.clerk.accounts.dev/.well-known/jwks.json."
  type        = string
}

variable "provider_name" {
  description = "The identity provider's name."
  type        = string
  default     = "Clerk"
}

# The Data API of the branch's database, verifying tokens with the
# provider's keys. Every argument but settings is given once, at creation.
resource "neon_auth_data_api" "this" {
  project_id         = var.project_id
  branch_id          = var.branch_id
  database_name      = "neondb"
  auth_provider      = "external"
  jwks_url           = var.jwks_url
  provider_name      = var.provider_name
  add_default_grants = true
}

# The same keys registered with the project, for the branch: JWTs signed with
# them authenticate to its endpoints beyond the Data API. Neon fetches the URL
# and refuses one that publishes no key set.
resource "neon_auth_external_jwks" "this" {
  project_id    = neon_auth_data_api.this.project_id
  branch_id     = neon_auth_data_api.this.branch_id
  jwks_url      = var.jwks_url
  provider_name = var.provider_name
}

output "data_api_url" {
  value = neon_auth_data_api.this.url
}
