resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# One resource per whitelisted origin (scheme, host, optional port).
resource "neon_auth_domain" "app" {
  for_each = toset([
    "https://app.example.com",
    "https://staging.example.com",
    "http://localhost:3000",
  ])

  project_id = neon_auth_integration.this.project_id
  domain     = each.value
}
