#!/usr/bin/env bash
# Writes the fixtures of TestAccUpgrade_from01 (upgrade_test.go): states that
# the 0.1 development build of this provider (commit 426f609, project mode by default)
# wrote, with the emulator state they describe.
#
# It builds the provider and the emulator of that commit in a temporary git
# worktree, starts the emulator with -state-file and a fixed bootstrap key,
# and applies each configuration of this directory with the 0.1 binary
# through a dev_overrides CLI config (no terraform init, no registry):
#
#   project/  the 0.1 default (no auth_api): Stack Auth on the production
#             branch of two projects with every resource type of that family
#   branch/   auth_api = "branch" in 0.1: Better Auth on a non-production
#             branch with every resource type, settings resources included
#
# Outputs, committed: emulator.json (the emulator's state), and in each
# configuration directory terraform.tfstate and project.auto.tfvars (the ids
# the configuration is applied to). main.tf holds the resources only; the
# provider block is written per run (provider.tf, not committed), as the test
# writes its own.
#
# Usage: internal/provider/testdata/upgrade-0.1/generate.sh  (needs go, terraform, curl)
set -euo pipefail

REV=426f609
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/upgrade-0.1.XXXXXX")
EMU_PID=""
cleanup() {
  [[ -n "$EMU_PID" ]] && kill "$EMU_PID" 2>/dev/null && wait "$EMU_PID" 2>/dev/null || true
  git -C "$ROOT" worktree remove --force "$WORK/src" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1 GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
unset TF_LOG NEON_API_KEY NEON_API_BASE_URL NEON_AUTH_API

echo "building the 0.1 development build ($REV)…"
git -C "$ROOT" worktree add --detach "$WORK/src" "$REV" >/dev/null
(cd "$WORK/src" && go build -o "$WORK/bin/terraform-provider-neon" -ldflags "-X main.version=0.1.0" . &&
  go build -o "$WORK/bin/neon-emulator" ./cmd/neon-emulator)

rm -f "$HERE/emulator.json"
KEY=upgrade-fixture-key
"$WORK/bin/neon-emulator" -listen 127.0.0.1:0 -projects 3 -bootstrap-key "$KEY" -state-file "$HERE/emulator.json" \
  -account-rpm -1 -route-rps -1 -ready-file "$WORK/ready" >"$WORK/emulator.out" 2>&1 &
EMU_PID=$!
for _ in $(seq 1 100); do [[ -s "$WORK/ready" ]] && break; sleep 0.1; done
# shellcheck disable=SC1091
source "$WORK/ready"
api() { curl -fsS -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' "$@"; }
mapfile -t PROJECTS < <(api "${NEON_API_BASE_URL}projects" | jq -r '.projects | sort_by(.name) | .[].id')
# A non-production branch of the third project, for the branch-mode fixture.
DEV_BRANCH=$(api -X POST "${NEON_API_BASE_URL}projects/${PROJECTS[2]}/branches" -d '{"branch":{"name":"dev"}}' | jq -r .branch.id)

cat >"$WORK/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "neon-auth/neon" = "$WORK/bin"
  }
  direct {}
}
RC
apply() { # dir, provider arguments
  local dir=$HERE/$1
  cat >"$dir/provider.tf" <<TF
provider "neon" {
  api_key  = "$KEY"
  base_url = "$NEON_API_BASE_URL"
$2}
TF
  rm -f "$dir/terraform.tfstate" "$dir/terraform.tfstate.backup"
  (cd "$dir" && TF_CLI_CONFIG_FILE="$WORK/terraformrc" terraform apply -auto-approve -no-color -input=false >"$WORK/$1.log" 2>&1) ||
    { cat "$WORK/$1.log"; exit 1; }
  (cd "$dir" && TF_CLI_CONFIG_FILE="$WORK/terraformrc" terraform plan -detailed-exitcode -no-color -input=false >/dev/null) ||
    { echo "0.1 does not re-plan $1 empty"; exit 1; }
  rm -f "$dir/provider.tf" "$dir/terraform.tfstate.backup" "$dir/.terraform.lock.hcl"
  echo "applied $1 with 0.1"
}

printf 'project_id = "%s"\nother_project_id = "%s"\n' "${PROJECTS[0]}" "${PROJECTS[1]}" >"$HERE/project/project.auto.tfvars"
apply project ""
printf 'project_id = "%s"\nbranch_id = "%s"\n' "${PROJECTS[2]}" "$DEV_BRANCH" >"$HERE/branch/project.auto.tfvars"
apply branch '  auth_api = "branch"
'
kill "$EMU_PID"; wait "$EMU_PID" 2>/dev/null || true; EMU_PID=""
# Keys and timestamps of the emulator state are what 0.1 saw; the fixed
# bootstrap key is the only credential in it, and it is a test value.
echo "fixtures written to $HERE"
