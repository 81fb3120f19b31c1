# <project_id>/<branch_id> (or <project_id> for the production branch). An
# imported resource has no earlier values to put back on destroy.
terraform import neon_auth_magic_link_plugin.this autumn-frost-12345678/br-quiet-leaf-12345678
