# <project_id>/<branch_id>/<user_id> (<project_id>/<user_id> is the
# production branch's). The user id is the id column of the users_sync table:
#   SELECT id FROM neon_auth.users_sync WHERE email = 'ci-bot@example.com';
# (neon_auth stands for the schema_name attribute of the integration.)
# The API cannot read a user back: email and name are filled in from the
# configuration on the first apply after the import.
terraform import neon_auth_user.ci_bot autumn-frost-12345678/br-quiet-leaf-12345678/3f1c9a52-8d0e-4b7a-9c1e-2a6f5b4d7e90
