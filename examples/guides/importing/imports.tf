# Step 1 (with providers.tf): one import block per object that exists already,
# and the two ids they take. The ids are those of the resource pages' Import
# sections without the branch id, which means the production branch; the user
# id is the id column of neon_auth.users_sync. After the
# import has been applied the blocks can go, or stay: they do nothing more.
# Needs Terraform 1.11 or OpenTofu 1.11, or later (providers.tf).

import {
  to = neon_auth_integration.this
  id = var.project_id
}

import {
  to = neon_auth_domains.this
  id = var.project_id
}

import {
  to = neon_auth_email_and_password.this
  id = var.project_id
}

import {
  to = neon_auth_oauth_provider.google
  id = "${var.project_id}/google"
}

import {
  to = neon_auth_email_server.this
  id = var.project_id
}

import {
  to = neon_auth_user.admin
  id = "${var.project_id}/${var.admin_user_id}"
}

variable "project_id" {
  description = "The Neon project whose production branch has the Neon Auth to import."
  type        = string
}

variable "admin_user_id" {
  description = "Id of the existing user to import (the id column of neon_auth.users_sync)."
  type        = string
}
