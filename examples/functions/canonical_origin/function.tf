# One neon_auth_domain per origin, keyed by its canonical form: two spellings
# of one origin make one resource, and the keys match the domains the API
# lists.
variable "project_id" {
  type = string
}

variable "origins" {
  type    = list(string)
  default = ["https://app.example.com", "HTTPS://App.Example.com/", "http://localhost:3000"]

  validation {
    condition     = alltrue([for o in var.origins : can(provider::neon::canonical_origin(o))])
    error_message = "Each origin must be https:// or http://, a host and an optional port, with no path."
  }
}

resource "neon_auth_domain" "each" {
  for_each   = toset([for o in var.origins : provider::neon::canonical_origin(o)])
  project_id = var.project_id
  domain     = each.key
}
