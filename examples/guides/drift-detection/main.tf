# The configuration that the workflows in examples/ci check: Neon Auth on the
# production branch of one project, with the settings people most often
# change by hand in the console. Needs Terraform 1.8 or OpenTofu 1.10, or
# later (the workflows pin Terraform 1.11.4: set the version your team uses).

terraform {
  required_version = ">= 1.8"

  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.2"
    }
  }

  # The nightly check plans against the state of the last apply: keep it in
  # a backend the CI job can read, for example
  #
  # backend "s3" {
  #   bucket = "acme-terraform-state"
  #   key    = "neon-auth.tfstate"
  #   region = "eu-central-1"
  # }
}

# NEON_API_KEY (and, against neon-emulator, NEON_API_BASE_URL) come from the
# environment, so the same configuration runs against both.
provider "neon" {
  auth_api = "branch"
}

variable "project_id" {
  description = "Neon project whose production branch has Neon Auth."
  type        = string
}

# Settings left out of the configuration are not managed: a change to them
# is reported, but plans nothing. allow_localhost is set so that a
# development setting switched on in production shows as drift.
resource "neon_auth_integration" "this" {
  project_id      = var.project_id
  allow_localhost = false
}

# The whole redirect whitelist: an origin added or removed outside Terraform
# shows as a change.
resource "neon_auth_domains" "this" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  domains    = ["https://app.example.com", "https://admin.example.com"]
}

resource "neon_auth_email_and_password" "this" {
  project_id                 = neon_auth_integration.this.project_id
  branch_id                  = neon_auth_integration.this.branch_id
  enabled                    = true
  require_email_verification = true
}
