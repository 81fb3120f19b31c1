# <project_id>/<branch_id>/<database_name>, the id terraform state show prints
# (<project_id>/<database_name> is the production branch's).
terraform import neon_auth_data_api.neondb autumn-frost-12345678/br-quiet-leaf-12345678/neondb
