# The JWKS a project trusts, named by provider, URL and branches.
list "neon_auth_external_jwks" "all" {
  provider = neon

  config {
    project_id = "autumn-frost-12345678"
  }
}
