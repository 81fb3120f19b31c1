terraform {
  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.2" # the auth API is in beta: pin the provider
    }
  }
}

# The API key is best left out of the configuration: export NEON_API_KEY.
provider "neon" {
  # api_key = var.neon_api_key   # or NEON_API_KEY

  # "branch" (default): Neon Auth on any branch through the branch-scoped
  # endpoints; "project": the deprecated project-level endpoints, production
  # branch only.
  # auth_api = "branch"

  # Defaults shown; lower requests_per_minute when other clients share the
  # account's 700 requests/minute.
  # base_url                  = "https://console.neon.tech/api/v2/"
  # max_retries               = 6
  # retry_timeout             = "5m"
  # requests_per_minute       = 700
  # route_requests_per_second = 40
}
