# <project_id> (production branch) or <project_id>/<branch_id>.
terraform import neon_auth_domains.all autumn-frost-12345678
