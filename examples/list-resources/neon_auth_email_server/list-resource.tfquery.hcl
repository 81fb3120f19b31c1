list "neon_auth_email_server" "all" {
  provider = neon

  config {
    project_id = "autumn-frost-12345678"
  }
}
