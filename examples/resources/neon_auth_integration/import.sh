# <project_id> (production branch), <project_id>/<auth_provider> or
# <project_id>/<branch_id>. Stack Auth keys cannot be read back: after an
# import, mint a fresh pair with neon_auth_sdk_keys.
terraform import neon_auth_integration.this autumn-frost-12345678
