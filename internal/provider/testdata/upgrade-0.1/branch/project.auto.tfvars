project_id = "aged-leaf-00000006"
branch_id = "br-raspy-leaf-00000008"
