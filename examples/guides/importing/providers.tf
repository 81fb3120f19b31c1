# Step 1 (with imports.tf): the provider, in branch mode.

terraform {
  required_version = ">= 1.11"

  required_providers {
    neon = {
      source  = "neon-auth/neon"
      version = "~> 0.2"
    }
  }
}

provider "neon" {
  auth_api = "branch"
}
