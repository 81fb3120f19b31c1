resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# Email-and-password sign-in with one-time codes, verified before first use.
# Settings left out keep the branch's values.
resource "neon_auth_email_and_password" "this" {
  project_id                 = neon_auth_integration.this.project_id
  enabled                    = true
  email_verification_method  = "otp"
  require_email_verification = true
}
