# A test email after every change of the email server: Terraform 1.14 or later,
# auth_api = "branch" (the provider's default) and a Better Auth integration.
resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

variable "smtp_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "neon_auth_email_server" "smtp" {
  project_id          = neon_auth_integration.this.project_id
  type                = "standard"
  host                = "smtp.example.com"
  port                = 587
  username            = "mailer"
  password_wo         = var.smtp_password
  password_wo_version = 1
  sender_email        = "noreply@example.com"
  sender_name         = "Example App"

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.neon_auth_send_test_email.smtp]
    }
  }
}

action "neon_auth_send_test_email" "smtp" {
  config {
    project_id      = neon_auth_email_server.smtp.project_id
    branch_id       = neon_auth_email_server.smtp.branch_id
    recipient_email = "ops@example.com"
  }
}

# Send one on demand, without changing anything:
#   terraform apply -invoke=action.neon_auth_send_test_email.smtp
