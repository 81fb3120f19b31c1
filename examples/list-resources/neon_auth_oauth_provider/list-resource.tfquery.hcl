list "neon_auth_oauth_provider" "all" {
  provider = neon

  config {
    project_id = "autumn-frost-12345678"
  }
}
