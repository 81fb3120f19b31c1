# Every project the API key can see (all pages of GET /projects).
data "neon_projects" "all" {}

# Or only those of one organization whose name or id contains a string.
data "neon_projects" "staging" {
  search = "staging"
  org_id = "org-quiet-leaf-12345678"
}

output "project_ids" {
  value = data.neon_projects.all.projects[*].id
}
