# <project_id>/<branch_id>/<provider_id>, the id terraform state show prints
# (<project_id>/<provider_id> is the production branch's). The client secret
# cannot be read back: after the import, set client_id and client_secret_wo
# (+ client_secret_wo_version) in the configuration; the next apply sends them.
terraform import neon_auth_oauth_provider.google autumn-frost-12345678/br-quiet-leaf-12345678/google
