data "neon_auth_domains" "prod" {
  project_id = "autumn-frost-12345678"
}

# Fail the run when a non-https origin is whitelisted in production.
check "https_only" {
  assert {
    condition     = alltrue([for d in data.neon_auth_domains.prod.domains : startswith(d.domain, "https://")])
    error_message = "The production whitelist holds a plain http:// origin."
  }
}
