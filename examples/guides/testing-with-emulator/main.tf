# A configuration under test. Nothing in it names an API: the key and the base
# URL come from NEON_API_KEY and NEON_API_BASE_URL, which neon-emulator prints.
# Needs Terraform 1.8 or OpenTofu 1.10, or later (terraform test and tofu test
# included).

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
  auth_api = "branch"
}

variable "project_id" {
  description = "The Neon project: against the emulator, one it created."
  type        = string
}

variable "origins" {
  description = "Origins sign-in may redirect to."
  type        = list(string)
  default     = ["https://app.example.com"]
}

resource "neon_auth_integration" "this" {
  project_id = var.project_id
}

resource "neon_auth_domains" "this" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  domains    = var.origins
}

resource "neon_auth_user" "qa" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  email      = "qa@example.com"
  name       = "QA"
  roles      = ["admin"]
}

output "auth_provider_project_id" {
  description = "Id of the auth project; another one means the integration was replaced."
  value       = neon_auth_integration.this.auth_provider_project_id
}

output "jwks_url" {
  value = neon_auth_integration.this.jwks_url
}
