resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# The whole redirect URI whitelist: any other origin found there (added in
# the console, say) shows in the plan and is removed by apply.
resource "neon_auth_domains" "all" {
  project_id = neon_auth_integration.this.project_id
  domains = [
    "https://app.example.com",
    "https://admin.example.com",
  ]
}
