resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# Step 1: request the transfer of the managed auth project to your own
# account at the auth provider. Step 2 happens outside Terraform: open the
# URL in a browser and confirm the receiving account. Destroying this
# resource only forgets the request; a confirmed transfer stays.
resource "neon_auth_ownership_transfer" "this" {
  project_id = neon_auth_integration.this.project_id
}

# The URL is a confirmation link: keep it sensitive. Print it with
#   terraform output -raw transfer_url
output "transfer_url" {
  value     = neon_auth_ownership_transfer.this.url
  sensitive = true
}

# true once the transfer has been confirmed (seen on the next refresh).
output "transferred" {
  value = neon_auth_ownership_transfer.this.transferred
}
