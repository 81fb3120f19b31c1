# The whitelisted domains of one branch, with their values (include_resource).
list "neon_auth_domain" "preview" {
  provider         = neon
  include_resource = true

  config {
    project_id = "autumn-frost-12345678"
    branch_id  = "br-quiet-leaf-12345678"
  }
}
