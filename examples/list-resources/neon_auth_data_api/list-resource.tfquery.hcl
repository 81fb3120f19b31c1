# The Data APIs of every branch's databases (in both API modes), with their
# settings (include_resource).
list "neon_auth_data_api" "all" {
  provider         = neon
  include_resource = true

  config {
    project_id = "autumn-frost-12345678"
  }
}
