# Needs auth_api = "branch" in the provider block.
list "neon_auth_email_and_password" "all" {
  provider = neon

  config {
    project_id = "autumn-frost-12345678"
  }
}
