# What the preview deployment needs to talk to its own Neon Auth.
output "auth_base_url" {
  value = neon_auth_integration.preview.base_url
}

output "jwks_url" {
  value = neon_auth_integration.preview.jwks_url
}
