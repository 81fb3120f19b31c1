#!/usr/bin/env bash
# Finds a preview branch by its name, for a pull request's workflow: the
# branch that a platform (the Vercel or GitHub integration, a CI job, the
# official Neon provider) made for the pull request, so that nobody pastes
# its id.
#
#   scripts/preview-branch.sh -project=ID -name=NAME [-wait=SECONDS] [-or-state=DIR]
#
#   -project=ID      the Neon project (project_id)
#   -name=NAME       the branch's exact name, such as preview/my-feature
#   -wait=SECONDS    how long to wait for the platform to make the branch
#                    (default 0: look once); the list is read every 10 s
#   -or-state=DIR    when there is no such branch (the platform deleted it
#                    when the pull request closed), print the branch that the
#                    state of the initialized working directory DIR holds
#                    objects of, so that `terraform destroy` can run; print
#                    nothing (and exit 0) when that state is empty
#
# Prints the branch id (br-…) on stdout, nothing else. Reads the branch list,
# GET /projects/{project_id}/branches?search=NAME, with NEON_API_KEY at
# NEON_API_BASE_URL (default https://console.neon.tech/api/v2/); never prints
# the key. Exit status: 0 found (or, with -or-state, nothing to destroy);
# 1 no such branch, the API refused, or a wrong argument. Needs bash, curl and
# jq (on GitHub's runners), and terraform for -or-state.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
fail() { printf 'preview-branch: %s\n' "$*" >&2; exit 1; }

project='' name='' wait=0 state_dir=''
while (($# > 0)); do
  case $1 in
    -project=*) project=${1#*=} ;;
    -name=*) name=${1#*=} ;;
    -wait=*) wait=${1#*=} ;;
    -or-state=*) state_dir=${1#*=} ;;
    -h | -help | --help) usage; exit 0 ;;
    *) usage >&2; fail "unknown argument: $1" ;;
  esac
  shift
done
[[ -n $project ]] || fail "-project is required (the Neon project id)"
[[ -n $name ]] || fail "-name is required (the preview branch's name)"
[[ $wait =~ ^[0-9]+$ ]] || fail "-wait takes whole seconds, got $wait"
[[ -n ${NEON_API_KEY:-} ]] || fail "NEON_API_KEY is not set"
for cmd in curl jq; do command -v "$cmd" >/dev/null || fail "$cmd not found on PATH"; done

base=${NEON_API_BASE_URL:-https://console.neon.tech/api/v2/}
base=${base%/}/

# branch_id prints the id of the branch named exactly $name, or nothing.
branch_id() {
  local body status
  body=$(mktemp "${TMPDIR:-/tmp}/preview-branch.XXXXXX")
  # The key goes in a header read from stdin, never on the command line.
  status=$(printf 'Authorization: Bearer %s\n' "$NEON_API_KEY" |
    curl --silent --show-error --header @- --header 'Accept: application/json' --output "$body" --write-out '%{http_code}' \
      --get --data-urlencode "search=$name" --data-urlencode "limit=1000" "${base}projects/${project}/branches") || {
    rm -f "$body"
    fail "could not reach ${base}projects/${project}/branches"
  }
  if [[ $status != 200 ]]; then
    local message
    message=$(jq -r '.message // empty' "$body" 2>/dev/null || true)
    rm -f "$body"
    fail "listing the branches of project $project: HTTP $status${message:+: $message}"
  fi
  jq -r --arg name "$name" '[.branches[] | select(.name == $name) | .id] | first // empty' "$body"
  rm -f "$body"
}

deadline=$((SECONDS + wait))
while :; do
  id=$(branch_id)
  if [[ -n $id ]]; then
    echo "$id"
    exit 0
  fi
  ((SECONDS < deadline)) || break
  echo "preview-branch: no branch named $name in project $project yet; looking again in 10 s" >&2
  sleep 10
done

if [[ -z $state_dir ]]; then
  fail "project $project has no branch named $name: the platform has not made it (yet), or it was deleted"
fi
# The branch is gone: the state knows which branch its objects were on.
command -v "${TERRAFORM:-terraform}" >/dev/null || fail "${TERRAFORM:-terraform} not found on PATH"
recorded=$("${TERRAFORM:-terraform}" "-chdir=$state_dir" show -json </dev/null |
  jq -r '[.values.root_module.resources[]?.values.branch_id // empty] | first // empty')
if [[ -z $recorded ]]; then
  echo "preview-branch: no branch named $name, and the state of $state_dir holds nothing: nothing to destroy" >&2
  exit 0
fi
echo "preview-branch: no branch named $name any more (deleted with its pull request); the state's objects are on $recorded" >&2
echo "$recorded"
