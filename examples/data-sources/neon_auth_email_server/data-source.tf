# The password is never exposed.
data "neon_auth_email_server" "prod" {
  project_id = "autumn-frost-12345678"
}

output "mail_sender" {
  value = data.neon_auth_email_server.prod.sender_email
}
