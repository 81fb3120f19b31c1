# Quick start: the auth integration of one Neon project, with everything the
# provider manages around it. Against the real API, export NEON_API_KEY, set
# project_id (terraform apply -var project_id=...) and give the two secrets
# (TF_VAR_google_client_secret, TF_VAR_smtp_password). `make demo` applies it
# to the local emulator, with the project the emulator created and made-up
# secrets.

terraform {
  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.1" # the auth API is in beta: pin the provider
    }
  }
}

provider "neon" {
  # api_key  from NEON_API_KEY
  # base_url from NEON_API_BASE_URL (the demo points it at the emulator)
}

variable "project_id" {
  description = "Neon project to integrate, such as autumn-frost-12345678."
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

# The managed auth project, on the project's production branch.
resource "neon_auth_integration" "this" {
  project_id = var.project_id
}

# A key pair for the SDKs, rotated by changing the trigger.
resource "neon_auth_sdk_keys" "app" {
  project_id = neon_auth_integration.this.project_id
  rotation_triggers = {
    rotated = "2026-11"
  }
}

# GitHub sign-in with the platform's shared OAuth app.
resource "neon_auth_oauth_provider" "github" {
  project_id  = neon_auth_integration.this.project_id
  provider_id = "github"
}

# Google sign-in with our own OAuth app; the secret is write-only.
resource "neon_auth_oauth_provider" "google" {
  project_id               = neon_auth_integration.this.project_id
  provider_id              = "google"
  client_id                = "demo-google-client.apps.googleusercontent.com"
  client_secret_wo         = var.google_client_secret
  client_secret_wo_version = 1
}

# Origins allowed as redirect targets after sign-in.
resource "neon_auth_domain" "app" {
  for_each   = toset(["https://app.example.com", "https://staging.example.com", "http://localhost:3000"])
  project_id = neon_auth_integration.this.project_id
  domain     = each.value
}

# Our own SMTP server for sign-up and password-reset mail.
resource "neon_auth_email_server" "smtp" {
  project_id          = neon_auth_integration.this.project_id
  type                = "standard"
  host                = "smtp.example.com"
  port                = 587
  username            = "mailer"
  password_wo         = var.smtp_password
  password_wo_version = 1
  sender_email        = "noreply@example.com"
  sender_name         = "Example App"
}

# A seed user; it appears in the neon_auth.users_sync table.
resource "neon_auth_user" "seed" {
  project_id = neon_auth_integration.this.project_id
  email      = "seed@example.com"
  name       = "Seed User"
}

data "neon_auth_integrations" "all" {
  project_id = neon_auth_integration.this.project_id
}

data "neon_projects" "all" {}
