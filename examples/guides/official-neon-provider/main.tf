# This provider's side of a configuration that also uses the official Neon
# provider. Both name their resource types neon_*, so this provider gets the
# local name "neonauth", and every resource of it says provider = neonauth.
# Here the project and the preview branch come in as variables; the guide
# shows the same resources next to neon_project and neon_branch of the
# official provider in one configuration. This provider needs Terraform 1.8
# or OpenTofu 1.10, or later; see the official provider's documentation for
# its own.

terraform {
  required_version = ">= 1.8"

  required_providers {
    neonauth = {
      source  = "neon-auth/neon"
      version = "~> 0.2"
    }
  }
}

# Branch mode, the default.
provider "neonauth" {}

variable "project_id" {
  description = "The Neon project (neon_project.this.id in the combined configuration)."
  type        = string
}

variable "preview_branch_id" {
  description = "The preview branch, created from production (neon_branch.preview.id in the combined configuration)."
  type        = string
}

# Neon Auth on the production branch: no branch_id.
resource "neon_auth_integration" "production" {
  provider   = neonauth
  project_id = var.project_id
}

resource "neon_auth_domains" "production" {
  provider   = neonauth
  project_id = neon_auth_integration.production.project_id
  domains    = ["https://app.example.com"]
}

# The preview's Neon Auth: taken over when the branch inherited production's,
# enabled otherwise.
resource "neon_auth_integration" "preview" {
  provider   = neonauth
  project_id = var.project_id
  branch_id  = var.preview_branch_id
}

resource "neon_auth_domain" "preview" {
  provider   = neonauth
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  domain     = "https://preview.example.com"
}

output "production_auth_base_url" {
  value = neon_auth_integration.production.base_url
}

output "preview_auth_base_url" {
  value = neon_auth_integration.preview.base_url
}
