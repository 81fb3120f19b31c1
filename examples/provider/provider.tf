terraform {
  required_providers {
    neon = {
      source = "neon-auth/neon"
    }
  }
}

# The API key is best left out of the configuration: export NEON_API_KEY.
provider "neon" {
  # api_key = var.neon_api_key   # or NEON_API_KEY

  # Defaults shown; lower requests_per_minute when other clients share the
  # account's 700 requests/minute.
  # base_url                  = "https://console.neon.tech/api/v2/"
  # max_retries               = 6
  # requests_per_minute       = 700
  # route_requests_per_second = 40
}
