# <project_id>/<branch_id> (<project_id> alone is the production branch's).
# The password cannot be read back: set password_wo (with
# password_wo_version) or password in the configuration after the import.
terraform import neon_auth_email_server.smtp autumn-frost-12345678/br-quiet-leaf-12345678
