# <project_id>/<branch_id>/<auth_provider>, the id terraform state show
# prints, or <project_id>/<branch_id>; without the branch id, the production
# branch's integration. Stack Auth keys cannot be read back: after an import,
# mint a fresh pair with neon_auth_sdk_keys.
terraform import neon_auth_integration.this autumn-frost-12345678/br-quiet-leaf-12345678/better_auth
