# The starting state of neon-emulator for CI (see neon-emulator-service.yml
# and neon-emulator.gitlab-ci.yml): loaded with PUT /_emulator/seed, or with
# `neon-emulator -seed emulator-seed.hcl`; POST /_emulator/reset returns to it.
# Everything here exists only inside the emulator: the key below opens
# nothing at Neon.

project "app" {
  # A fixed id, so that the configuration under test can name it.
  id = "app-ci-00000001"

  branch "main" {}

  # A preview branch whose Neon Auth already exists, as after an earlier run.
  branch "preview" {
    id = "br-app-preview-00000002"
    neon_auth {
      auth_provider = "better_auth"
      domains       = ["https://preview.example.com"]
    }
  }
}

# The key the job passes as NEON_API_KEY, in the form neon-emulator prints.
api_key "ci" {
  token   = "sfbt1y7wimr2ao3bgf50b61wdncxlnxxsuf4l42kll8u7mhfg1crrvgxs8t39nqj"
  type    = "project"
  project = "app"
}
