# Every project the API key can see (all pages of GET /projects).
data "neon_projects" "all" {}

# Or only the projects of one organization whose name or id contains "staging".
data "neon_projects" "staging" {
  search = "staging"
  org_id = "org-quiet-leaf-12345678"
}

output "project_ids" {
  value = data.neon_projects.all.projects[*].id
}
