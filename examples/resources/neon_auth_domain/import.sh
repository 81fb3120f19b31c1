# <project_id>/<domain>: the id is split on the first "/" only, so the
# domain keeps its scheme.
terraform import 'neon_auth_domain.app["https://app.example.com"]' autumn-frost-12345678/https://app.example.com
