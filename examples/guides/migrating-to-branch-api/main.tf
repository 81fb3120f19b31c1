# A configuration written for the project-level endpoints, after the switch:
# the provider block names no auth_api, so it is in branch mode (the
# default); before the switch it said auth_api = "project". Needs Terraform
# 1.8 or OpenTofu 1.10, or later.

terraform {
  required_version = ">= 1.8"

  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.2"
    }
  }
}

provider "neon" {
  # auth_api = "project" would keep the deprecated project-level endpoints.
}

variable "project_id" {
  description = "The Neon project, such as autumn-frost-12345678."
  type        = string
}

# Created in project mode: Stack Auth on the production branch.
resource "neon_auth_integration" "this" {
  project_id = var.project_id
}

resource "neon_auth_domain" "app" {
  project_id = neon_auth_integration.this.project_id
  domain     = "https://app.example.com"
}

resource "neon_auth_oauth_provider" "github" {
  project_id  = neon_auth_integration.this.project_id
  provider_id = "github"
}

resource "neon_auth_user" "ci_bot" {
  project_id = neon_auth_integration.this.project_id
  email      = "ci-bot@example.com"
  name       = "CI Bot"
}
