# Neon Auth on a branch, and the Data API that puts its tokens to work: a
# REST interface over the branch's database that accepts the JWTs Neon Auth
# issues to the application's users, and lets row-level security pick the
# rows each one sees. Needs Terraform 1.8 or OpenTofu 1.10, or later.

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

variable "app_origin" {
  description = "Where the application runs: sign-in redirects there, and its browser calls the Data API from there."
  type        = string
  default     = "https://app.example.com"
}

# 1. Neon Auth on the branch: users sign in, and get JWTs signed with the
#    keys of its jwks_url.
resource "neon_auth_integration" "this" {
  project_id = var.project_id
  branch_id  = var.branch_id
}

resource "neon_auth_domains" "this" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  domains    = [var.app_origin]
}

# 2. The Data API of the branch's database, accepting those JWTs. Taking
#    project_id and branch_id from the integration orders the two: Neon Auth
#    is enabled first, and the Data API destroyed first.
resource "neon_auth_data_api" "this" {
  project_id         = neon_auth_integration.this.project_id
  branch_id          = neon_auth_integration.this.branch_id
  database_name      = "neondb"
  auth_provider      = "neon_auth"
  add_default_grants = true # the authenticated role may use the public schema's tables; RLS picks the rows

  settings = {
    db_schemas                  = ["public"]
    db_max_rows                 = 1000
    server_cors_allowed_origins = var.app_origin
  }
}

output "auth_base_url" {
  description = "For the application's Neon Auth client (sign-in, sessions, tokens)."
  value       = neon_auth_integration.this.base_url
}

output "data_api_url" {
  description = "For the application's Data API client: every request carries the signed-in user's JWT."
  value       = neon_auth_data_api.this.url
}
