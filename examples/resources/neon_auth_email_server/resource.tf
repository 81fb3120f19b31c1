resource "neon_auth_integration" "this" {
  project_id = "autumn-frost-12345678"
}

# A custom SMTP server for sign-up and password-reset mail. Destroying this
# resource switches the branch back to the platform's shared mail server.
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
}
