# <project_id>/<provider_id>. The client secret cannot be read back: after the
# import, set client_id and client_secret_wo (+ client_secret_wo_version) in the
# configuration; the next apply sends them.
terraform import neon_auth_oauth_provider.google autumn-frost-12345678/google
