resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# A service account managed as code. It appears in the users_sync table of
# the integration's schema. Changing email or name creates a new user.
resource "neon_auth_user" "ci_bot" {
  # Referencing the integration makes Terraform create it first.
  project_id = neon_auth_integration.this.project_id
  email      = "ci-bot@example.com"
  name       = "CI Bot" # optional, 1 to 255 characters
}

output "ci_bot_user_id" {
  value = neon_auth_user.ci_bot.user_id
}
