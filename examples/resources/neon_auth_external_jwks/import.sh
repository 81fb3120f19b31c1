# <project_id>/<jwks_id>, the id terraform state show prints; the JWKS ids of
# a project are listed by GET /projects/<project_id>/jwks (or terraform query).
terraform import neon_auth_external_jwks.clerk autumn-frost-12345678/8d0c4f7e-2b1a-4c3d-9e8f-1a2b3c4d5e6f
