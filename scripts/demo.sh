#!/usr/bin/env bash
# make demo: a guided tour of the provider on the local emulator.
#
# Then the preview-branch flow on the second project: production's Neon Auth
# (examples/branch-preview/production), a preview branch created from it
# through the API, which starts with a copy; examples/branch-preview takes
# that copy over on its first apply and re-plans empty; then the platform
# deletes the branch, as when a pull request closes, and the preview's
# destroy still succeeds, while production stays as it was.
#
# Builds the provider, starts the emulator on a free loopback port, creates a
# preview branch in the first project the emulator made, applies
# examples/quickstart there (Better Auth on the preview branch in branch mode,
# the default; Stack Auth with SDK keys, a users_sync row and an ownership
# transfer on the production branch in project mode; project_id, branch_id
# and made-up secrets as TF_VAR_ variables) with a dev_overrides CLI config
# (no `terraform init`, no registry), shows that a re-plan is clean, changes
# something behind Terraform's back and shows the plan catching it, then
# destroys. Everything lives in a temporary directory that is removed at the
# end; the emulator is stopped on success, failure or Ctrl-C.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/neon-demo.XXXXXX")
EMU_PID=""

cleanup() {
  local rc=$?
  if [[ -n "$EMU_PID" ]] && kill -0 "$EMU_PID" 2>/dev/null; then
    kill -TERM "$EMU_PID" 2>/dev/null || true
    wait "$EMU_PID" 2>/dev/null || true
  fi
  if [[ $rc -ne 0 && -s "$WORK/emulator.log" ]]; then
    echo "--- emulator log (last 20 lines) ---" >&2
    tail -n 20 "$WORK/emulator.log" >&2 || true
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'echo; echo "interrupted"; exit 130' INT TERM

if [[ -t 1 ]]; then B=$'\033[1m' G=$'\033[32m' R=$'\033[31m' N=$'\033[0m'; else B="" G="" R="" N=""; fi
n=0
step() { n=$((n + 1)); printf '\n%s[%d] %s%s\n' "$B" "$n" "$1" "$N"; [[ $# -gt 1 ]] && printf '    %s\n' "${@:2}"; return 0; }
ok()   { printf '%s    ✔ %s%s\n' "$G" "$*" "$N"; }
fail() { printf '%s    ✘ %s%s\n' "$R" "$*" "$N" >&2; exit 1; }

for tool in go terraform; do
  command -v "$tool" >/dev/null || fail "$tool is not on PATH"
done
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
unset TF_LOG NEON_API_KEY NEON_API_BASE_URL

step "Build the provider and the emulator" "go build → $WORK/bin" \
  "The first build compiles the provider and its dependencies (the Terraform plugin framework, gRPC, the OpenAPI" \
  "validator): about half a minute to two minutes on 2 cores (measured: 36 s idle, 130 s beside other jobs)." \
  "Go caches the result; later runs take seconds."
started=$SECONDS
(cd "$ROOT" && go build -o "$WORK/bin/terraform-provider-neon" -ldflags "-X main.version=demo" . \
  && go build -o "$WORK/bin/neon-emulator" ./cmd/neon-emulator) &
BUILD_PID=$!
while kill -0 "$BUILD_PID" 2>/dev/null; do
  sleep 1
  elapsed=$((SECONDS - started))
  if ((elapsed % 15 == 0)); then printf '    … still compiling (%d s)\n' "$elapsed"; fi
done
wait "$BUILD_PID" || fail "go build failed"
ok "built terraform-provider-neon and neon-emulator in $((SECONDS - started)) s"
EMU="$WORK/bin/neon-emulator"

step "Start the Neon API emulator" "a faithful local platform API v2: keys, scopes, rate limits (700/min, 40/s per route), error statuses"
"$EMU" -listen 127.0.0.1:0 -projects 2 -ready-file "$WORK/ready" -v >"$WORK/emulator.out" 2>"$WORK/emulator.log" &
EMU_PID=$!
for _ in $(seq 1 100); do
  [[ -s "$WORK/ready" ]] && break
  kill -0 "$EMU_PID" 2>/dev/null || fail "the emulator exited early"
  sleep 0.1
done
[[ -s "$WORK/ready" ]] || fail "the emulator did not become ready within 10 s"
set -a
# shellcheck disable=SC1091
source "$WORK/ready" # NEON_API_BASE_URL and NEON_API_KEY (the bootstrap personal key)
set +a
CONTROL="${NEON_API_BASE_URL%/api/v2/}/_emulator"
ok "listening on $NEON_API_BASE_URL (pid $EMU_PID); the key is in NEON_API_KEY, never printed"
# examples/quickstart needs a project id: the first project the emulator made.
PROJECT_ID=$("$EMU" call GET "${NEON_API_BASE_URL}projects" | sed -n '/"id":/{s/.*"id": *"\([^"]*\)".*/\1/p;q;}')
[[ -n "$PROJECT_ID" ]] || fail "the emulator lists no project"
# …and a branch for Better Auth: a preview branch, made through the API as a
# CI job would for a pull request.
BRANCH_ID=$("$EMU" call POST "${NEON_API_BASE_URL}projects/$PROJECT_ID/branches" '{"branch":{"name":"preview"}}' |
  sed -n '/"id": *"br-/{s/.*"id": *"\([^"]*\)".*/\1/p;q;}')
[[ -n "$BRANCH_ID" ]] || fail "the emulator created no branch"
# Made-up secrets for the emulator; against the real API they are your own.
export TF_VAR_project_id="$PROJECT_ID" TF_VAR_branch_id="$BRANCH_ID" \
  TF_VAR_google_client_secret=demo-google-client-secret TF_VAR_smtp_password=demo-smtp-password
ok "the quick start goes to project $PROJECT_ID and its preview branch $BRANCH_ID (TF_VAR_ variables, made-up secrets)"

step "Point Terraform at the local build" "dev_overrides in a CLI config inside the temporary directory: no terraform init, no registry, nothing in your home"
cat >"$WORK/terraformrc" <<EOF
provider_installation {
  dev_overrides {
    "neon-auth/neon" = "$WORK/bin"
  }
  direct {}
}
EOF
export TF_CLI_CONFIG_FILE="$WORK/terraformrc"
mkdir -p "$WORK/tf"
cp "$ROOT"/examples/quickstart/*.tf "$WORK/tf/"
cd "$WORK/tf"
ok "examples/quickstart copied to $WORK/tf"

tf() { terraform "$@" 2> >(grep -v -e 'Provider development overrides are in effect' -e 'The following provider development overrides' -e 'neon-auth/neon in' -e 'The behavior may therefore not match' -e 'published releases.' -e 'Warning:' -e '^[│╷╵ ]*$' >&2); }

step "terraform apply" \
  "Better Auth on the preview branch (branch mode, the default): the integration, its domains, two OAuth providers (shared; own credentials via a write-only secret), a custom email server, email-and-password and magic-link sign-in, a user with a role, and the Data API that accepts its tokens" \
  "Stack Auth on the production branch (project mode, auth_api = \"project\"): the integration, SDK keys, a seed user, an ownership transfer; two data sources"
tf apply -auto-approve -input=false -compact-warnings -no-color >"$WORK/apply.log" || { cat "$WORK/apply.log"; fail "apply failed"; }
grep -E '^Apply complete' "$WORK/apply.log" | sed 's/^/    /'
ok "applied"

step "What it made" "outputs (ids name their branch), and the seed user's row in users_sync read from the emulator"
tf output -no-color | sed 's/^/    /'
printf '    users_sync rows of %s:\n' "$PROJECT_ID"
"$EMU" call GET "$CONTROL/projects/$PROJECT_ID/users_sync" | sed 's/^/    /'
ok "the user created through the API appears in the synchronized users table"

step "Re-plan: no drift" "terraform plan -detailed-exitcode exits 0 when real world and configuration agree"
set +e
tf plan -detailed-exitcode -input=false -compact-warnings -no-color >"$WORK/plan1.log"
rc=$?
set -e
[[ $rc -eq 0 ]] || { cat "$WORK/plan1.log"; fail "plan exited $rc, want 0"; }
grep -E 'No changes' "$WORK/plan1.log" | sed 's/^/    /' || true
ok "plan exited 0: nothing to do"

step "Drift: remove a domain behind Terraform's back" "DELETE /projects/$PROJECT_ID/branches/$BRANCH_ID/auth/domains through the public API, as a colleague in the console would"
"$EMU" call DELETE "${NEON_API_BASE_URL}projects/$PROJECT_ID/branches/$BRANCH_ID/auth/domains" \
  '{"auth_provider":"better_auth","domains":[{"domain":"https://staging.example.com"}]}' >/dev/null
set +e
tf plan -detailed-exitcode -input=false -compact-warnings -no-color >"$WORK/plan2.log"
rc=$?
set -e
[[ $rc -eq 2 ]] || { cat "$WORK/plan2.log"; fail "plan exited $rc, want 2"; }
grep -E '# neon_auth_domains.* will be updated in-place|^Plan:' "$WORK/plan2.log" | sed 's/^ */    /'
ok "plan exited 2: the missing domain is caught and would be added back"

step "API traffic so far" "requests by route and status, counted by the emulator; no 429 reached Terraform"
"$EMU" call GET "$CONTROL/stats" | sed 's/^/    /'

step "terraform destroy" "every resource removed; the settings and email server restored, SDK keys and the transfer request forgotten (the API can revoke neither)"
tf destroy -auto-approve -input=false -compact-warnings -no-color >"$WORK/destroy.log" || { cat "$WORK/destroy.log"; fail "destroy failed"; }
grep -E '^Destroy complete' "$WORK/destroy.log" | sed 's/^/    /'
left=$("$EMU" call GET "${NEON_API_BASE_URL}projects/$PROJECT_ID/auth/integrations")
[[ "$(tr -d ' \n' <<<"$left")" == *'"data":[]'* ]] || fail "an integration is left on the production branch: $left"
if "$EMU" call GET "${NEON_API_BASE_URL}projects/$PROJECT_ID/branches/$BRANCH_ID/auth" >/dev/null 2>&1; then
  fail "an integration is left on the preview branch $BRANCH_ID"
fi
ok "the emulator holds no integration for $PROJECT_ID, on either branch"

# Preview branches: Neon Auth branches with the database. Production's is
# configured first, then a platform makes a branch from production, which
# starts with a copy of it (and the preview's origin in its whitelist, as the
# Vercel integration puts it there): examples/branch-preview takes it over on
# its first apply. The platform deletes the branch when the pull request
# closes, before the pull request's destroy, which then empties the state.
P2=$("$EMU" call GET "${NEON_API_BASE_URL}projects" | sed -n '/"id":/{s/.*"id": *"\([^"]*\)".*/\1/p;}' | sed -n 2p)
[[ -n "$P2" ]] || fail "the emulator lists no second project"
# The production branch is the one whose object says "default": true, in
# whatever order the fields come.
PROD2=$("$EMU" call GET "${NEON_API_BASE_URL}projects/$P2/branches" |
  awk '/^    \{/{id=""; d=0} /"id": *"br-/{gsub(/.*"id": *"|".*/, ""); id=$0} /"default": *true/{d=1} /^    \}/{if (d) {print id; exit}}')
[[ -n "$PROD2" ]] || fail "project $P2 lists no production branch"
# fingerprint is a checksum of what the API tells of a branch's Neon Auth
# and of its database's Data API.
fingerprint() {
  local ep
  {
    for ep in "" /domains /oauth_providers /plugins /webhooks; do
      "$EMU" call GET "${NEON_API_BASE_URL}projects/$P2/branches/$1/auth$ep"
    done
    "$EMU" call GET "${NEON_API_BASE_URL}projects/$P2/branches/$1/data-api/neondb"
  } | sha256sum | cut -c1-16
}
export TF_VAR_project_id="$P2"
mkdir -p "$WORK/production" "$WORK/preview"
cp "$ROOT"/examples/branch-preview/production/*.tf "$WORK/production/"
cp "$ROOT"/examples/branch-preview/*.tf "$WORK/preview/"

step "Preview branches: configure production" "examples/branch-preview/production on project $P2: Better Auth named Acme, https://app.example.com trusted, Google sign-in, verified email required, webhooks to production, the Data API of neondb"
cd "$WORK/production"
TF_VAR_google_client_id=demo-google-client TF_VAR_google_client_secret=demo-google-client-secret \
  tf apply -auto-approve -input=false -compact-warnings -no-color >"$WORK/production.log" || { cat "$WORK/production.log"; fail "apply failed"; }
PROD_FP=$(fingerprint "$PROD2")
ok "production's Neon Auth is configured (fingerprint $PROD_FP)"

step "A platform makes the pull request's preview branch" "through the emulator's control surface, as the Vercel integration does: from production, with the preview's origin in its trusted domains"
CONTROL="${NEON_API_BASE_URL%api/v2/}_emulator"
PREVIEW_ID=$("$EMU" call POST "$CONTROL/projects/$P2/branches" '{"name":"preview/pr-123","domains":["https://pr-123.preview.example.com"]}' |
  sed -n '/"id": *"br-/{s/.*"id": *"\([^"]*\)".*/\1/p;q;}')
[[ -n "$PREVIEW_ID" ]] || fail "the emulator created no branch"
"$EMU" call GET "${NEON_API_BASE_URL}projects/$P2/branches/$PREVIEW_ID/auth/domains" | grep -q 'https://app.example.com' ||
  fail "the preview branch did not inherit production's trusted domain"
"$EMU" call GET "${NEON_API_BASE_URL}projects/$P2/branches/$PREVIEW_ID/data-api/neondb" >/dev/null ||
  fail "the preview branch did not inherit production's Data API"
ok "branch $PREVIEW_ID starts with a copy of production's Neon Auth (integration, domains, Google sign-in, settings, webhooks) and of its Data API, plus the preview's origin"
# The pull request's workflow finds the branch by its name, as
# examples/ci/neon-auth-preview.yml does.
PREVIEW_FOUND=$("$ROOT/scripts/preview-branch.sh" -project="$P2" -name=preview/pr-123)
[[ "$PREVIEW_FOUND" == "$PREVIEW_ID" ]] || fail "scripts/preview-branch.sh found $PREVIEW_FOUND, not $PREVIEW_ID"
export TF_VAR_preview_branch_id="$PREVIEW_FOUND"

step "terraform apply on the preview" "examples/branch-preview: takes over what the branch has (no import) — the inherited objects and the platform's origin — sends the webhooks to the preview, puts Google sign-in on the shared keys, gives its Data API a smaller row limit"
cd "$WORK/preview"
tf apply -auto-approve -input=false -compact-warnings -no-color >"$WORK/preview-apply.log" || { cat "$WORK/preview-apply.log"; fail "apply failed"; }
grep -oE '(Inherited .*|Trusted domain already on the branch) taken over[^ ]*( [^ ]+)?' "$WORK/preview-apply.log" | grep -v 'will be' | sort -u | sed 's/^/    warning: /'
grep -E '^Apply complete' "$WORK/preview-apply.log" | sed 's/^/    /'
ok "first apply, no import step"

step "Re-plan the preview: no drift"
set +e
tf plan -detailed-exitcode -input=false -compact-warnings -no-color >"$WORK/preview-plan.log"
rc=$?
set -e
[[ $rc -eq 0 ]] || { cat "$WORK/preview-plan.log"; fail "plan exited $rc, want 0"; }
ok "plan exited 0"

step "The pull request closes: the platform deletes the branch first" "DELETE /projects/$P2/branches/$PREVIEW_ID, then the pull request's terraform destroy"
"$EMU" call DELETE "${NEON_API_BASE_URL}projects/$P2/branches/$PREVIEW_ID" >/dev/null
tf destroy -auto-approve -input=false -no-color >"$WORK/preview-destroy.log" || { cat "$WORK/preview-destroy.log"; fail "destroy failed"; }
[[ -z "$(tf state list 2>/dev/null)" ]] || fail "the preview's state is not empty after destroy"
[[ "$(fingerprint "$PROD2")" == "$PROD_FP" ]] || fail "production's Neon Auth changed"
ok "destroy succeeded with the branch gone (refresh dropped its objects; nothing left to delete); the state is empty; production unchanged (fingerprint $PROD_FP)"
cd "$WORK/production"
TF_VAR_google_client_id=demo-google-client TF_VAR_google_client_secret=demo-google-client-secret \
  tf destroy -auto-approve -input=false -compact-warnings -no-color >"$WORK/production-destroy.log" || { cat "$WORK/production-destroy.log"; fail "destroy failed"; }
ok "production's configuration destroyed too"

step "Stop the emulator"
kill -TERM "$EMU_PID" 2>/dev/null || true
wait "$EMU_PID" 2>/dev/null || true
EMU_PID=""
ok "stopped; $WORK removed"
printf '\n%sDemo complete.%s Next: make test\n' "$B" "$N"
