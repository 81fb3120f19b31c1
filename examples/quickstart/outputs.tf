output "project_id" {
  description = "The integrated project."
  value       = neon_auth_integration.this.project_id
}

output "jwks_url" {
  description = "Verify the auth provider's tokens with this key set."
  value       = neon_auth_integration.this.jwks_url
}

output "users_table" {
  description = "Where the synchronized users live in the project database."
  value       = "${neon_auth_integration.this.schema_name}.${neon_auth_integration.this.table_name}"
}

output "seed_user_id" {
  description = "Id of the seed user at the auth provider."
  value       = neon_auth_user.seed.id
}

output "oauth_provider_types" {
  description = "shared (platform keys) or standard (own credentials), per provider."
  value = {
    github = neon_auth_oauth_provider.github.type
    google = neon_auth_oauth_provider.google.type
  }
}

output "integrations" {
  description = "What the API lists for the project."
  value       = data.neon_auth_integrations.all.integrations
}

output "projects_visible" {
  description = "How many projects the API key can see."
  value       = length(data.neon_projects.all.projects)
}

output "publishable_client_key" {
  description = "Public client key for the frontend SDK (print with terraform output -raw)."
  value       = neon_auth_sdk_keys.app.pub_client_key
  sensitive   = true
}
