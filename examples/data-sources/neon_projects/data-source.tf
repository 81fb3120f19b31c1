# Every project the API key can see (all pages of GET /projects).
data "neon_projects" "all" {}

# Or only those whose name or id contains a string.
data "neon_projects" "staging" {
  search = "staging"
}

output "project_ids" {
  value = data.neon_projects.all.projects[*].id
}
