resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# GitHub sign-in with the platform's shared OAuth app (type = "shared").
resource "neon_auth_oauth_provider" "github" {
  project_id  = neon_auth_integration.this.project_id
  provider_id = "github"
}

# Google sign-in with your own OAuth app (type = "standard"). The write-only
# secret never reaches the state; bump the version to send a new one.
variable "google_client_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "neon_auth_oauth_provider" "google" {
  project_id               = neon_auth_integration.this.project_id
  provider_id              = "google"
  client_id                = "1234567890-abc.apps.googleusercontent.com"
  client_secret_wo         = var.google_client_secret
  client_secret_wo_version = 1
}
