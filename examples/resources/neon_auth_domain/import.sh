# <project_id>/<branch_id>/<domain>, the id terraform state show prints
# (<project_id>/<domain> is the production branch's). The domain keeps its
# scheme: the id is split at the first slashes only.
terraform import 'neon_auth_domain.app["https://app.example.com"]' autumn-frost-12345678/br-quiet-leaf-12345678/https://app.example.com
