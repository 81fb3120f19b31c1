# Step 1 (with imports.tf): the provider, in branch mode. Needs Terraform
# 1.11 or OpenTofu 1.11, or later, for the write-only arguments of main.tf.

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
