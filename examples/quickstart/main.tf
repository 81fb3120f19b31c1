# Quick start for the local emulator: `make demo` applies it there, on a
# preview branch it creates, with made-up secrets. It shows every kind of
# object: Neon Auth on a branch with Better Auth — the integration, its
# redirect domains, OAuth providers, email server, sign-in settings, a user,
# and the Data API that accepts its tokens — and, on the production branch
# through the deprecated project-level API, a Stack Auth integration with
# its SDK keys, a user in users_sync and an ownership transfer.
#
# Do not apply it to a Neon project you use. On the production branch it
# creates a Stack Auth integration, which Neon has deprecated; SDK keys that
# no API can revoke; and an ownership transfer request, whose link lets
# whoever opens it claim the auth project, and which no API can cancel. Only
# deleting the Stack Auth integration ends the keys and the request. It also
# configures a Google app and an SMTP server that do not exist. On a real
# account start from examples/guides/getting-started (Better Auth on the
# production branch) or examples/branch-preview (a preview branch); to see
# this tour there anyway, use a throwaway project and run terraform destroy
# right after.
#
# Needs Terraform 1.11 or OpenTofu 1.11, or later: ephemeral variables and
# write-only arguments.

terraform {
  required_version = ">= 1.11"

  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.2" # the auth API is in beta: pin the provider
    }
  }
}

# Branch mode, the default: the branch-scoped endpoints, any branch.
provider "neon" {
  # api_key  from NEON_API_KEY
  # base_url from NEON_API_BASE_URL (the demo points it at the emulator)
}

# Project mode: the deprecated project-level endpoints, for the Stack Auth
# integration of the production branch (SDK keys and ownership transfers
# have no branch-scoped successor).
provider "neon" {
  alias    = "project"
  auth_api = "project"
}

variable "project_id" {
  description = "Neon project, such as autumn-frost-12345678."
  type        = string
}

variable "branch_id" {
  description = "Branch that gets Better Auth, such as a preview branch br-quiet-leaf-12345678. Not the production branch, which gets Stack Auth below."
  type        = string
}

variable "google_client_secret" {
  description = "OAuth client secret of the Google app. Sent write-only: never stored in state."
  type        = string
  sensitive   = true
  ephemeral   = true
}

variable "smtp_password" {
  description = "Password of the SMTP server. Sent write-only: never stored in state."
  type        = string
  sensitive   = true
  ephemeral   = true
}

# ---- Better Auth on a branch (branch mode) ----

# Neon Auth on the branch; better_auth is the default auth provider.
resource "neon_auth_integration" "this" {
  project_id      = var.project_id
  branch_id       = var.branch_id
  name            = "Example App" # shown in auth emails
  allow_localhost = true          # development redirects
}

# Origins allowed as redirect targets after sign-in: the whole whitelist, so
# an origin added elsewhere shows as drift.
resource "neon_auth_domains" "all" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  domains    = ["https://app.example.com", "https://staging.example.com"]
}

# GitHub sign-in with the platform's shared OAuth app.
resource "neon_auth_oauth_provider" "github" {
  project_id  = neon_auth_integration.this.project_id
  branch_id   = neon_auth_integration.this.branch_id
  provider_id = "github"
}

# Google sign-in with our own OAuth app; the secret is write-only.
resource "neon_auth_oauth_provider" "google" {
  project_id               = neon_auth_integration.this.project_id
  branch_id                = neon_auth_integration.this.branch_id
  provider_id              = "google"
  client_id                = "demo-google-client.apps.googleusercontent.com"
  client_secret_wo         = var.google_client_secret
  client_secret_wo_version = 1
}

# Our own SMTP server for sign-up and password-reset mail.
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
  sender_name         = "Example App"
}

# Sign-in settings: email and password with one-time codes, and magic links.
resource "neon_auth_email_and_password" "this" {
  project_id                 = neon_auth_integration.this.project_id
  branch_id                  = neon_auth_integration.this.branch_id
  enabled                    = true
  email_verification_method  = "otp"
  require_email_verification = true
}

resource "neon_auth_magic_link_plugin" "this" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  enabled    = true
  expires_in = 15
}

# A user of the branch, with a role.
resource "neon_auth_user" "admin" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  email      = "admin@example.com"
  name       = "Admin"
  roles      = ["admin"]
}

# The Data API of the branch's database: a REST interface that accepts the
# JWTs of this Neon Auth and applies row-level security. The references to
# the integration make Terraform enable Neon Auth first.
resource "neon_auth_data_api" "this" {
  project_id         = neon_auth_integration.this.project_id
  branch_id          = neon_auth_integration.this.branch_id
  database_name      = "neondb"
  auth_provider      = "neon_auth"
  add_default_grants = true # authenticated users may use the public schema; RLS picks the rows
  settings = {
    db_schemas  = ["public"]
    db_max_rows = 500
  }
}

# ---- Stack Auth on the production branch (project mode) ----

# The managed Stack Auth project of the production branch.
resource "neon_auth_integration" "stack" {
  provider   = neon.project
  project_id = var.project_id
}

# A key pair for the Stack Auth SDKs, rotated by changing the trigger.
resource "neon_auth_sdk_keys" "app" {
  provider   = neon.project
  project_id = neon_auth_integration.stack.project_id
  rotation_triggers = {
    rotated = "2026-11"
  }
}

# A seed user; it appears in the neon_auth.users_sync table.
resource "neon_auth_user" "seed" {
  provider   = neon.project
  project_id = neon_auth_integration.stack.project_id
  email      = "seed@example.com"
  name       = "Seed User"
}

# Step 1 of moving the managed auth project to our own Stack Auth account:
# open the URL (sensitive) in a browser to confirm.
resource "neon_auth_ownership_transfer" "this" {
  provider   = neon.project
  project_id = neon_auth_integration.stack.project_id
}

data "neon_auth_integrations" "production" {
  provider   = neon.project
  project_id = neon_auth_integration.stack.project_id
  # Read after the transfer starts, so that its status is in the first apply.
  depends_on = [neon_auth_ownership_transfer.this]
}

data "neon_projects" "all" {}
