# Every integration of the project: one per branch with Neon Auth in branch mode,
# the production branch's in project mode.
list "neon_auth_integration" "all" {
  provider = neon

  config {
    project_id = "autumn-frost-12345678"
  }
}
