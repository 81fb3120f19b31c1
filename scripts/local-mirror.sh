#!/usr/bin/env bash
# Builds the provider from this repository into a filesystem mirror and
# writes a Terraform/OpenTofu CLI configuration that installs neon-auth/neon
# from that mirror and every other provider from its registry as usual. With
# it, `terraform init` (or `tofu init`) works before the first release, and a
# configuration keeps its version pin: the build is numbered as the coming
# release, the first version heading of CHANGELOG.md.
#
#   ./scripts/local-mirror.sh [DIR]
#   export TF_CLI_CONFIG_FILE=DIR/terraformrc
#
#   DIR                    the mirror (default ${XDG_DATA_HOME:-~/.local/share}/terraform-provider-neon/mirror)
#   NEON_PROVIDER_VERSION  the version to number the build (default: CHANGELOG.md's first version)
#
# Only the machine's own platform (go env GOOS/GOARCH) is built. The
# dependency lock file of a configuration records this build's checksum:
# once the release is out, drop the mirror from the CLI configuration and
# delete the neon-auth/neon entry of .terraform.lock.hcl before
# `terraform init`, or the registry's checksums will not match it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-${XDG_DATA_HOME:-$HOME/.local/share}/terraform-provider-neon/mirror}
fail() { echo "local-mirror.sh: $*" >&2; exit 1; }
command -v go >/dev/null || fail "the Go toolchain is needed to build the provider (go not found on PATH)"

version=${NEON_PROVIDER_VERSION:-$(sed -n -E 's/^## ([0-9]+\.[0-9]+\.[0-9]+)( .*)?$/\1/p' "$ROOT/CHANGELOG.md" | head -n 1)}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
  fail "no version to number the build: CHANGELOG.md has no '## X.Y.Z' heading (or set NEON_PROVIDER_VERSION=X.Y.Z)"

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
platform="$(go env GOOS)_$(go env GOARCH)"
exe=$(go env GOEXE)
build="$dir/registry.terraform.io/neon-auth/neon/$version/$platform"
mkdir -p "$build"
(cd "$ROOT" && GOTOOLCHAIN="${GOTOOLCHAIN:-local}" \
  go build -ldflags "-X main.version=$version" -o "$build/terraform-provider-neon_v$version$exe" .)
# OpenTofu looks for the same provider under its own registry's host name.
tofu="$dir/registry.opentofu.org/neon-auth/neon/$version/$platform"
mkdir -p "$tofu"
cp "$build/terraform-provider-neon_v$version$exe" "$tofu/"

cat >"$dir/terraformrc" <<EOF
# neon-auth/neon from the local build in this directory (scripts/local-mirror.sh
# of terraform-provider-neon); every other provider from its registry.
provider_installation {
  filesystem_mirror {
    path    = "$dir"
    include = ["registry.terraform.io/neon-auth/neon", "registry.opentofu.org/neon-auth/neon"]
  }
  direct {
    exclude = ["registry.terraform.io/neon-auth/neon", "registry.opentofu.org/neon-auth/neon"]
  }
}
EOF

cat <<EOF
Built neon-auth/neon $version ($platform) into the filesystem mirror $dir.
Use it for terraform init (or tofu init), in this shell:

  export TF_CLI_CONFIG_FILE=$dir/terraformrc

or copy the provider_installation block of that file into your own CLI configuration.
EOF
