#!/usr/bin/env bash
# Builds a pinned Terraform from the Go module proxy into a cached tools
# directory outside the repository, once, and prints the binary's path.
#
# Since 1.9, Terraform's go.mod replaces its separately versioned remote-state
# backends (azure, consul, cos, gcs, kubernetes, oci, oss, pg, s3) and
# internal/legacy with directories that the published module does not
# contain, so `go install …@version` refuses it. The module is downloaded
# instead, those backends are dropped from a writable copy (from go.mod and
# from internal/backend/init; before 1.9 from internal/backend/init only,
# which spares building their cloud SDKs), and the rest is built as a release
# (version.dev=no).
# The local, remote, http, inmem and cloud backends stay.
# About 4 minutes on 2 cores the first time; instant afterwards. A terraform
# on PATH that is already that version (a CI job's setup-terraform) is used
# as it is.
#
#   TERRAFORM_VERSION  version to build (default 1.16.4)
#   NEON_TOOLS_DIR     cache directory (default ${XDG_CACHE_HOME:-~/.cache}/terraform-provider-neon/tools)
set -euo pipefail

version="${TERRAFORM_VERSION:-1.16.4}"
tools="${NEON_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-neon/tools}"
bin="$tools/terraform-$version/terraform"
# `terraform version` below: no update check, no warning about a missing CLI config.
export CHECKPOINT_DISABLE=1 TF_CLI_CONFIG_FILE=/dev/null

if [[ -x "$bin" ]] && "$bin" version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi
if onpath=$(command -v terraform) && [[ $("$onpath" version 2>/dev/null | head -n 1) == "Terraform v$version" ]]; then
  echo "$onpath"
  exit 0
fi

fail() { echo "install-terraform.sh: $*" >&2; exit 1; }
command -v go >/dev/null || fail "the Go toolchain is needed to build Terraform $version (go not found on PATH)"

# One build at a time (make test and make test-remote may ask at once): a
# second caller waits for the first, then finds the binary it built.
mkdir -p "$(dirname "$bin")"
if command -v flock >/dev/null; then
  exec 9>"$bin.lock"
  flock 9
  if [[ -x "$bin" ]] && "$bin" version >/dev/null 2>&1; then
    echo "$bin"
    exit 0
  fi
fi

export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-} -mod=mod"
echo "building Terraform $version into $bin (first time only, several minutes)" >&2
module="github.com/hashicorp/terraform@v$version"
src=$(go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') || true
[[ -n "$src" && -d "$src" ]] || fail "could not download $module from the Go module proxy (GOPROXY=$(go env GOPROXY))"

work=$(mktemp -d "${TMPDIR:-/tmp}/terraform-build.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cp -R "$src/." "$work/"
chmod -R u+w "$work"

cd "$work"
# Since 1.9 the backends are modules of their own, replaced by directories
# the published module lacks; before, they are packages of the module. Either
# way they are dropped from internal/backend/init (two lines each), and each
# one go.mod replaces is dropped from go.mod too.
edits=()
legacy_dropped=false
for m in $(sed -n -E 's#^[[:space:]]*(replace[[:space:]]+)?(github\.com/hashicorp/terraform/internal/(backend/remote-state/[a-z0-9]+|legacy))[[:space:]]+=>.*#\2#p' go.mod); do
  edits+=("-dropreplace=$m" "-droprequire=$m")
  [[ $m != */internal/legacy ]] || legacy_dropped=true
done
[[ ${#edits[@]} -eq 0 ]] || go mod edit "${edits[@]}"
init=internal/backend/init/init.go
dropped='backend(Azure|Consul|Cos|GCS|Kubernetes|OCI|OSS|Pg|S3)\b'
found=$(grep -cE "$dropped" "$init" || true)
[[ $found -ge 16 && $((found % 2)) -eq 0 ]] ||
  fail "$init of Terraform $version does not list the remote-state backends (azure … s3) as 1.8 to 1.16 do; adapt this script"
sed -i -E "/$dropped/d" "$init"
if grep -rqsE --include='*.go' --exclude='*_test.go' --exclude-dir=remote-state 'remote-state/(azure|consul|cos|gcs|kubernetes|oci|oss|pg|s3)"' . ||
  { $legacy_dropped && grep -rqsE --include='*.go' --exclude='*_test.go' 'internal/legacy"' .; }; then
  fail "Terraform $version imports a dropped backend or module outside $init; adapt this script"
fi

go build -trimpath -ldflags "-s -w -X github.com/hashicorp/terraform/version.dev=no" -o "$bin.tmp" . ||
  fail "go build of Terraform $version failed (see above)"
mv "$bin.tmp" "$bin"
"$bin" version >&2
echo "$bin"
