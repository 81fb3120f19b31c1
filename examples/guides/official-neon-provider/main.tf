# This provider's side of a configuration that also uses the official Neon
# provider. Both name their resource types neon_*, so this provider gets the
# local name "neonauth", and every resource of it says provider = neonauth.
# Here the project and the branch come in as variables; the guide shows the
# same resources next to neon_project and neon_branch of the official
# provider in one configuration.

terraform {
  required_providers {
    neonauth = {
      source  = "neon-auth/neon"
      version = "~> 0.1"
    }
  }
}

provider "neonauth" {
  auth_api = "branch"
}

variable "project_id" {
  description = "The Neon project (neon_project.this.id in the combined configuration)."
  type        = string
}

variable "preview_branch_id" {
  description = "The preview branch (neon_branch.preview.id in the combined configuration)."
  type        = string
}

# Neon Auth on the production branch: no branch_id.
resource "neon_auth_integration" "production" {
  provider   = neonauth
  project_id = var.project_id
}

# Neon Auth of its own on the preview branch.
resource "neon_auth_integration" "preview" {
  provider   = neonauth
  project_id = var.project_id
  branch_id  = var.preview_branch_id
}

resource "neon_auth_domains" "preview" {
  provider   = neonauth
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  domains    = ["https://preview.example.com"]
}

output "production_auth_base_url" {
  value = neon_auth_integration.production.base_url
}

output "preview_auth_base_url" {
  value = neon_auth_integration.preview.base_url
}
