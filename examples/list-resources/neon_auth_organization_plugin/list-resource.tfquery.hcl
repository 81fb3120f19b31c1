# Needs auth_api = "branch" in the provider block.
list "neon_auth_organization_plugin" "all" {
  provider = neon

  config {
    project_id = "autumn-frost-12345678"
  }
}
