output "project_id" {
  description = "The project."
  value       = neon_auth_integration.this.project_id
}

output "better_auth" {
  description = "The Better Auth integration of the branch: its id names the branch; clients talk to base_url and verify tokens with the JWKS."
  value = {
    id       = neon_auth_integration.this.id
    base_url = neon_auth_integration.this.base_url
    jwks_url = neon_auth_integration.this.jwks_url
  }
}

output "data_api_url" {
  description = "The Data API of the branch's database: requests carry a JWT of its Neon Auth."
  value       = neon_auth_data_api.this.url
}

output "oauth_provider_types" {
  description = "shared (platform keys) or standard (own credentials), per provider."
  value = {
    github = neon_auth_oauth_provider.github.type
    google = neon_auth_oauth_provider.google.type
  }
}

output "admin_user_id" {
  description = "Id of the branch's admin user at the auth provider."
  value       = neon_auth_user.admin.user_id
}

output "stack_users_table" {
  description = "Where the production branch's synchronized users live in the project database."
  value       = "${neon_auth_integration.stack.schema_name}.${neon_auth_integration.stack.table_name}"
}

output "seed_user_id" {
  description = "Id of the seed user at Stack Auth (a row of users_sync)."
  value       = neon_auth_user.seed.user_id
}

output "ownership_transferred" {
  description = "true once the transfer has been confirmed in a browser."
  value       = neon_auth_ownership_transfer.this.transferred
}

output "integrations" {
  description = "What the project-level API lists for the project."
  value       = data.neon_auth_integrations.production.integrations
}

output "projects_visible" {
  description = "How many projects the API key can see."
  value       = length(data.neon_projects.all.projects)
}

output "publishable_client_key" {
  description = "Public client key for the Stack Auth frontend SDK (print with terraform output -raw)."
  value       = neon_auth_sdk_keys.app.pub_client_key
  sensitive   = true
}
