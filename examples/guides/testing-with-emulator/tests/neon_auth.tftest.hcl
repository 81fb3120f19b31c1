# terraform test, against neon-emulator: every run applies for real, and the
# test destroys what it made at the end.

run "creates_better_auth_on_the_production_branch" {
  assert {
    condition     = neon_auth_integration.this.auth_provider == "better_auth"
    error_message = "auth_api = \"branch\" creates a Better Auth integration"
  }

  assert {
    condition     = neon_auth_domains.this.domains == toset(var.origins)
    error_message = "the whitelist holds exactly the configured origins"
  }
}

run "another_origin_is_an_in_place_update" {
  variables {
    origins = ["https://app.example.com", "https://admin.example.com"]
  }

  assert {
    condition     = length(neon_auth_domains.this.domains) == 2
    error_message = "the second origin is whitelisted"
  }

  assert {
    condition     = output.auth_provider_project_id == run.creates_better_auth_on_the_production_branch.auth_provider_project_id
    error_message = "adding an origin must not replace the integration"
  }
}
